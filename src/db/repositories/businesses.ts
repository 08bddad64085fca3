import type { Kysely } from 'kysely';
import type { DB, Business } from '../schema.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';

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

/** One page of the businesses, oldest first (the operators' list); q: a part of the name or the slug, any case. */
export function pageBusinesses(db: Kysely<DB>, opts: { q?: string } & PageRequest): Promise<Page<Business>> {
  let base = db.selectFrom('businesses');
  const q = opts.q?.trim();
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) => eb.or([eb('name', 'ilike', like), eb('slug', 'ilike', like)]));
  }
  return pageOf(base, (b) => b.selectAll().orderBy('created_at').orderBy('id'), opts);
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
