// Clients: a dni and a cuit are unique within the business (409), text is stored trimmed, a cuit
// without dashes, and the client's detail (GET /api/clients/{id}) gathers its credits, installments, ledger
// entries and files.
import { withActor } from '../db/connection.ts';
import type { Transaction } from 'kysely';
import type { Client, DB } from '../db/schema.ts';
import {
  findClientByCuit,
  findClientByDni,
  getClient,
  insertClient,
  listClients as clientPage,
  updateClient,
  type ClientInput,
} from '../db/repositories/clients.ts';
import { clientCreditsDocument, clientDocument } from '../db/repositories/documents.ts';
import type { Page, PageRequest } from '../db/repositories/page.ts';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import { parseCuit } from '../domain/cuit.ts';
import { instantBound } from '../domain/instants.ts';
import { cleanText } from '../domain/text.ts';
import { readsOf, type ActorContext, type Database, type JsonText } from './context.ts';
import type { Executor } from '../db/connection.ts';
import { emit, emitEdit } from './events.ts';
import { presentClient } from './present.ts';

export type { ClientInput };
export type ClientPatch = Partial<ClientInput>;

const dniTaken = (dni: string) => conflict(`a client with dni ${dni} already exists`);
const cuitTaken = (cuit: string) => conflict(`a client with cuit ${cuit} already exists`);

/**
 * Text trimmed, a cuit as stored (11 digits, no dashes). The HTTP schema has refused a bad cuit
 * already (400 naming /cuit); other callers (the command line, the demo) are checked here.
 */
function clean<T extends { cuit?: string | null }>(input: T): T {
  const fields = cleanText(input);
  if (fields.cuit === undefined || fields.cuit === null) return fields;
  const cuit = parseCuit(fields.cuit);
  if (!cuit) throw invalid('/cuit', 'must be a CUIT/CUIL: 11 digits ending in the right mod-11 check digit');
  return { ...fields, cuit };
}

/**
 * Newest first; q matches a dni or cuit prefix or a name or email fragment (case and accents
 * folded). With updatedSince (RFC 3339), only the clients changed at or after it, oldest change first.
 */
export async function listClients(
  db: Database,
  ctx: ActorContext,
  query: { q?: string; updatedSince?: string } & PageRequest,
): Promise<Page<Client>> {
  const { updatedSince, ...rest } = query;
  const bound = updatedSince === undefined ? {} : { updatedSince: instantBound('/updated_since', updatedSince) };
  return clientPage(await readsOf(db, ctx), ctx.businessId, {
    ...rest,
    ...bound,
  });
}

export function createClient(db: Database, ctx: ActorContext, input: ClientInput): Promise<Client> {
  const fields = clean(input);
  return withActor(db.kysely, ctx, (trx) => addClient(trx, ctx, fields));
}

/**
 * The creation of a client inside the caller's transaction (createClient's own, or a lead's
 * conversion, src/services/leads.ts): the same cleaning, the same 409s, the same row, the same
 * client.created event.
 */
export async function addClient(trx: Transaction<DB>, ctx: ActorContext, input: ClientInput): Promise<Client> {
  const fields = clean(input);
  if (await findClientByDni(trx, ctx.businessId, fields.dni)) throw dniTaken(fields.dni);
  if (fields.cuit && (await findClientByCuit(trx, ctx.businessId, fields.cuit))) throw cuitTaken(fields.cuit);
  const client = await insertClient(trx, ctx.businessId, fields);
  emit(trx, ctx.businessId, 'client.created', presentClient(client));
  return client;
}

/** Only the fields given change; nothing given changes nothing (no audit entry either). */
export function editClient(db: Database, ctx: ActorContext, id: string, input: ClientPatch): Promise<Client> {
  const patch = clean(input);
  return withActor(db.kysely, ctx, async (trx) => {
    const current = await getClient(trx, ctx.businessId, id, { lock: true });
    if (!current) throw notFound('client');
    if (Object.keys(patch).length === 0) return current;
    if (patch.dni && (await findClientByDni(trx, ctx.businessId, patch.dni, current.id))) throw dniTaken(patch.dni);
    if (patch.cuit && (await findClientByCuit(trx, ctx.businessId, patch.cuit, current.id)))
      throw cuitTaken(patch.cuit);
    const updated = await updateClient(trx, ctx.businessId, current.id, patch);
    if (!updated) throw notFound('client');
    emitEdit(trx, ctx.businessId, 'client.updated', presentClient(current), presentClient(updated));
    return updated;
  });
}

/** The business's client, or 404: every use case that names a client starts here. */
export async function requireClient(db: Executor, businessId: string, id: string): Promise<Client> {
  const client = await getClient(db, businessId, id);
  if (!client) throw notFound('client');
  return client;
}

/**
 * The client with everything it owns (GET /api/clients/{id}), delinquency and balances as of the business's
 * today: JSON text the database builds in one prepared statement (src/db/repositories/documents.ts),
 * sent as it is.
 */
export async function clientDetail(db: Database, ctx: ActorContext, id: string): Promise<JsonText> {
  const body = await clientDocument(db, ctx.businessId, id, ctx.today, ctx.timezone);
  if (body === undefined) throw notFound('client');
  return body as JsonText;
}

/** The client's credits (GET /api/clients/{clientId}/credits), oldest first, as JSON text built by the database. */
export async function clientCredits(db: Database, ctx: ActorContext, id: string): Promise<JsonText> {
  const body = await clientCreditsDocument(db, ctx.businessId, id);
  if (body === undefined) throw notFound('client');
  return body as JsonText;
}
