// Stored answers of writes sent with an Idempotency-Key (idempotency_keys), scoped to one business.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';

export function findIdempotencyKey(db: Executor, businessId: string, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response'])
    .where('business_id', '=', businessId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Stored in the transaction of the write it answers: both commit, or neither. */
export async function saveIdempotencyKey(
  db: Executor,
  businessId: string,
  v: { key: string; requestHash: string; statusCode: number; response: unknown },
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({
      business_id: businessId,
      key: v.key,
      request_hash: v.requestHash,
      status_code: v.statusCode,
      response: sql`${JSON.stringify(v.response)}::jsonb`,
    })
    .execute();
}
