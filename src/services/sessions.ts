// Signing in and out, server-side sessions, the CSRF token that goes with each, setting a password
// from a link, and operators acting as a user (docs/users.md).
//
// A session is a random token in an HttpOnly cookie; the database keeps only its SHA-256, the
// SHA-256 of the session's CSRF token, who it belongs to and when it ends: after
// SESSION_IDLE_MINUTES unused or SESSION_MAX_HOURS after sign-in, whichever comes first. Every
// sign-in, and every start and stop of an impersonation, replaces the session the request came
// with by a new one (a token seen before the change is worth nothing after it).
import { timingSafeEqual } from 'node:crypto';
import { withActor, type Executor } from '../db/connection.ts';
import type { Business } from '../db/schema.ts';
import { getBusiness as businessRow } from '../db/repositories/businesses.ts';
import {
  clearAttempts,
  countAttempt,
  deleteOldAttempts,
  failuresOf,
  gateAttempt,
  uncountAttempt,
} from '../db/repositories/loginFailures.ts';
import { endImpersonation, startImpersonation } from '../db/repositories/impersonations.ts';
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
  passwordHashOf,
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
  failuresPerAccount: number;
  failuresPerAddress: number;
  windowMs: number;
}

export function sessionPolicy(config: Config): SessionPolicy {
  return {
    idleMs: config.sessionIdleMinutes * 60_000,
    maxMs: config.sessionMaxHours * 3_600_000,
    failuresPerAccount: config.loginFailuresPerAccount,
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
  /** the impersonation this session runs (an operator acting as its user), else null */
  impersonationId: string | null;
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
    impersonationId: s.impersonation_id,
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
  db: Executor,
  who: { businessId: string | null; userId: string | null; operatorId: string | null; impersonationId?: string | null },
  now: Date,
  expiresAt: Date,
): Promise<{ token: string; csrf: string }> {
  const token = newSecret('sess_');
  const csrf = newSecret('csrf_');
  await insertSession(db, {
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

// The subjects sign-in attempts are counted against (stored as hashes): an account, a client
// address (grouped by the HTTP layer: an IPv6 address by its /64), and the pair of both.
const accountSubject = (a: Account) => sha256(`account:${a.kind}:${a.id}`);
const addressSubject = (address: string) => sha256(`address:${address}`);
const pairSubject = (a: Account, address: string) => sha256(`pair:${a.kind}:${a.id}:${address}`);

/** An account a sign-in may open: a user of a business, or a platform operator. */
interface Account {
  kind: 'user' | 'operator';
  id: string;
  passwordHash: string;
}

/**
 * How long an address that failed on an account must wait between its attempts once the account
 * has `failures` failures in the window: nothing below the limit, then 1 s doubling with each
 * further failure, at most the window.
 */
export function signInDelayMs(failures: number, policy: SessionPolicy): number {
  if (failures < policy.failuresPerAccount) return 0;
  const steps = Math.min(failures - policy.failuresPerAccount, 30);
  return Math.min(1000 * 2 ** steps, policy.windowMs);
}

function tooMany(what: string, retryAt: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  return new AppError('rate_limited', `too many failed sign-ins ${what}; retry in ${seconds} s`, undefined, {
    'retry-after': String(seconds),
  });
}

const WRONG = 'the email or the password is wrong';

export interface SignIn {
  email: string;
  password: string;
  /** when the email has accounts in several businesses: which one */
  businessId?: string;
  /** the client's address as the limits count it (an IPv6 address by its /64) */
  address: string;
  /** the session the request came with, if any: it ends (a sign-in always starts a new one) */
  previousToken?: string | null;
}

/**
 * Signs a user or an operator in (docs/security.md, "Signing in"). Attempts are counted three
 * ways, each within the failure window:
 * - per address: every attempt counts before its password is checked (so attempts sent at once
 *   cannot slip past) and a success takes its own back; beyond the limit, 429 until the window ends;
 * - per account (a user of one business, or an operator): its failures, from any address; a
 *   success forgets them. A success on one business's account never clears another's;
 * - per pair of account and address: once the account has failed `failuresPerAccount` times, an
 *   address that failed on it waits a doubling delay (signInDelayMs) between attempts, 429
 *   meanwhile. An address with no failure on the account is not delayed: the account's owner,
 *   elsewhere, still signs in with the right password while someone guesses at it.
 * The answer names no business to someone not signed in, and every path that checks no password
 * hashes a decoy, so an answer's timing tells nothing about which emails have accounts.
 */
export async function signIn(db: Database, input: SignIn, now: Date, policy: SessionPolicy): Promise<Started> {
  let email: string;
  try {
    email = normalEmail(input.email);
  } catch {
    email = input.email.trim().toLowerCase(); // counted all the same; no account has it
  }
  const byAddress = addressSubject(input.address);
  const a = await countAttempt(db.kysely, byAddress, now, policy.windowMs);
  if (a.failures > policy.failuresPerAddress) {
    await verifyDecoy(input.password);
    throw tooMany('from this address', new Date(a.windowStartedAt.getTime() + policy.windowMs), now);
  }

  const [users, operator] = await Promise.all([loginCandidates(db.kysely, email), operatorCandidate(db.kysely, email)]);
  const candidates: (Account & { user?: UserInfo })[] = [];
  for (const u of input.businessId ? users.filter((x) => x.business_id === input.businessId) : users) {
    const { password_hash, ...info } = u;
    candidates.push({ kind: 'user', id: u.id, passwordHash: password_hash, user: info });
  }
  // an operator belongs to no business: a sign-in that names one is not theirs
  if (operator && !input.businessId)
    candidates.push({ kind: 'operator', id: operator.id, passwordHash: operator.password_hash });

  // the pair of each account and this address: counted, or refused while its delay runs
  const gates = await Promise.all(
    candidates.map(async (c) => {
      const failures = await failuresOf(db.kysely, accountSubject(c), now, policy.windowMs);
      return gateAttempt(
        db.kysely,
        pairSubject(c, input.address),
        now,
        policy.windowMs,
        signInDelayMs(failures, policy),
      );
    }),
  );
  const refused = gates.flatMap((g) => (g.allowed ? [] : [g.retryAt]));
  if (refused.length > 0) {
    await verifyDecoy(input.password);
    throw tooMany('for this account from this address', new Date(Math.max(...refused.map(Number))), now);
  }

  const matched: typeof candidates = [];
  for (const c of candidates) if (await passwordMatches(c.passwordHash, input.password)) matched.push(c);
  if (candidates.length === 0) await verifyDecoy(input.password);
  if (matched.length === 0) {
    await Promise.all(candidates.map((c) => countAttempt(db.kysely, accountSubject(c), now, policy.windowMs)));
    throw new AppError('unauthorized', WRONG);
  }
  // the attempt was no failure: the address and the pairs take it back, the account opened forgets its failures
  await Promise.all([
    uncountAttempt(db.kysely, byAddress),
    ...candidates
      .filter((c) => !matched.includes(c))
      .map((c) => uncountAttempt(db.kysely, pairSubject(c, input.address))),
    clearAttempts(
      db.kysely,
      matched.flatMap((c) => [accountSubject(c), pairSubject(c, input.address)]),
    ),
  ]);
  if (matched.length > 1)
    throw conflict(
      'this email and password open accounts in several businesses: send business_id too (your administrator can tell you your business’s id)',
    );
  if (input.previousToken) await deleteSessionByToken(db.kysely, sha256(input.previousToken));
  const expiresAt = new Date(now.getTime() + policy.maxMs);
  const user = matched[0]!.user;
  if (user) {
    await withActor(db.kysely, { actor: `user:${user.id}` }, (trx) =>
      recordUserLogin(trx, user.business_id, user.id, now),
    );
    const s = await startSession(
      db.kysely,
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
  const s = await startSession(db.kysely, { businessId: null, userId: null, operatorId: op.id }, now, expiresAt);
  return {
    ...s,
    expiresAt,
    me: { user: null, business: null, operator: { id: op.id, email: op.email, name: op.name }, impersonated_by: null },
  };
}

/**
 * Checks a signed-in user's own password again before what could hand a stranger lasting access
 * (making an admin, granting the role): 403 when it is wrong. Its failures count against the
 * account like a sign-in's, so a stolen session cannot guess the password here either.
 */
export async function confirmPassword(
  db: Database,
  user: { businessId: string; id: string },
  password: string,
  address: string,
  now: Date,
  policy: SessionPolicy,
): Promise<void> {
  const hash = await passwordHashOf(db.kysely, user.businessId, user.id);
  const account: Account = { kind: 'user', id: user.id, passwordHash: hash ?? '' };
  const failures = await failuresOf(db.kysely, accountSubject(account), now, policy.windowMs);
  const gate = await gateAttempt(
    db.kysely,
    pairSubject(account, address),
    now,
    policy.windowMs,
    signInDelayMs(failures, policy),
  );
  if (!gate.allowed) {
    await verifyDecoy(password);
    throw tooMany('for this account from this address', gate.retryAt, now);
  }
  if (hash && (await passwordMatches(hash, password))) {
    await uncountAttempt(db.kysely, pairSubject(account, address));
    return;
  }
  if (!hash) await verifyDecoy(password);
  await countAttempt(db.kysely, accountSubject(account), now, policy.windowMs);
  throw new AppError('forbidden', 'current_password is not your password: send your own password to confirm');
}

/** Ends the session the token names (nothing when it names none), and the impersonation it ran. */
export async function signOut(
  db: Database,
  token: string,
  auth: SessionAuth | null = null,
  now = new Date(),
): Promise<void> {
  if (!SESSION_TOKEN_PATTERN.test(token)) return;
  if (auth?.impersonationId && auth.user && auth.operator) {
    const { user, operator, impersonationId } = auth;
    await withActor(db.kysely, { actor: `operator:${operator.id}`, impersonatedBy: operator.email }, async (trx) => {
      await endImpersonation(trx, user.businessId, impersonationId, now);
      await deleteSessionByToken(trx, sha256(token));
    });
    return;
  }
  await deleteSessionByToken(db.kysely, sha256(token));
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
 * one ends when the one it replaces would have. The start and the stop of an impersonation are
 * rows of the user's business (migration 020), written with the session in one transaction, so
 * the business's audit log has both, with the operator as actor and impersonated_by.
 */
async function switchOperatorSession(
  db: Database,
  auth: SessionAuth,
  operatorId: string,
  user: Awaited<ReturnType<typeof findUser>> | null,
  now: Date,
): Promise<Started> {
  const operator = (await getOperator(db.kysely, operatorId))!;
  const writer = { actor: `operator:${operator.id}`, impersonatedBy: operator.email };
  const s = await withActor(db.kysely, writer, async (trx) => {
    if (auth.impersonationId && auth.user) await endImpersonation(trx, auth.user.businessId, auth.impersonationId, now);
    await deleteSession(trx, auth.sessionId);
    const impersonationId = user
      ? await startImpersonation(trx, user.business_id, {
          operatorId,
          operatorEmail: operator.email,
          userId: user.id,
          at: now,
        })
      : null;
    return startSession(
      trx,
      { businessId: user?.business_id ?? null, userId: user?.id ?? null, operatorId, impersonationId },
      now,
      auth.expiresAt,
    );
  });
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
