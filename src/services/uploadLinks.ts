// Upload links (docs/api.md, "Upload links"): a link through which a client uploads files without an API key,
// until it expires, is revoked or has received all the files it accepts. Only the token's hash
// is stored; the audit log names the link as the actor of what it uploads.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { withActor } from '../db/connection.ts';
import type { ClientFile, DB, UploadSession } from '../db/schema.ts';
import {
  findUploadSessionByTokenHash,
  insertUploadSession,
  listUploadSessions,
  revokeUploadSession,
  type UploadSessionState,
} from '../db/repositories/uploadSessions.ts';
import { gone, notFound } from '../domain/errors.ts';
import type { ActorContext } from './context.ts';
import { requireClient } from './clients.ts';
import { storeClientFile, type FileDeps, type IncomingFile } from './files.ts';

export const DEFAULT_LINK_HOURS = 72;
export const MAX_LINK_HOURS = 720;

/** A new upload-link token: 256 random bits behind a readable prefix. */
const newUploadToken = () => `ul_${randomBytes(32).toString('base64url')}`;
export const UPLOAD_TOKEN_PATTERN = '^ul_[A-Za-z0-9_-]{43}$';
/** The token carries 256 bits, so one SHA-256 is enough: no guessing attack on the hash. */
const hashUploadToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Creates a link for a client (404 when there is none); the token is returned this once. */
export async function createUploadLink(
  db: Kysely<DB>,
  ctx: ActorContext,
  clientId: string,
  expiresInHours = DEFAULT_LINK_HOURS,
): Promise<{ session: UploadSession; token: string }> {
  const client = await requireClient(db, ctx.businessId, clientId);
  const token = newUploadToken();
  return withActor(db, ctx, async (trx) => ({
    session: await insertUploadSession(trx, {
      businessId: ctx.businessId,
      clientId: client.id,
      tokenHash: hashUploadToken(token),
      createdBy: ctx.actor,
      expiresInHours,
    }),
    token,
  }));
}

/** A client's links, oldest first. */
export async function listUploadLinks(db: Kysely<DB>, businessId: string, clientId: string): Promise<UploadSession[]> {
  await requireClient(db, businessId, clientId);
  return listUploadSessions(db, businessId, clientId);
}

/** Revokes a link; revoking again answers the same record, with the first revoked_at. */
export async function revokeUploadLink(
  db: Kysely<DB>,
  ctx: ActorContext,
  clientId: string,
  sessionId: string,
): Promise<UploadSession> {
  const session = await withActor(db, ctx, (trx) => revokeUploadSession(trx, ctx.businessId, clientId, sessionId));
  if (!session) throw notFound('upload link');
  return session;
}

const GONE: Record<Exclude<UploadSessionState, 'usable'>, string> = {
  expired: 'this upload link has expired; ask for a new one',
  revoked: 'this upload link has been revoked; ask for a new one',
  used_up: 'this upload link has received all the files it accepts; ask for a new one',
};

/**
 * Stores a file sent through a link, as the link. The link is checked before a byte is received
 * (404 for a token that never existed, 410 when it can take no more), and again when the file's
 * row is stored.
 */
export async function uploadThroughLink(
  deps: FileDeps,
  token: string,
  receive: () => Promise<IncomingFile>,
): Promise<ClientFile> {
  const found = await findUploadSessionByTokenHash(deps.db, hashUploadToken(token));
  if (!found) throw notFound('upload link');
  if (found.state !== 'usable') throw gone(GONE[found.state]);
  const s = found.session;
  return storeClientFile(
    deps,
    { businessId: s.business_id, clientId: s.client_id, actor: `upload_link:${s.id}`, uploadSessionId: s.id },
    await receive(),
  );
}
