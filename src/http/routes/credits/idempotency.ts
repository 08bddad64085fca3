// The optional `Idempotency-Key` header on the writes that move money: its format, what makes two
// requests the same (method, path, body), and the replay header. The rules (storing the answer
// with the write, 409 on another request, the race of two requests with one key):
// src/services/idempotency.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';
import { AppError } from '../../../domain/errors.ts';
import { idempotent as runIdempotent, type Answer, type Store } from '../../../services/idempotency.ts';

export type { Answer } from '../../../services/idempotency.ts';

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs a write under the request's Idempotency-Key, if it sent one. `run` receives the function
 * that stores the answer (undefined without a key) and must call it inside its transaction.
 */
export async function idempotent(
  app: App,
  req: FastifyRequest,
  reply: FastifyReply,
  run: (store: Store | undefined) => Promise<Answer>,
) {
  const header = req.headers['idempotency-key'];
  if (header !== undefined && (typeof header !== 'string' || !KEY_RE.test(header))) {
    throw new AppError('validation_failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [
      { path: 'Idempotency-Key', message: 'invalid' },
    ]);
  }
  const key =
    header === undefined ? undefined : { key: header, request: [req.method, req.url.split('?')[0], req.body ?? null] };
  const a = await runIdempotent(app.db.kysely, req.auth.businessId, key, run);
  if (a.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.status(a.status).send(a.body);
}
