import { createHash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.ts';

export type Scope = 'read' | 'full';

/** The record of a key as shown to people: never the secret or its hash. */
export interface ApiKeyInfo {
  id: string;
  business_id: string;
  name: string | null;
  scope: Scope;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

// 32 random bytes (256 bits) behind a readable prefix that names the scope: lk_full_… / lk_read_…
export function generateKey(scope: Scope): string {
  return `lk_${scope}_${randomBytes(32).toString('base64url')}`;
}

// The secret carries 256 bits of entropy, so one SHA-256 is enough: no guessing attack on the
// hash is possible, and lookup by hash stays one indexed read.
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

const INFO = ['id', 'business_id', 'name', 'scope', 'prefix', 'created_at', 'last_used_at', 'revoked_at'] as const;

export async function createApiKey(
  db: Kysely<DB>,
  input: { businessId: string; scope: Scope; name?: string | null },
): Promise<{ record: ApiKeyInfo; key: string }> {
  const key = generateKey(input.scope);
  const record = await db
    .insertInto('api_keys')
    .values({
      business_id: input.businessId,
      scope: input.scope,
      name: input.name ?? null,
      prefix: key.slice(0, 16),
      key_hash: hashKey(key),
    })
    .returning(INFO)
    .executeTakeFirstOrThrow();
  return { record, key };
}

export function listApiKeys(db: Kysely<DB>, businessId: string): Promise<ApiKeyInfo[]> {
  return db
    .selectFrom('api_keys')
    .select(INFO)
    .where('business_id', '=', businessId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Revokes at once: every server process forgets the key when this commits (the database
 * announces it, migration 007). Revoking twice keeps the first time; `now` says whether this call
 * revoked it. With a business, only a key of that business.
 */
export async function revokeApiKey(
  db: Kysely<DB>,
  id: string,
  businessId?: string,
): Promise<{ key: ApiKeyInfo | undefined; now: boolean }> {
  let update = db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('id', '=', id)
    .where('revoked_at', 'is', null);
  let select = db.selectFrom('api_keys').select(INFO).where('id', '=', id);
  if (businessId) {
    update = update.where('business_id', '=', businessId);
    select = select.where('business_id', '=', businessId);
  }
  const r = await update.executeTakeFirst();
  const key = await select.executeTakeFirst();
  return { key, now: r.numUpdatedRows > 0n };
}

export interface KeyLookup {
  keyId: string;
  businessId: string;
  scope: Scope;
  timezone: string;
}

/** The channel the database announces key changes on (migration 007_api_key_changes.sql). */
export const API_KEYS_CHANNEL = 'lending_api_keys';

/** The active key with this hash, with its business's time zone and when it was last used. */
export async function findActiveKey(
  db: Kysely<DB>,
  keyHash: string,
): Promise<(KeyLookup & { lastUsedAt: Date | null }) | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('businesses as b', 'b.id', 'k.business_id')
    .select(['k.id as keyId', 'k.business_id as businessId', 'k.scope', 'b.timezone', 'k.last_used_at'])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    keyId: row.keyId,
    businessId: row.businessId,
    scope: row.scope,
    timezone: row.timezone,
    lastUsedAt: row.last_used_at,
  };
}

/** last_used_at to the minute: at most one write a minute per key, whichever process asks. */
export async function touchApiKey(db: Kysely<DB>, businessId: string, keyId: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', keyId)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]),
    )
    .execute();
}
