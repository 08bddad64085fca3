// Stored answers of writes sent with an Idempotency-Key (idempotency_keys), scoped to one business
// and the caller that sent the key (migration 021), found by the key's digest and sealed under the key (src/services/idempotency.ts). A key lives
// ttlHours from its created_at (the database's clock): older, it counts as absent, may be taken
// again by another request, and is deleted by the sweep.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';

const expiry = (ttlHours: number) => sql<Date>`now() - make_interval(hours => ${ttlHours})`;

/** The key's stored answer, unless there is none or it has expired. */
export function findIdempotencyKey(
  db: Executor,
  businessId: string,
  caller: string,
  keyDigest: string,
  ttlHours: number,
) {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response', 'sealed'])
    .where('business_id', '=', businessId)
    .where('caller', '=', caller)
    .where('key_digest', '=', keyDigest)
    .where('created_at', '>=', expiry(ttlHours))
    .executeTakeFirst();
}

/**
 * Stored in the transaction of the write it answers: both commit, or neither. An expired key of
 * the same name is taken over. Answers false, writing nothing, when the key is alive: another
 * request stored it first (a concurrent one that has not committed yet is waited for).
 */
export async function saveIdempotencyKey(
  db: Executor,
  businessId: string,
  caller: string,
  v: { keyDigest: string; requestHash: string; statusCode: number; sealed: Uint8Array },
  ttlHours: number,
): Promise<boolean> {
  // created_at is never updated through the table's type; a take-over is the one place it moves
  const r = await sql<{ key_digest: string }>`
    INSERT INTO idempotency_keys (business_id, caller, key_digest, request_hash, status_code, sealed)
    VALUES (${businessId}, ${caller}, ${v.keyDigest}, ${v.requestHash}, ${v.statusCode}, ${v.sealed})
    ON CONFLICT (business_id, caller, key_digest) DO UPDATE
      SET request_hash = excluded.request_hash, status_code = excluded.status_code,
          response = NULL, sealed = excluded.sealed, created_at = now()
      WHERE idempotency_keys.created_at < ${expiry(ttlHours)}
    RETURNING key_digest`.execute(db);
  return r.rows.length > 0;
}

/**
 * Deletes up to `limit` expired keys of any business; answers how many. Rows another process is
 * deleting (or taking over) at the same moment are skipped, not waited for, and the expiry is
 * checked again on the row deleted, so a key taken over meanwhile stays.
 */
export async function deleteExpiredIdempotencyKeys(db: Executor, ttlHours: number, limit: number): Promise<number> {
  const r = await sql`
    DELETE FROM idempotency_keys
    WHERE (business_id, caller, key_digest) IN (
      SELECT business_id, caller, key_digest FROM idempotency_keys
      WHERE created_at < ${expiry(ttlHours)}
      ORDER BY created_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    AND created_at < ${expiry(ttlHours)}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
