import type { Kysely } from 'kysely';
import type { DB, Business } from '../schema.ts';

/** Without a slug, the database makes one from the name (migration 016). */
export async function createBusiness(
  db: Kysely<DB>,
  input: { name: string; timezone?: string; slug?: string | null },
): Promise<Business> {
  return db.transaction().execute(async (trx) => {
    const b = await trx
      .insertInto('businesses')
      .values({ name: input.name, timezone: input.timezone ?? 'UTC', ...(input.slug ? { slug: input.slug } : {}) })
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

export function getBusinessBySlug(db: Kysely<DB>, slug: string): Promise<Business | undefined> {
  return db.selectFrom('businesses').selectAll().where('slug', '=', slug).executeTakeFirst();
}

export async function countBusinesses(db: Kysely<DB>): Promise<number> {
  const r = await db
    .selectFrom('businesses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
