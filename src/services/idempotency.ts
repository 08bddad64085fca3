// Idempotency keys on every write of the API (docs/api.md, Idempotency keys): a retry with the
// same key and the same request gets the first answer again, and nothing is written twice; the
// same key with a different request is a 409. The answer is stored in the write's own
// transaction (the use case's beforeCommit, src/db/connection.ts), so a crash can never leave a
// write without its key or a key without its write. Refusals (4xx) are not stored: they changed
// nothing, a retry is judged afresh. A key is kept ttlHours (IDEMPOTENCY_TTL_HOURS): older, it
// counts as absent and may name another request; the sweep (src/jobs/idempotencySweep.ts)
// deletes it. The HTTP side (what a request is, the header, the replay): src/http/idempotency.ts.
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import {
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  saveIdempotencyKey,
} from '../db/repositories/idempotencyKeys.ts';
import { conflict } from '../domain/errors.ts';

/** The answer a write gives: what a retry with the same key gets back. */
export interface Answer {
  status: number;
  body: unknown;
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

/** What is stored of a request to tell it from another under the same key. */
export function requestHash(request: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(request)))
    .digest('hex');
}

/**
 * The answer stored under a live key, undefined when there is none; a key stored for another
 * request is a 409.
 */
export async function storedAnswer(
  db: Kysely<DB>,
  businessId: string,
  key: string,
  hash: string,
  ttlHours: number,
): Promise<Answer | undefined> {
  const stored = await findIdempotencyKey(db, businessId, key, ttlHours);
  if (!stored) return undefined;
  if (stored.request_hash !== hash) throw conflict('this Idempotency-Key was already used for a different request');
  return { status: stored.status_code, body: stored.response };
}

/** Thrown inside the write's transaction when its key is alive already: the write rolls back. */
export class KeyTaken extends Error {
  constructor() {
    super('the Idempotency-Key was stored by another request first');
  }
}

/**
 * Stores the answer of a write in the write's transaction; throws KeyTaken (which rolls the
 * write back) when another request holds the key: its answer is then the one to give.
 */
export async function storeAnswer(
  trx: Transaction<DB>,
  businessId: string,
  key: string,
  hash: string,
  answer: Answer,
  ttlHours: number,
): Promise<void> {
  const saved = await saveIdempotencyKey(
    trx,
    businessId,
    { key, requestHash: hash, statusCode: answer.status, response: answer.body },
    ttlHours,
  );
  if (!saved) throw new KeyTaken();
}

/** Keys a sweep deletes in one statement (a short one: other writers wait on none of them). */
export const SWEEP_BATCH = 1000;

/**
 * Deletes the expired keys of every business, a batch a statement; answers how many. Safe in
 * several processes at once: each skips the rows another is deleting.
 */
export async function sweepIdempotencyKeys(
  db: Kysely<DB>,
  ttlHours: number,
  batch: number = SWEEP_BATCH,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteExpiredIdempotencyKeys(db, ttlHours, batch);
    total += n;
    if (n < batch) return total;
  }
}
