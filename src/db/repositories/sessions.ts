// Server-side sessions (migration 015): found by the hash of their token, with who they belong
// to, read fresh on every request (a role changed or a user disabled counts at once).
import type { Role } from '../../domain/access.ts';
import type { Executor } from '../connection.ts';

export interface NewSession {
  tokenHash: string;
  csrfHash: string;
  businessId: string | null;
  userId: string | null;
  operatorId: string | null;
  now: Date;
  expiresAt: Date;
  /** the impersonation the session runs, if an operator acts as its user */
  impersonationId?: string | null;
}

export async function insertSession(db: Executor, s: NewSession): Promise<string> {
  const row = await db
    .insertInto('sessions')
    .values({
      token_hash: s.tokenHash,
      csrf_hash: s.csrfHash,
      business_id: s.businessId,
      user_id: s.userId,
      operator_id: s.operatorId,
      created_at: s.now,
      last_seen_at: s.now,
      expires_at: s.expiresAt,
      impersonation_id: s.impersonationId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A session with the user (and business) and the operator it names, as they are now. */
export interface FoundSession {
  id: string;
  csrf_hash: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  impersonation_id: string | null;
  user: {
    id: string;
    business_id: string;
    role: Role;
    disabled_at: Date | null;
    timezone: string;
    branch_id: string | null;
  } | null;
  operator: { id: string; email: string; disabled_at: Date | null } | null;
}

export async function findSession(db: Executor, tokenHash: string): Promise<FoundSession | undefined> {
  const r = await db
    .selectFrom('sessions as s')
    .leftJoin('users as u', (j) => j.onRef('u.business_id', '=', 's.business_id').onRef('u.id', '=', 's.user_id'))
    .leftJoin('businesses as b', 'b.id', 's.business_id')
    .leftJoin('operators as o', 'o.id', 's.operator_id')
    .select([
      's.id',
      's.csrf_hash',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      's.impersonation_id',
      's.user_id',
      's.business_id',
      'u.role',
      'u.disabled_at as user_disabled_at',
      'u.branch_id',
      'b.timezone',
      's.operator_id',
      'o.email as operator_email',
      'o.disabled_at as operator_disabled_at',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!r) return undefined;
  return {
    id: r.id,
    csrf_hash: r.csrf_hash,
    created_at: new Date(r.created_at),
    last_seen_at: new Date(r.last_seen_at),
    expires_at: new Date(r.expires_at),
    impersonation_id: r.impersonation_id,
    user:
      r.user_id && r.business_id && r.role
        ? {
            id: r.user_id,
            business_id: r.business_id,
            role: r.role,
            disabled_at: r.user_disabled_at ?? null,
            timezone: r.timezone ?? 'UTC',
            branch_id: r.branch_id ?? null,
          }
        : null,
    operator:
      r.operator_id && r.operator_email
        ? { id: r.operator_id, email: r.operator_email, disabled_at: r.operator_disabled_at ?? null }
        : null,
  };
}

/** last_seen_at, the start of the idle time, moved to now when it is older than a minute. */
export async function touchSession(db: Executor, id: string, now: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now })
    .where('id', '=', id)
    .where('last_seen_at', '<', new Date(now.getTime() - 60_000))
    .execute();
}

export async function deleteSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

export async function deleteSessionByToken(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

/** Every session of a user: their own and those operators started as them. */
export async function deleteUserSessions(db: Executor, businessId: string, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('business_id', '=', businessId).where('user_id', '=', userId).execute();
}

/** Every session of an operator: their own and their impersonations. */
export async function deleteOperatorSessions(db: Executor, operatorId: string): Promise<void> {
  await db.deleteFrom('sessions').where('operator_id', '=', operatorId).execute();
}

/** The sessions ended by either limit; returns how many were deleted. */
export async function deleteEndedSessions(db: Executor, now: Date, idleMinutes: number): Promise<number> {
  const r = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', new Date(now.getTime() - idleMinutes * 60_000))]),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
