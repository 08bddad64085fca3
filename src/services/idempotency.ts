// Idempotency keys on the writes that move money (credit creation, payments): a retry with the
// same key and the same request gets the first answer again, and nothing is written twice; the
// same key with a different request is a 409. The answer is stored in the write's own
// transaction, so a crash can never leave a write without its key or a key without its write.
// Refusals (4xx) are not stored: they changed nothing, a retry is judged afresh.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { findIdempotencyKey, saveIdempotencyKey } from '../db/repositories/idempotencyKeys.ts';
import { conflict } from '../domain/errors.ts';

/** The answer a write gives: what a retry with the same key gets back. */
export interface Answer {
  status: number;
  body: unknown;
}

/** The use case calls it inside its transaction with the answer it is about to give. */
export type Store = (trx: Transaction<DB>, answer: Answer) => Promise<void>;

export interface IdempotencyKey {
  key: string;
  /** what makes two requests the same one (method, path, body); the key order of objects does not count */
  request: unknown;
}

/** Key order of JSON objects does not make two requests different. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

function replay(
  stored: { request_hash: string; status_code: number; response: unknown },
  hash: string,
): Answer & { replayed: true } {
  if (stored.request_hash !== hash) throw conflict('this Idempotency-Key was already used for a different request');
  return { status: stored.status_code, body: stored.response, replayed: true };
}

/**
 * Runs a write under an idempotency key, if one was given. `run` receives the function that
 * stores the answer (undefined without a key) and must call it inside its transaction. A stored
 * answer comes back with `replayed: true`, and `run` does not run.
 */
export async function idempotent(
  db: Kysely<DB>,
  businessId: string,
  idem: IdempotencyKey | undefined,
  run: (store: Store | undefined) => Promise<Answer>,
): Promise<Answer & { replayed?: true }> {
  if (idem === undefined) return run(undefined);
  const { key } = idem;
  const hash = createHash('sha256')
    .update(JSON.stringify(canonical(idem.request)))
    .digest('hex');
  const existing = await findIdempotencyKey(db, businessId, key);
  if (existing) return replay(existing, hash);
  try {
    return await run(async (trx, answer) => {
      // the body as JSON text, dates and all: exactly what a replay sends back
      await saveIdempotencyKey(trx, businessId, {
        key,
        requestHash: hash,
        statusCode: answer.status,
        response: JSON.parse(JSON.stringify(answer.body)),
      });
    });
  } catch (err) {
    // the same key raced in from another request: its write won, this one rolled back whole
    if ((err as { code?: string }).code === '23505') {
      const winner = await findIdempotencyKey(db, businessId, key);
      if (winner) return replay(winner, hash);
    }
    throw err;
  }
}
