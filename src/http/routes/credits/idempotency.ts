// Optional `Idempotency-Key` header on the writes that move money (credit creation, payments):
// a retry with the same key and the same request gets the first answer again, and nothing is
// written twice; the same key with a different request is a 409. The answer is stored in the
// write's own transaction, so a crash can never leave a write without its key or a key without
// its write. Refusals (4xx) are not stored: they changed nothing, a retry is judged afresh.
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';
import type { DB } from '../../../db/schema.ts';
import { AppError, conflict } from '../../../domain/errors.ts';
import { findIdempotencyKey, saveIdempotencyKey } from '../../../db/repositories/idempotencyKeys.ts';

export interface Answer {
  status: number;
  body: unknown;
}

/** The use case calls it inside its transaction with the answer it is about to give. */
export type Store = (trx: Transaction<DB>, answer: Answer) => Promise<void>;

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** Key order of JSON objects does not make two requests different. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  }
  return v;
}

function replay(reply: FastifyReply, stored: { request_hash: string; status_code: number; response: unknown }, hash: string) {
  if (stored.request_hash !== hash) throw conflict('this Idempotency-Key was already used for a different request');
  return reply.status(stored.status_code).header('Idempotent-Replayed', 'true').send(stored.response);
}

/**
 * Runs a write under the request's Idempotency-Key, if it sent one. `run` receives the function
 * that stores the answer (undefined without a key) and must call it inside its transaction.
 */
export async function idempotent(app: App, req: FastifyRequest, reply: FastifyReply, run: (store: Store | undefined) => Promise<Answer>) {
  const header = req.headers['idempotency-key'];
  if (header === undefined) {
    const a = await run(undefined);
    return reply.status(a.status).send(a.body);
  }
  if (typeof header !== 'string' || !KEY_RE.test(header)) {
    throw new AppError('validation_failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters', [{ path: 'Idempotency-Key', message: 'invalid' }]);
  }
  const bid = req.auth.businessId;
  const hash = createHash('sha256')
    .update(JSON.stringify([req.method, req.url.split('?')[0], canonical(req.body ?? null)]))
    .digest('hex');
  const existing = await findIdempotencyKey(app.db.kysely, bid, header);
  if (existing) return replay(reply, existing, hash);
  try {
    const a = await run(async (trx, answer) => {
      // the body as JSON text, dates and all: exactly what a replay sends back
      await saveIdempotencyKey(trx, bid, { key: header, requestHash: hash, statusCode: answer.status, response: JSON.parse(JSON.stringify(answer.body)) });
    });
    return reply.status(a.status).send(a.body);
  } catch (err) {
    // the same key raced in from another request: its write won, this one rolled back whole
    if ((err as { code?: string; constraint?: string }).code === '23505') {
      const winner = await findIdempotencyKey(app.db.kysely, bid, header);
      if (winner) return replay(reply, winner, hash);
    }
    throw err;
  }
}
