// At most config.rateLimitPerMinute requests a minute per API key or signed-in user (0: no
// limit). Registered after authentication, in the scope of the routes it limits; in memory, so the limit is per API process.
import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import { markRateLimited } from '../documentHeaders.ts';
import type { App } from '../types.ts';
import { addressGroup } from '../addresses.ts';

export default fp(
  async (app: App) => {
    const max = app.config.rateLimitPerMinute;
    if (max <= 0) return;
    app.addHook('onRoute', markRateLimited);
    await app.register(rateLimit, {
      hook: 'preHandler',
      max,
      timeWindow: 60_000,
      // per key, or per signed-in user
      keyGenerator: (req) => req.auth?.keyId ?? (req.auth?.userId ? `user:${req.auth.userId}` : addressGroup(req.ip)),
      errorResponseBuilder: (_req, ctx) => {
        const seconds = Math.ceil(ctx.ttl / 1000);
        return new AppError(
          'rate_limited',
          `too many requests: at most ${ctx.max} a minute per key; retry in ${seconds} s`,
          undefined,
          {
            'retry-after': String(seconds),
          },
        );
      },
    });
  },
  { name: 'rate-limit' },
);
