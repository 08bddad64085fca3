// API keys: created for a business (the secret is returned once, only its hash is stored), listed
// without secrets, revoked at once; and the authentication of a presented key.
import {
  createApiKey,
  findActiveKey,
  listApiKeys,
  revokeApiKey,
  type ApiKeyInfo,
  type KeyLookup,
  type Scope,
} from '../db/repositories/apiKeys.ts';
import { AppError } from '../domain/errors.ts';
import type { Database } from './context.ts';
import { getBusiness } from './businesses.ts';

export type { ApiKeyInfo, KeyLookup, Scope };

/** Longer than any key this service issues: refused without a lookup. */
const MAX_KEY_LENGTH = 200;

export async function createKey(db: Database, input: { businessId: string; scope: Scope; name?: string | null }) {
  await getBusiness(db, input.businessId);
  return createApiKey(db.kysely, input);
}

export async function listKeys(db: Database, businessId: string): Promise<ApiKeyInfo[]> {
  await getBusiness(db, businessId);
  return listApiKeys(db.kysely, businessId);
}

/** Refused from the next request on; revoking twice keeps the first time. */
export async function revokeKey(db: Database, id: string): Promise<ApiKeyInfo> {
  const key = await revokeApiKey(db.kysely, id);
  if (!key) throw new AppError('not_found', `no key ${id}`);
  return key;
}

/** The active key presented with a request, with its business; an unknown or revoked key is 401. */
export async function authenticate(db: Database, presentedKey: string): Promise<KeyLookup> {
  if (presentedKey.length > MAX_KEY_LENGTH) throw new AppError('unauthorized', 'the API key is not valid');
  const found = await findActiveKey(db.kysely, presentedKey);
  if (!found) throw new AppError('unauthorized', 'the API key is not valid or has been revoked');
  return found;
}
