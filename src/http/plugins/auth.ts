// API-key authentication and scopes (contract "Authentication"): Authorization: Bearer <key> or
// X-API-Key: <key>; scope read may use the safe methods only. Runs before the body is parsed, so
// a request without a valid key learns nothing about its body or the resources it names.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { authenticate } from '../../services/apiKeys.ts';
import { actorContext } from '../../services/context.ts';
import type { App } from '../types.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

function presentedKey(req: FastifyRequest): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.trim() !== '') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth.trim());
    return m ? m[1]! : null;
  }
  const x = req.headers['x-api-key'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  return null;
}

export function requireApiKey(app: App) {
  app.decorateRequest('auth', null as never);
  app.addHook('onRequest', async (req) => {
    const key = presentedKey(req);
    if (!key)
      throw new AppError(
        'unauthorized',
        'an API key is required: send Authorization: Bearer <key> or X-API-Key: <key>',
      );
    const found = await authenticate(app.db, key, app.keyCache);
    if (found.scope !== 'full' && !SAFE.has(req.method)) {
      throw new AppError('forbidden', `this key has scope ${found.scope}: ${req.method} needs a key with scope full`);
    }
    // the request's now and today, read once from the app's clock
    req.auth = { ...actorContext(found, `api_key:${found.keyId}`, app.clock), keyId: found.keyId, scope: found.scope };
  });
}
