// Client file rows (metadata; the bytes are in the FileStorage under storage_key), scoped to one
// business.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { ClientFile } from '../schema.ts';

export interface NewFileRow {
  business_id: string;
  id: string;
  client_id: string;
  file_name: string;
  file_type: string;
  file_size: number;
  storage_key: string;
  upload_session_id: string | null;
  created_by: string;
}

/** A client's files, oldest first. */
export function filesOfClient(db: Executor, businessId: string, clientId: string): Promise<ClientFile[]> {
  return db
    .selectFrom('client_files')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Which of the names are taken among the client's files. */
export async function takenFileNames(
  db: Executor,
  businessId: string,
  clientId: string,
  names: string[],
): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db
    .selectFrom('client_files')
    .select('file_name')
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .where('file_name', 'in', names)
    .execute();
  return new Set(rows.map((r) => r.file_name));
}

/**
 * Inserts the row unless its name is taken (the unique key decides, also against a concurrent
 * insert): undefined then, and the transaction stays usable for another name.
 */
export function insertFileIfNameFree(db: Executor, row: NewFileRow): Promise<ClientFile | undefined> {
  return db
    .insertInto('client_files')
    .values(row)
    .onConflict((oc) => oc.columns(['business_id', 'client_id', 'file_name']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

export function getFileByName(
  db: Executor,
  businessId: string,
  clientId: string,
  fileName: string,
): Promise<ClientFile | undefined> {
  return db
    .selectFrom('client_files')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .where('file_name', '=', fileName)
    .executeTakeFirst();
}

export async function fileExists(db: Executor, businessId: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('client_files')
    .select('id')
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the row and returns it (undefined when there was none). */
export function deleteFile(
  db: Executor,
  businessId: string,
  clientId: string,
  id: string,
): Promise<ClientFile | undefined> {
  return db
    .deleteFrom('client_files')
    .where('business_id', '=', businessId)
    .where('client_id', '=', clientId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Of the (business id, file id) pairs, the storage keys that rows still point at. */
export async function liveStorageKeys(
  db: Executor,
  pairs: Array<{ businessId: string; id: string }>,
): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const tuples = sql.join(pairs.map((p) => sql`(${p.businessId}::uuid, ${p.id}::uuid)`));
  const rows = await db
    .selectFrom('client_files')
    .select('storage_key')
    .where(sql<boolean>`(business_id, id) in (${tuples})`)
    .execute();
  return new Set(rows.map((r) => r.storage_key));
}
