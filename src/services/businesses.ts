// Businesses (tenants): a name of 1 to 200 characters and an IANA time zone, the business's "today".
import type { Business } from '../db/schema.ts';
import {
  createBusiness as insertBusiness,
  getBusiness as businessRow,
  listBusinesses as businessRows,
} from '../db/repositories/businesses.ts';
import { isValidTimeZone } from '../domain/index.ts';
import { AppError, invalid } from '../domain/errors.ts';
import type { Database } from './context.ts';

export interface BusinessInput {
  name: string;
  timezone?: string;
}

/** The business as it will be stored, or the rule it breaks; pure, so a caller may check before opening the database. */
export function checkBusiness(input: BusinessInput): Required<BusinessInput> {
  const name = input.name.trim();
  const timezone = input.timezone ?? 'UTC';
  if (!name || name.length > 200) throw invalid('/name', 'must be 1 to 200 characters');
  if (!isValidTimeZone(timezone))
    throw invalid('/timezone', `${timezone} is not an IANA time zone (e.g. America/Argentina/Buenos_Aires)`);
  return { name, timezone };
}

export function createBusiness(db: Database, input: BusinessInput): Promise<Business> {
  return insertBusiness(db.kysely, checkBusiness(input));
}

export function listBusinesses(db: Database): Promise<Business[]> {
  return businessRows(db.kysely);
}

export async function getBusiness(db: Database, id: string): Promise<Business> {
  const business = await businessRow(db.kysely, id);
  if (!business) throw new AppError('not_found', `no business ${id}`);
  return business;
}
