// The router ignores a trailing slash, which is right after an id (/api/clients/{id}/ is that
// client) but not after a collection or a fixed path: /api/clients/ is what a blank id
// ("/api/clients/ ", "/api/clients/%20" decoded) becomes once a client or proxy trims the
// whitespace, and a blank id must not answer the client list. So a route whose path does not end
// in a parameter answers a trailing slash 404, like a malformed id. The hook runs after the
// scope's own (under /api the key is asked for first).
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { notFound } from '../../domain/errors.ts';
import type { App } from '../types.ts';

async function noTrailingSlash(req: FastifyRequest) {
  const path = req.url.split('?')[0]!;
  if (path.length > 1 && path.endsWith('/')) throw notFound();
}

/** Whether the router's trailing-slash tolerance applies: the path ends in a parameter. */
export const endsInParam = (url: string) => /\/:[^/]+$/.test(url);

export default fp(
  async (app: App) => {
    app.addHook('onRoute', (route) => {
      // the documentation's own routes (/docs, its assets) keep the router's behaviour
      if (endsInParam(route.url) || /[*/]$/.test(route.url) || (route.schema as { hide?: boolean })?.hide) return;
      route.onRequest = [...[route.onRequest ?? []].flat(), noTrailingSlash] as typeof route.onRequest;
    });
  },
  { name: 'trailing-slash' },
);
