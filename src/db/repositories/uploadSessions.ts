// Upload links (upload_sessions), scoped to one business and client. Only the token's hash is
// stored; the link is looked up by that hash. Times are the database's clock (now()), so one
// clock decides expiry whatever the application servers' clocks say.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { UploadSession } from '../schema.ts';

export function insertUploadSession(
  db: Executor,
  input: { businessId: string; clientId: string; tokenHash: string; createdBy: string; expiresInHours: number },
): Promise<UploadSession> {
  return db
    .insertInto('upload_sessions')
    .values({
      business_id: input.businessId,
      client_id: input.clientId,
      token_hash: input.tokenHash,
      created_by: input.createdBy,
      expires_at: sql<Date>`now() + make_interval(hours => ${input.expiresInHours}::int)`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listUploadSessions(db: Executor, businessId: string, clientId: string): Promise<UploadSession[]> {
  return db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function getUploadSession(
  db: Executor,
  businessId: string,
  clientId: string,
  id: string,
): Promise<UploadSession | undefined> {
  return db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Sets revoked_at unless already set (the first revocation's time stays); returns the session. */
export async function revokeUploadSession(
  db: Executor,
  businessId: string,
  clientId: string,
  id: string,
): Promise<UploadSession | undefined> {
  await db
    .updateTable('upload_sessions')
    .set({ revoked_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return getUploadSession(db, businessId, clientId, id);
}

export type UploadSessionState = 'usable' | 'revoked' | 'expired' | 'used_up';

/** The session of a token hash, with its state now. */
export async function findUploadSessionByTokenHash(
  db: Executor,
  tokenHash: string,
): Promise<{ session: UploadSession; state: UploadSessionState } | undefined> {
  const row = await db
    .selectFrom('upload_sessions')
    .selectAll()
    .select(sql<boolean>`expires_at <= now()`.as('expired'))
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { expired, ...session } = row;
  const state: UploadSessionState =
    session.revoked_at !== null
      ? 'revoked'
      : expired
        ? 'expired'
        : session.upload_count >= session.max_uploads
          ? 'used_up'
          : 'usable';
  return { session, state };
}

/**
 * Takes one upload of the session if it is still usable (not revoked, not expired, not used up),
 * counting it and setting last_used_at. One statement, so two uploads racing for the last slot
 * cannot both have it. undefined when the session is not usable any more.
 */
export function claimUpload(db: Executor, businessId: string, id: string): Promise<UploadSession | undefined> {
  return db
    .updateTable('upload_sessions')
    .set({ upload_count: sql`upload_count + 1`, last_used_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where(sql<boolean>`expires_at > now()`)
    .where(sql<boolean>`upload_count < max_uploads`)
    .returningAll()
    .executeTakeFirst();
}
