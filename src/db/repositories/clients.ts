import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB, Client, NewClient, ClientUpdate } from '../schema.ts';
import type { Executor } from '../connection.ts';
import type { InstantBound } from '../../domain/instants.ts';
import { pageOf, pageOfParts, updatedSince, type Page, type PageRequest } from './page.ts';

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
 * Newest first; with updatedSince, only the clients changed at or after it, oldest change first
 * (updated_at, id): a range of the index clients_updated (migration 014).
 *
 * q is looked for in client_search (migration 051), which the database keeps beside clients: a DNI
 * or CUIT prefix, or a part of the folded text "first last first" chr(1) email (so "nombre
 * apellido" and "apellido nombre" are both found; chr(1), which no one types, ends the name). Without
 * updatedSince, the page's order is client_search's own (created_at, client_id: the client's
 * created_at and id) and the count reads client_search alone: docs/benchmarks.md, "The client
 * search's total".
 */
export function listClients(
  db: Kysely<DB>,
  businessId: string,
  opts: { q?: string; updatedSince?: InstantBound } & PageRequest,
): Promise<Page<Client>> {
  const q = opts.q?.trim();
  const matches = q ? searchMatches(db, businessId, q) : null;
  if (matches && !opts.updatedSince) {
    const page = matches
      .select(['client_id', 'created_at'])
      .orderBy('created_at', 'desc')
      .orderBy('client_id', 'desc')
      .limit(opts.limit)
      .offset(opts.offset)
      .as('p');
    return pageOfParts(
      db
        .selectFrom(page)
        .innerJoin('clients as c', (j) => j.on('c.business_id', '=', businessId).onRef('c.id', '=', 'p.client_id'))
        .selectAll('c')
        .orderBy('p.created_at', 'desc')
        .orderBy('p.client_id', 'desc'),
      matches.select((eb) => eb.fn.countAll().as('n')),
      opts,
    );
  }
  let base = db.selectFrom('clients').where('business_id', '=', businessId);
  if (opts.updatedSince) base = base.where(updatedSince(opts.updatedSince));
  if (matches) base = base.where('id', 'in', matches.select('client_id'));
  return pageOf(
    base,
    (b) =>
      opts.updatedSince
        ? b.selectAll().orderBy('updated_at', 'asc').orderBy('id', 'asc')
        : b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'),
    opts,
  );
}

/** The clients of the business that q finds, as rows of client_search (docs/api.md, "List clients"). */
function searchMatches(db: Kysely<DB>, businessId: string, q: string) {
  const esc = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);
  // a CUIT prefix, dashes or not: "20-1234" finds 20123456786
  const cuit = /^[\d-]*\d[\d-]*$/.test(q) ? q.replace(/-/g, '') : null;
  return db
    .selectFrom('client_search')
    .where('business_id', '=', businessId)
    .where((eb) =>
      eb.or([
        eb('dni', 'like', `${esc(q)}%`),
        ...(cuit ? [eb('cuit', 'like', `${cuit}%`)] : []),
        eb('folded', 'like', `%${esc(fold(q))}%`),
      ]),
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
