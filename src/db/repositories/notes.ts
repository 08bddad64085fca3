// Contact notes (migration 039): each contact with a client and its outcome, scoped to one business.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { ClientNote, NoteChannel } from '../schema.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';

export interface NewNote {
  client_id: string;
  credit_id: string | null;
  channel: NoteChannel;
  outcome: string;
  created_by: string;
}

export function insertNote(db: Executor, businessId: string, input: NewNote): Promise<ClientNote> {
  return db
    .insertInto('client_notes')
    .values({ ...input, business_id: businessId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A client's notes, newest first. */
export function notesOfClient(
  db: Executor,
  businessId: string,
  clientId: string,
  page: PageRequest,
): Promise<Page<ClientNote>> {
  const base = db.selectFrom('client_notes').where('business_id', '=', businessId).where('client_id', '=', clientId);
  return pageOf(base, (b) => b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), page);
}

/** These notes (the worklist's last notes). */
export function notesByIds(db: Executor, businessId: string, ids: string[]): Promise<ClientNote[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('client_notes')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', sql<string>`ANY(${sql.val(ids)}::uuid[])`)
    .execute();
}
