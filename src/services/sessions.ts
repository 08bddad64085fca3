// Signing in and out, server-side sessions, the CSRF token that goes with each, setting a password
// from a link, and operators acting as a user (docs/users.md).
//
// A session is a random token in an HttpOnly cookie; the database keeps only its SHA-256, the
// SHA-256 of the session's CSRF token, who it belongs to and when it ends: after
// SESSION_IDLE_MINUTES unused or SESSION_MAX_HOURS after sign-in, whichever comes first. Every
// sign-in, and every start and stop of an impersonation, replaces the session the request came
// with by a new one (a token seen before the change is worth nothing after it).
import { timingSafeEqual } from 'node:crypto';
import { withActor } from '../db/connection.ts';
import type { Business } from '../db/schema.ts';
import { getBusiness as businessRow } from '../db/repositories/businesses.ts';
import { clearAttempts, countAttempt, deleteOldAttempts, uncountAttempt } from '../db/repositories/loginFailures.ts';
import {
  getOperator,
  operatorCandidate,
  recordOperatorLogin,
  setOperatorPassword,
  type OperatorInfo,
} from '../db/repositories/operators.ts';
import { deleteOldPasswordTokens, lockPasswordToken, voidPasswordTokens } from '../db/repositories/passwordTokens.ts';
import {
  deleteEndedSessions,
  deleteOperatorSessions,
  deleteSession,
  deleteSessionByToken,
  deleteUserSessions,
  findSession,
  insertSession,
  touchSession,
} from '../db/repositories/sessions.ts';
import {
  findUser,
  getUser,
  loginCandidates,
  recordUserLogin,
  setUserPassword,
  type UserInfo,
} from '../db/repositories/users.ts';
import { checkPassword, normalEmail, type Role } from '../domain/access.ts';
import { AppError, conflict, gone, notFound } from '../domain/errors.ts';
import type { Config } from '../config.ts';
import type { Database } from './context.ts';
import { hashPassword, newSecret, passwordMatches, sha256, verifyDecoy } from './passwords.ts';

/** The limits of sessions and sign-ins, in milliseconds and counts (from the configuration). */
export interface SessionPolicy {
  idleMs: number;
  maxMs: number;
  failuresPerEmail: number;
  failuresPerAddress: number;
  windowMs: number;
}

export function sessionPolicy(config: Config): SessionPolicy {
  return {
    idleMs: config.sessionIdleMinutes * 60_000,
    maxMs: config.sessionMaxHours * 3_600_000,
    failuresPerEmail: config.loginFailuresPerEmail,
    failuresPerAddress: config.loginFailuresPerAddress,
    windowMs: config.loginFailureWindowMinutes * 60_000,
  };
}

export const SESSION_TOKEN_PATTERN = /^sess_[A-Za-z0-9_-]{43}$/;
export const CSRF_TOKEN_PATTERN = /^csrf_[A-Za-z0-9_-]{43}$/;
export const PASSWORD_TOKEN_PATTERN = '^sp_[A-Za-z0-9_-]{43}$';

/** Who a request's session is: a user (maybe with the operator acting as them), or an operator alone. */
export interface SessionAuth {
  sessionId: string;
  csrfHash: string;
  expiresAt: Date;
  /** branchId: the user's branch (what they record defaults to it), or null */
  user: { id: string; businessId: string; role: Role; timezone: string; branchId: string | null } | null;
  operator: { id: string; email: string } | null;
}

/** What /auth/me answers: the user and their business, or the operator alone, and who acts as whom. */
export interface Me {
  user: UserInfo | null;
  business: Business | null;
  operator: Pick<OperatorInfo, 'id' | 'email' | 'name'> | null;
  impersonated_by: string | null;
}

/** A new session: its token and CSRF token go to the browser once, as cookies. */
export interface Started {
  token: string;
  csrf: string;
  expiresAt: Date;
  me: Me;
}

const ENDED = 'the session has ended (signed out, expired or replaced): sign in again at POST /auth/login';

/**
 * The session a token names, if it has not ended; 401 otherwise. A session of a user disabled
 * since, or of a disabled operator, has ended too. The idle time restarts at most once a minute
 * (one write a minute per session, not one a request).
 */
export async function authenticateSession(
  db: Database,
  token: string,
  now: Date,
  policy: SessionPolicy,
): Promise<SessionAuth> {
  if (!SESSION_TOKEN_PATTERN.test(token)) throw new AppError('unauthorized', ENDED);
  const s = await findSession(db.kysely, sha256(token));
  if (!s) throw new AppError('unauthorized', ENDED);
  const ended =
    now >= s.expires_at ||
    now.getTime() - s.last_seen_at.getTime() >= policy.idleMs ||
    (s.user && s.user.disabled_at) ||
    (s.operator && s.operator.disabled_at);
  if (ended) {
    await deleteSession(db.kysely, s.id);
    throw new AppError('unauthorized', ENDED);
  }
  if (now.getTime() - s.last_seen_at.getTime() > 60_000) await touchSession(db.kysely, s.id, now);
  return {
    sessionId: s.id,
    csrfHash: s.csrf_hash,
    expiresAt: s.expires_at,
    user: s.user && {
      id: s.user.id,
      businessId: s.user.business_id,
      role: s.user.role,
      timezone: s.user.timezone,
      branchId: s.user.branch_id,
    },
    operator: s.operator && { id: s.operator.id, email: s.operator.email },
  };
}

/** Whether the X-CSRF-Token sent is the session's (compared as hashes, in constant time). */
export function csrfMatches(auth: SessionAuth, sent: string): boolean {
  if (!CSRF_TOKEN_PATTERN.test(sent)) return false;
  return timingSafeEqual(Buffer.from(sha256(sent)), Buffer.from(auth.csrfHash));
}

async function startSession(
  db: Database,
  who: { businessId: string | null; userId: string | null; operatorId: string | null },
  now: Date,
  expiresAt: Date,
): Promise<{ token: string; csrf: string }> {
  const token = newSecret('sess_');
  const csrf = newSecret('csrf_');
  await insertSession(db.kysely, {
    tokenHash: sha256(token),
    csrfHash: sha256(csrf),
    ...who,
    now,
    expiresAt,
  });
  return { token, csrf };
}

/** /auth/me's answer for a session. */
export async function whoAmI(db: Database, auth: SessionAuth): Promise<Me> {
  const [user, business, operator] = await Promise.all([
    auth.user ? getUser(db.kysely, auth.user.businessId, auth.user.id) : undefined,
    auth.user ? businessRow(db.kysely, auth.user.businessId) : undefined,
    auth.operator ? getOperator(db.kysely, auth.operator.id) : undefined,
  ]);
  return {
    user: user ?? null,
    business: business ?? null,
    operator: operator ? { id: operator.id, email: operator.email, name: operator.name } : null,
    impersonated_by: auth.user && auth.operator ? auth.operator.email : null,
  };
}

const subject = (kind: 'email' | 'address', value: string) => sha256(`${kind}:${value}`);

function tooMany(what: string, windowStartedAt: Date, now: Date, policy: SessionPolicy): AppError {
  const seconds = Math.max(1, Math.ceil((windowStartedAt.getTime() + policy.windowMs - now.getTime()) / 1000));
  return new AppError('rate_limited', `too many failed sign-ins ${what}; retry in ${seconds} s`, undefined, {
    'retry-after': String(seconds),
  });
}

export interface SignIn {
  email: string;
  password: string;
  /** when the email has accounts in several businesses: which one */
  businessId?: string;
  /** the client's address, for the per-address limit */
  address: string;
  /** the session the request came with, if any: it ends (a sign-in always starts a new one) */
  previousToken?: string | null;
}

/**
 * Signs a user or an operator in. Each attempt is counted, before the password is checked, against
 * its email and its address (so attempts sent at once cannot slip past the limit); once either
 * count is over its limit within the window, 429 until the window ends, whatever the password. A
 * success forgets the email's count and takes its own attempt back from the address's.
 */
export async function signIn(db: Database, input: SignIn, now: Date, policy: SessionPolicy): Promise<Started> {
  let email: string;
  try {
    email = normalEmail(input.email);
  } catch {
    email = input.email.trim().toLowerCase(); // counted all the same; no account has it
  }
  const byEmail = subject('email', email);
  const byAddress = subject('address', input.address);
  const [e, a] = await Promise.all([
    countAttempt(db.kysely, byEmail, now, policy.windowMs),
    countAttempt(db.kysely, byAddress, now, policy.windowMs),
  ]);
  if (a.failures > policy.failuresPerAddress) throw tooMany('from this address', a.windowStartedAt, now, policy);
  if (e.failures > policy.failuresPerEmail) throw tooMany('for this email', e.windowStartedAt, now, policy);

  const [users, operator] = await Promise.all([loginCandidates(db.kysely, email), operatorCandidate(db.kysely, email)]);
  const candidates = input.businessId ? users.filter((u) => u.business_id === input.businessId) : users;
  const matched: UserInfo[] = [];
  for (const u of candidates) {
    const { password_hash, ...info } = u;
    if (await passwordMatches(password_hash, input.password)) matched.push(info);
  }
  const operatorMatched =
    !input.businessId && operator !== undefined && (await passwordMatches(operator.password_hash, input.password));
  if (candidates.length === 0 && !operator) await verifyDecoy(input.password);
  const accounts = matched.length + (operatorMatched ? 1 : 0);
  if (accounts === 0) throw new AppError('unauthorized', 'the email or the password is wrong');
  if (accounts > 1) {
    const names = await Promise.all(matched.map((u) => businessRow(db.kysely, u.business_id)));
    throw conflict(
      `this email and password open accounts in several businesses: send business_id too (${names
        .map((b) => `${b!.id} ${b!.name}`)
        .join('; ')})`,
    );
  }
  await Promise.all([clearAttempts(db.kysely, byEmail), uncountAttempt(db.kysely, byAddress)]);
  if (input.previousToken) await deleteSessionByToken(db.kysely, sha256(input.previousToken));
  const expiresAt = new Date(now.getTime() + policy.maxMs);
  const user = matched[0];
  if (user) {
    await withActor(db.kysely, { actor: `user:${user.id}` }, (trx) =>
      recordUserLogin(trx, user.business_id, user.id, now),
    );
    const s = await startSession(
      db,
      { businessId: user.business_id, userId: user.id, operatorId: null },
      now,
      expiresAt,
    );
    const business = (await businessRow(db.kysely, user.business_id)) ?? null;
    return {
      ...s,
      expiresAt,
      me: {
        user: { ...user, last_login_at: now },
        business,
        operator: null,
        impersonated_by: null,
      },
    };
  }
  const op = operator!;
  await recordOperatorLogin(db.kysely, op.id, now);
  const s = await startSession(db, { businessId: null, userId: null, operatorId: op.id }, now, expiresAt);
  return {
    ...s,
    expiresAt,
    me: { user: null, business: null, operator: { id: op.id, email: op.email, name: op.name }, impersonated_by: null },
  };
}

/** Ends the session the token names (nothing when it names none). */
export async function signOut(db: Database, token: string): Promise<void> {
  if (SESSION_TOKEN_PATTERN.test(token)) await deleteSessionByToken(db.kysely, sha256(token));
}

/**
 * An operator starts acting as a user: the operator's session ends and a new one, the user's with
 * the operator named, takes its place, ending when the operator's would have at the latest.
 */
export async function impersonate(db: Database, auth: SessionAuth, userId: string, now: Date): Promise<Started> {
  if (!auth.operator) throw new AppError('forbidden', 'only platform operators may act as another user');
  const user = await findUser(db.kysely, userId);
  if (!user) throw notFound('user');
  if (user.disabled_at) throw conflict('this user is disabled: enable them first (PUT /api/users/{id})');
  return switchOperatorSession(db, auth, auth.operator.id, user, now);
}

/** The operator stops acting as a user: back to a session of their own (a new one). */
export async function stopImpersonating(db: Database, auth: SessionAuth, now: Date): Promise<Started> {
  if (!auth.operator || !auth.user) throw conflict('this session is not acting as another user');
  return switchOperatorSession(db, auth, auth.operator.id, null, now);
}

/**
 * Replaces an operator's session with a new one, acting as `user` or (null) as themselves; the new
 * one ends when the one it replaces would have.
 */
async function switchOperatorSession(
  db: Database,
  auth: SessionAuth,
  operatorId: string,
  user: Awaited<ReturnType<typeof findUser>> | null,
  now: Date,
): Promise<Started> {
  await deleteSession(db.kysely, auth.sessionId);
  const s = await startSession(
    db,
    { businessId: user?.business_id ?? null, userId: user?.id ?? null, operatorId },
    now,
    auth.expiresAt,
  );
  const operator = (await getOperator(db.kysely, operatorId))!;
  return {
    ...s,
    expiresAt: auth.expiresAt,
    me: {
      user: user ?? null,
      business: user ? ((await businessRow(db.kysely, user.business_id)) ?? null) : null,
      operator: { id: operator.id, email: operator.email, name: operator.name },
      impersonated_by: user ? operator.email : null,
    },
  };
}

const LINK_GONE = 'this set-password link is not valid any more (used, expired or replaced): ask for a new one';

/**
 * Sets a password from a one-time link: the link and any other unused one of the account stop
 * working, and every session of the account ends (whoever knew the old password is signed out).
 */
export async function setPasswordWithLink(db: Database, token: string, password: string, now: Date): Promise<Me> {
  checkPassword(password);
  const hash = await hashPassword(password);
  const tokenHash = sha256(token);
  const peek = await lockPasswordToken(db.kysely, tokenHash);
  if (!peek) throw gone(LINK_GONE);
  // the audit names the user who sets their password (an operator's is not audited: no business)
  const actor = peek.user_id ? `user:${peek.user_id}` : `operator:${peek.operator_id}`;
  const found = await withActor(db.kysely, { actor }, async (trx) => {
    const t = await lockPasswordToken(trx, tokenHash);
    if (!t || t.used_at || new Date(t.expires_at) <= now) throw gone(LINK_GONE);
    if (t.operator_id) {
      await voidPasswordTokens(trx, { operatorId: t.operator_id }, now);
      const op = await setOperatorPassword(trx, t.operator_id, hash, now);
      if (op.disabled_at) throw gone(LINK_GONE);
      await deleteOperatorSessions(trx, op.id);
      return { kind: 'operator', operator: op } as const;
    }
    const businessId = t.business_id!;
    const userId = t.user_id!;
    await voidPasswordTokens(trx, { businessId, userId }, now);
    const user = await setUserPassword(trx, businessId, userId, hash, now);
    if (user.disabled_at) throw gone(LINK_GONE);
    await deleteUserSessions(trx, businessId, userId);
    return { kind: 'user', user } as const;
  });
  if (found.kind === 'operator') {
    const op = found.operator;
    return {
      user: null,
      business: null,
      operator: { id: op.id, email: op.email, name: op.name },
      impersonated_by: null,
    };
  }
  return {
    user: found.user,
    business: (await businessRow(db.kysely, found.user.business_id)) ?? null,
    operator: null,
    impersonated_by: null,
  };
}

/** Deletes ended sessions, spent or expired links and finished sign-in windows; returns how many rows went. */
export async function sweepSessions(db: Database, now: Date, policy: SessionPolicy): Promise<number> {
  const day = new Date(now.getTime() - 24 * 3_600_000);
  const [s, t, f] = await Promise.all([
    deleteEndedSessions(db.kysely, now, policy.idleMs / 60_000),
    deleteOldPasswordTokens(db.kysely, day),
    deleteOldAttempts(db.kysely, new Date(now.getTime() - policy.windowMs)),
  ]);
  return s + t + f;
}
