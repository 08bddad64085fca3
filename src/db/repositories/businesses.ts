import type { Kysely } from 'kysely';
import type { DB, Business } from '../schema.ts';

export async function createBusiness(db: Kysely<DB>, input: { name: string; timezone?: string }): Promise<Business> {
  return db.transaction().execute(async (trx) => {
    const b = await trx
      .insertInto('businesses')
      .values({ name: input.name, timezone: input.timezone ?? 'UTC' })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.insertInto('business_sequences').values({ business_id: b.id }).execute();
    return b;
  });
}

export function listBusinesses(db: Kysely<DB>): Promise<Business[]> {
  return db.selectFrom('businesses').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function getBusiness(db: Kysely<DB>, id: string): Promise<Business | undefined> {
  return db.selectFrom('businesses').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countBusinesses(db: Kysely<DB>): Promise<number> {
  const r = await db
    .selectFrom('businesses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
