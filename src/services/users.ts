// The users of a business and the platform's operators (docs/users.md): created without a
// password, each with a one-time link to set one (valid 72 hours); edited, disabled and enabled
// by the business's admins, who can never leave their business without an enabled admin.
import { withActor } from '../db/connection.ts';
import type { Executor } from '../db/connection.ts';
import { insertOperator, operatorByEmail, type OperatorInfo } from '../db/repositories/operators.ts';
import { issuePasswordToken, type Account } from '../db/repositories/passwordTokens.ts';
import { deleteUserSessions } from '../db/repositories/sessions.ts';
import {
  emailTaken,
  getUser,
  insertUser,
  listUsers as userPage,
  lockEnabledAdmins,
  updateUser,
  type UserInfo,
  type UserPatch,
} from '../db/repositories/users.ts';
import { normalEmail, type Role } from '../domain/access.ts';
import { AppError, conflict, invalid, notFound } from '../domain/errors.ts';
import { getBusiness } from './businesses.ts';
import type { ActorContext, Database } from './context.ts';
import { usableBranch } from './branches.ts';
import { newSecret, sha256 } from './passwords.ts';

export type { UserInfo, OperatorInfo };

export const PASSWORD_LINK_HOURS = 72;

/** Where a set-password link leads, after the service's base URL: the token stays in the fragment (never sent to a server, never in a log). */
export const setPasswordPath = (token: string) => `/set-password#token=${token}`;

/** A one-time link's token, shown once, and when it stops working. */
export interface PasswordLink {
  token: string;
  expires_at: Date;
}

async function newLink(trx: Executor, account: Account, now: Date): Promise<PasswordLink> {
  const token = newSecret('sp_');
  const expires_at = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3_600_000);
  await issuePasswordToken(trx, account, sha256(token), now, expires_at);
  return { token, expires_at };
}

export interface UserInput {
  email: string;
  name?: string | null;
  role: Role;
  branch_id?: string | null;
}

const cleanName = (name: string | null | undefined) => (name == null ? null : name.trim() || null);

/**
 * How a signed-in admin proves, again, who they are before making an admin: their current
 * password, checked by the caller (services/sessions.ts confirmPassword, counted as sign-in
 * failures are).
 */
export interface Reauthentication {
  /** the current_password the request carried, if any */
  password: string | undefined;
  check: (password: string) => Promise<void>;
}

/**
 * Making an admin (a new one, or the role given to a user) hands lasting control of the
 * business: only an admin's own session may (never an API key, never an operator acting as a
 * user), with their current password again (docs/security.md). The command line, run by whoever
 * runs the installation, may.
 */
async function mayGrantAdmin(ctx: ActorContext, reauth: Reauthentication | undefined): Promise<void> {
  if (ctx.actor === 'cli') return;
  if (ctx.impersonatedBy)
    throw new AppError('forbidden', 'an operator acting as a user cannot make admins: the business’s own admin must');
  if (!ctx.actor.startsWith('user:'))
    throw new AppError('forbidden', 'only a signed-in admin may make admins, never an API key: sign in at /auth/login');
  if (!reauth?.password)
    throw invalid('/current_password', 'making an admin needs your own current password, to confirm it is you');
  await reauth.check(reauth.password);
}

/** A user of the ctx's business, without a password, and the link to set one (409 on an email the business already has). */
export async function createUser(
  db: Database,
  ctx: ActorContext,
  input: UserInput,
  reauth?: Reauthentication,
): Promise<{ user: UserInfo; link: PasswordLink }> {
  const email = normalEmail(input.email);
  if (input.role === 'admin') await mayGrantAdmin(ctx, reauth);
  return withActor(db.kysely, ctx, async (trx) => {
    if (await emailTaken(trx, ctx.businessId, email)) throw conflict(`a user with email ${email} already exists`);
    const branchId = input.branch_id ? await usableBranch(trx, ctx.businessId, input.branch_id) : null;
    const user = await insertUser(trx, ctx.businessId, {
      email,
      name: cleanName(input.name),
      role: input.role,
      branchId,
    });
    const link = await newLink(trx, { businessId: ctx.businessId, userId: user.id }, ctx.now);
    return { user, link };
  });
}

export async function listUsers(db: Database, ctx: ActorContext, page: { limit: number; offset: number }) {
  const { rows, total } = await userPage(db.kysely, ctx.businessId, page);
  return { items: rows, total, ...page };
}

/** An operator's view of one business's users, to choose whom to act as (404 for no such business). */
export async function listUsersOfBusiness(db: Database, businessId: string, page: { limit: number; offset: number }) {
  await getBusiness(db, businessId);
  const { rows, total } = await userPage(db.kysely, businessId, page);
  return { items: rows, total, ...page };
}

export async function readUser(db: Database, ctx: ActorContext, id: string): Promise<UserInfo> {
  const user = await getUser(db.kysely, ctx.businessId, id);
  if (!user) throw notFound('user');
  return user;
}

export interface UserEdit {
  email?: string;
  name?: string | null;
  role?: Role;
  branch_id?: string | null;
  /** true disables the user (their sessions end), false enables them again */
  disabled?: boolean;
}

/**
 * Only the fields given change. A user disabled, or no longer an admin, must not be the business's
 * last enabled admin (409). Disabling ends the user's sessions; a new role counts from their next
 * request.
 */
export async function editUser(
  db: Database,
  ctx: ActorContext,
  id: string,
  input: UserEdit,
  reauth?: Reauthentication,
): Promise<UserInfo> {
  const email = input.email === undefined ? undefined : normalEmail(input.email);
  let granting = false;
  if (input.role === 'admin') {
    const before = await getUser(db.kysely, ctx.businessId, id);
    if (!before) throw notFound('user');
    granting = before.role !== 'admin';
    if (granting) await mayGrantAdmin(ctx, reauth);
  }
  return withActor(db.kysely, ctx, async (trx) => {
    const current = await getUser(trx, ctx.businessId, id);
    if (!current) throw notFound('user');
    // no longer an admin since the look above, which then asked for no confirmation
    if (input.role === 'admin' && current.role !== 'admin' && !granting)
      throw conflict('this user’s role changed meanwhile: send the request again');
    const patch: UserPatch = {};
    if (email !== undefined && email !== current.email) {
      if (await emailTaken(trx, ctx.businessId, email, id)) throw conflict(`a user with email ${email} already exists`);
      patch.email = email;
    }
    if (input.name !== undefined) patch.name = cleanName(input.name);
    if (input.role !== undefined && input.role !== current.role) patch.role = input.role;
    if (input.branch_id !== undefined && input.branch_id !== current.branch_id)
      patch.branch_id = input.branch_id === null ? null : await usableBranch(trx, ctx.businessId, input.branch_id);
    if (input.disabled === true && !current.disabled_at) patch.disabled_at = ctx.now;
    if (input.disabled === false && current.disabled_at) patch.disabled_at = null;
    if (Object.keys(patch).length === 0) return current;

    const stopsBeingAdmin =
      current.role === 'admin' && !current.disabled_at && (patch.role !== undefined || patch.disabled_at);
    if (stopsBeingAdmin) {
      const admins = await lockEnabledAdmins(trx, ctx.businessId);
      if (admins.length <= 1 && admins.includes(id))
        throw conflict('this is the business’s last enabled admin: make another user admin first');
    }
    const user = (await updateUser(trx, ctx.businessId, id, patch))!;
    if (patch.disabled_at) await deleteUserSessions(trx, ctx.businessId, id);
    return user;
  });
}

/** DELETE: the user is disabled, not removed (the audit log names them); PUT {"disabled": false} enables them again. */
export const disableUser = (db: Database, ctx: ActorContext, id: string) => editUser(db, ctx, id, { disabled: true });

/** A new set-password link for a user (an invitation that expired, a forgotten password); older links stop working. */
export async function newPasswordLink(
  db: Database,
  ctx: ActorContext,
  id: string,
): Promise<{ user: UserInfo; link: PasswordLink }> {
  return withActor(db.kysely, ctx, async (trx) => {
    const user = await getUser(trx, ctx.businessId, id);
    if (!user) throw notFound('user');
    if (user.disabled_at) throw conflict('this user is disabled: enable them first');
    return { user, link: await newLink(trx, { businessId: ctx.businessId, userId: id }, ctx.now) };
  });
}

/** `lending users create`: a user of a business, as the command line. */
export async function createUserFor(
  db: Database,
  businessId: string,
  input: UserInput,
  ctx: (business: { businessId: string; timezone: string }) => ActorContext,
) {
  const business = await getBusiness(db, businessId);
  return createUser(db, ctx({ businessId: business.id, timezone: business.timezone }), input);
}

/** `lending operators create`: an operator of the platform and the link to set their password. */
export async function createOperator(
  db: Database,
  input: { email: string; name?: string | null },
  now: Date,
): Promise<{ operator: OperatorInfo; link: PasswordLink }> {
  const email = normalEmail(input.email);
  return db.kysely.transaction().execute(async (trx) => {
    if (await operatorByEmail(trx, email)) throw conflict(`an operator with email ${email} already exists`);
    const operator = await insertOperator(trx, { email, name: cleanName(input.name) });
    return { operator, link: await newLink(trx, { operatorId: operator.id }, now) };
  });
}
