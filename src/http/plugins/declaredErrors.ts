// Every status a route can answer is declared in the OpenAPI document. A route declares what its
// own rules answer (409, 410, 422, a 404 for an id it looks up); the answers that come from the
// kind of route it is are added here, once for all, as the Error body:
// - any route: 400 (malformed HTTP, a bad parameter, a body where none is taken), 404 (a
//   malformed path id, a trailing slash after a collection), 408 (the request did not arrive in
//   time), 431 (headers too large), 500, 503 (over the connection caps);
// - a method that carries a body (not GET, HEAD, OPTIONS): 413 (too large) and 415 (a content
//   type the route does not read);
// - under /api: 401 (no or bad key), 403 on a write method (a read key), 429 (the per-key limit).
// A public route's 429 is declared by the per-address limit that answers it (publicRateLimit.ts).
// Each comes with its description and an example body (schemas.ts, errorResponse).
// Routes hidden from the document (the OPTIONS catch-all, /openapi.json, /docs) keep their own.
import type { RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { errorResponse } from '../schemas.ts';
import type { App } from '../types.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The statuses a route answers by being the kind of route it is. */
export function commonStatuses(route: Pick<RouteOptions, 'method' | 'url'>): number[] {
  const methods = [route.method].flat();
  const statuses = [400, 404, 408, 431, 500, 503];
  if (methods.some((m) => !SAFE.has(m))) statuses.push(413, 415);
  if (route.url.startsWith('/api/')) {
    statuses.push(401, 429);
    if (methods.some((m) => !SAFE.has(m))) statuses.push(403);
  }
  return statuses.sort();
}

export default fp(
  async (app: App) => {
    app.addHook('onRoute', (route) => {
      const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
      if (!schema || schema.hide) return;
      const added = Object.fromEntries(commonStatuses(route).map((s) => [s, errorResponse(s)]));
      // what the route declares itself wins
      route.schema = { ...schema, response: { ...added, ...schema.response } };
    });
  },
  { name: 'declared-errors' },
);
