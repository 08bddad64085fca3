// Operators of the platform (migration 015): no business. The password hash is read by the sign-in only.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { OperatorRow } from '../schema.ts';

export type OperatorInfo = Omit<OperatorRow, 'password_hash'>;

const COLUMNS = [
  'id',
  'email',
  'name',
  'password_set_at',
  'created_at',
  'updated_at',
  'disabled_at',
  'last_login_at',
] as const;

export function insertOperator(db: Executor, o: { email: string; name: string | null }): Promise<OperatorInfo> {
  return db
    .insertInto('operators')
    .values({ email: o.email, name: o.name })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function getOperator(db: Executor, id: string): Promise<OperatorInfo | undefined> {
  return db.selectFrom('operators').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

export function operatorByEmail(db: Executor, email: string): Promise<OperatorInfo | undefined> {
  return db.selectFrom('operators').select(COLUMNS).where(sql<string>`lower(email)`, '=', email).executeTakeFirst();
}

/** The enabled operator with this email and a password, if any (the sign-in). */
export function operatorCandidate(db: Executor, email: string) {
  return db
    .selectFrom('operators')
    .select([...COLUMNS, 'password_hash'])
    .where(sql<string>`lower(email)`, '=', email)
    .where('disabled_at', 'is', null)
    .where('password_hash', 'is not', null)
    .executeTakeFirst() as Promise<(OperatorInfo & { password_hash: string }) | undefined>;
}

export function setOperatorPassword(db: Executor, id: string, hash: string, at: Date): Promise<OperatorInfo> {
  return db
    .updateTable('operators')
    .set({ password_hash: hash, password_set_at: at, updated_at: sql`now()` })
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function recordOperatorLogin(db: Executor, id: string, at: Date): Promise<void> {
  await db.updateTable('operators').set({ last_login_at: at }).where('id', '=', id).execute();
}
