// The users of a business (migration 015). The password hash is read by one function only
// (loginCandidates), for the sign-in; every other read leaves it out.
import { sql } from 'kysely';
import type { Role } from '../../domain/access.ts';
import type { Executor } from '../connection.ts';
import type { UserRow } from '../schema.ts';

/** A user as the service shows it: everything but the password hash. */
export type UserInfo = Omit<UserRow, 'password_hash'>;

const COLUMNS = [
  'business_id',
  'id',
  'email',
  'name',
  'role',
  'branch_id',
  'password_set_at',
  'created_at',
  'updated_at',
  'disabled_at',
  'last_login_at',
] as const;

export interface NewUser {
  email: string;
  name: string | null;
  role: Role;
  branchId: string | null;
}

export function insertUser(db: Executor, businessId: string, u: NewUser): Promise<UserInfo> {
  return db
    .insertInto('users')
    .values({ business_id: businessId, email: u.email, name: u.name, role: u.role, branch_id: u.branchId })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Whether the business already has a user with this (lower-case) email. */
export async function emailTaken(db: Executor, businessId: string, email: string, except?: string): Promise<boolean> {
  let q = db
    .selectFrom('users')
    .select('id')
    .where('business_id', '=', businessId)
    .where(sql<string>`lower(email)`, '=', email);
  if (except) q = q.where('id', '<>', except);
  return (await q.executeTakeFirst()) !== undefined;
}

export function getUser(db: Executor, businessId: string, id: string): Promise<UserInfo | undefined> {
  return db
    .selectFrom('users')
    .select(COLUMNS)
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The user's password hash, to check their current password again (null: none set yet). */
export async function passwordHashOf(db: Executor, businessId: string, id: string): Promise<string | null> {
  const r = await db
    .selectFrom('users')
    .select('password_hash')
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
  return r?.password_hash ?? null;
}

/** A user of any business by id (an operator names the user to impersonate). */
export function findUser(db: Executor, id: string): Promise<UserInfo | undefined> {
  return db.selectFrom('users').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export async function listUsers(
  db: Executor,
  businessId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: UserInfo[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('users')
      .select(COLUMNS)
      .where('business_id', '=', businessId)
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', businessId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export interface UserPatch {
  email?: string;
  name?: string | null;
  role?: Role;
  branch_id?: string | null;
  disabled_at?: Date | null;
}

export function updateUser(
  db: Executor,
  businessId: string,
  id: string,
  patch: UserPatch,
): Promise<UserInfo | undefined> {
  return db
    .updateTable('users')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/**
 * The enabled admins of a business, locked until the transaction ends: two requests that would
 * each remove one of the last two admins take turns, and the second sees the first's change.
 */
export async function lockEnabledAdmins(db: Executor, businessId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('users')
    .select('id')
    .where('business_id', '=', businessId)
    .where('role', '=', 'admin')
    .where('disabled_at', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
  return rows.map((r) => r.id);
}

export function setUserPassword(db: Executor, businessId: string, id: string, hash: string, at: Date) {
  return db
    .updateTable('users')
    .set({ password_hash: hash, password_set_at: at, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function recordUserLogin(db: Executor, businessId: string, id: string, at: Date): Promise<void> {
  await db
    .updateTable('users')
    .set({ last_login_at: at })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .execute();
}

/** The enabled users with this email and a password, in every business: who may be signing in. */
export function loginCandidates(db: Executor, email: string) {
  return db
    .selectFrom('users')
    .select([...COLUMNS.map((c) => `users.${c}` as const), 'users.password_hash'])
    .where(sql<string>`lower(email)`, '=', email)
    .where('disabled_at', 'is', null)
    .where('password_hash', 'is not', null)
    .orderBy('created_at')
    .execute() as Promise<(UserInfo & { password_hash: string })[]>;
}
