import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB, Client, NewClient, ClientUpdate } from '../schema.ts';
import type { Executor } from '../connection.ts';
import type { InstantBound } from '../../domain/instants.ts';
import { pageOf, updatedSince, type Page, type PageRequest } from './page.ts';

export type ClientInput = Omit<NewClient, 'business_id' | 'id' | 'created_at' | 'updated_at'>;

// Search folds case and the accents of Spanish names: "gomez" finds "Gómez".
const ACCENTED = 'áàâäéèêëíìîïóòôöúùûüñç';
const PLAIN = 'aaaaeeeeiiiioooouuuunc';
export const fold = (v: string) =>
  [...v.toLowerCase()]
    .map((ch) => {
      const i = ACCENTED.indexOf(ch);
      return i >= 0 ? PLAIN[i] : ch;
    })
    .join('');
export const foldSql = (expr: RawBuilder<string>) => sql<string>`translate(lower(${expr}), ${ACCENTED}, ${PLAIN})`;

/**
 * What a part of a name or email is searched in, folded: "first last first", then chr(1) (which no
 * one types) and the email; so "nombre apellido" and "apellido nombre" are both found. The very
 * expression of the trigram index clients_search_trgm (migration 043), literals and all: change
 * both or neither.
 */
export const CLIENT_SEARCH_TEXT = sql<string>`translate(lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(first_name, '') || chr(1) || coalesce(email, '')), ${sql.lit(ACCENTED)}, ${sql.lit(PLAIN)})`;

/**
 * Newest first; with updatedSince, only the clients changed at or after it, oldest change first
 * (updated_at, id): a range of the index clients_updated (migration 014).
 */
export function listClients(
  db: Kysely<DB>,
  businessId: string,
  opts: { q?: string; updatedSince?: InstantBound } & PageRequest,
): Promise<Page<Client>> {
  let base = db.selectFrom('clients').where('business_id', '=', businessId);
  if (opts.updatedSince) base = base.where(updatedSince(opts.updatedSince));
  const q = opts.q?.trim();
  if (q) {
    const esc = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);
    const like = `%${esc(fold(q))}%`;
    // a CUIT prefix, dashes or not: "20-1234" finds 20123456786
    const cuit = /^[\d-]*\d[\d-]*$/.test(q) ? q.replace(/-/g, '') : null;
    base = base.where((eb) =>
      eb.or([
        eb('dni', 'like', `${esc(q)}%`),
        ...(cuit ? [eb('cuit', 'like', `${cuit}%`)] : []),
        eb(CLIENT_SEARCH_TEXT, 'like', like),
      ]),
    );
  }
  return pageOf(
    base,
    (b) =>
      opts.updatedSince
        ? b.selectAll().orderBy('updated_at', 'asc').orderBy('id', 'asc')
        : b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
    opts,
  );
}

/** `lock`: locked as the UPDATE that follows would lock it, until the transaction ends (an edit reads what it changes). */
export function getClient(
  db: Executor,
  businessId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<Client | undefined> {
  return db
    .selectFrom('clients')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .$if(opts.lock === true, (q) => q.forNoKeyUpdate())
    .executeTakeFirst();
}

export function findClientByDni(db: Executor, businessId: string, dni: string, exceptId?: string) {
  let q = db.selectFrom('clients').select('id').where('business_id', '=', businessId).where('dni', '=', dni);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return q.executeTakeFirst();
}

export function findClientByCuit(db: Executor, businessId: string, cuit: string, exceptId?: string) {
  let q = db.selectFrom('clients').select('id').where('business_id', '=', businessId).where('cuit', '=', cuit);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return q.executeTakeFirst();
}

export function insertClient(db: Executor, businessId: string, input: ClientInput): Promise<Client> {
  return db
    .insertInto('clients')
    .values({ ...input, business_id: businessId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateClient(
  db: Executor,
  businessId: string,
  id: string,
  patch: ClientUpdate,
): Promise<Client | undefined> {
  return db
    .updateTable('clients')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
