// At most config.publicRateLimitPerMinute requests a minute per client address (0: no limit) on
// the public routes registered in its scope: the upload links today, login and leads later. A
// token or a password is guessed by trying; this bounds the tries. The address is req.ip, which
// believes X-Forwarded-For only from the proxies TRUST_PROXY names (never a header otherwise).
// Counted before the body is read; in memory, so the limit is per process.
import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import { errorResponse } from '../schemas.ts';
import type { App } from '../types.ts';

export default fp(
  async (app: App) => {
    // the answer it adds is declared on each route it limits, whatever the setting
    app.addHook('onRoute', (route) => {
      const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
      if (schema && !schema.hide)
        route.schema = {
          ...schema,
          response: {
            ...schema.response,
            429: errorResponse(429, {
              error: 'too many requests from this address: at most 60 a minute; retry in 12 s',
              code: 'rate_limited',
            }),
          },
        };
    });
    const max = app.config.publicRateLimitPerMinute;
    if (max <= 0) return;
    await app.register(rateLimit, {
      hook: 'onRequest',
      max,
      timeWindow: 60_000,
      keyGenerator: (req) => req.ip,
      errorResponseBuilder: (_req, ctx) => {
        const seconds = Math.ceil(ctx.ttl / 1000);
        return new AppError(
          'rate_limited',
          `too many requests from this address: at most ${ctx.max} a minute; retry in ${seconds} s`,
          undefined,
          { 'retry-after': String(seconds) },
        );
      },
    });
  },
  { name: 'public-rate-limit' },
);
