// Businesses (tenants): a name of 1 to 200 characters, an IANA time zone (the business's "today")
// and a slug, its name in public addresses (given, or made from the name by the database).
import type { Business } from '../db/schema.ts';
import {
  createBusiness as insertBusiness,
  getBusiness as businessRow,
  getBusinessBySlug,
  listBusinesses as businessRows,
  pageBusinesses,
} from '../db/repositories/businesses.ts';
import { isValidTimeZone } from '../domain/index.ts';
import { SLUG_MAX, SLUG_PATTERN } from '../domain/records.ts';
import { AppError, conflict, invalid } from '../domain/errors.ts';
import type { Database } from './context.ts';
import type { Page, PageRequest } from '../db/repositories/page.ts';

export interface BusinessInput {
  name: string;
  timezone?: string;
  /** omitted: made from the name, unique (migration 016) */
  slug?: string;
}

/** The business as it will be stored, or the rule it breaks; pure, so a caller may check before opening the database. */
export function checkBusiness(input: BusinessInput): Required<Omit<BusinessInput, 'slug'>> & { slug?: string } {
  const name = input.name.trim();
  const timezone = input.timezone ?? 'UTC';
  if (!name || name.length > 200) throw invalid('/name', 'must be 1 to 200 characters');
  if (!isValidTimeZone(timezone))
    throw invalid('/timezone', `${timezone} is not an IANA time zone (e.g. America/Argentina/Buenos_Aires)`);
  if (input.slug === undefined) return { name, timezone };
  const slug = input.slug.trim();
  if (slug.length > SLUG_MAX || !new RegExp(SLUG_PATTERN).test(slug))
    throw invalid(
      '/slug',
      `${slug || '""'} is not a slug: lowercase letters and digits in words joined by single hyphens (e.g. creditos-del-sur), at most ${SLUG_MAX} characters`,
    );
  return { name, timezone, slug };
}

export async function createBusiness(db: Database, input: BusinessInput): Promise<Business> {
  const fields = checkBusiness(input);
  if (fields.slug && (await getBusinessBySlug(db.kysely, fields.slug)))
    throw conflict(`the slug ${fields.slug} belongs to another business; choose another`);
  return insertBusiness(db.kysely, fields);
}

export function listBusinesses(db: Database): Promise<Business[]> {
  return businessRows(db.kysely);
}

/** A page of the businesses, oldest first, optionally those whose name or slug holds q: the operators' list over HTTP. */
export function listBusinessesPage(db: Database, opts: { q?: string } & PageRequest): Promise<Page<Business>> {
  return pageBusinesses(db.kysely, opts);
}

export async function getBusiness(db: Database, id: string): Promise<Business> {
  const business = await businessRow(db.kysely, id);
  if (!business) throw new AppError('not_found', `no business ${id}`);
  return business;
}

/** The business a public address names (404 for a slug no business has). */
export async function businessBySlug(db: Database, slug: string): Promise<Business> {
  const business = await getBusinessBySlug(db.kysely, slug);
  if (!business) throw new AppError('not_found', 'no business at this address');
  return business;
}
