// A limit on the requests one client address makes in a window, on the routes registered in the
// caller's scope (the public routes' per-minute limit, the lead form's per-hour one). The address
// is req.ip, which believes X-Forwarded-For only from the proxies TRUST_PROXY names. Counted
// before the body is read; in memory, so a limit is per process.
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import { AppError } from '../../domain/errors.ts';
import { markRateLimited } from '../documentHeaders.ts';
import { errorResponse } from '../schemas.ts';
import type { App } from '../types.ts';

export interface AddressLimit {
  /** requests a window; 0 or less: no limit (the 429 is still declared) */
  max: number;
  windowMs: number;
  /** the error's text for a limit and the seconds until it resets */
  message: (max: number, seconds: number) => string;
  /** what the OpenAPI document's example of the 429 shows */
  example: { max: number; seconds: number };
  /** what counts as one address: addressGroup(req.ip) (addresses.ts) */
  key: NonNullable<RateLimitPluginOptions['keyGenerator']>;
}

export async function limitPerAddress(app: App, limit: AddressLimit): Promise<void> {
  // the answer it adds is declared on each route it limits, whatever the setting
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
    if (schema && !schema.hide)
      route.schema = {
        ...schema,
        response: {
          ...schema.response,
          429: errorResponse(429, {
            error: limit.message(limit.example.max, limit.example.seconds),
            code: 'rate_limited',
          }),
        },
      };
  });
  if (limit.max <= 0) return;
  app.addHook('onRoute', markRateLimited);
  await app.register(rateLimit, {
    hook: 'onRequest',
    max: limit.max,
    timeWindow: limit.windowMs,
    keyGenerator: limit.key,
    errorResponseBuilder: (_req, ctx) => {
      const seconds = Math.ceil(ctx.ttl / 1000);
      return new AppError('rate_limited', limit.message(ctx.max, seconds), undefined, {
        'retry-after': String(seconds),
      });
    },
  });
}
