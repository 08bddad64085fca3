// Leads (docs/leads.md): someone asks a business for a credit through its public form, without a
// key; the business lists its leads and converts one into a client.
//
// - The form names the business by its slug (404 for a slug no business has).
// - A filled `website` (a field people never see, so only robots fill it) is answered like any
//   lead, with an id of the same kind, and nothing is stored: the robot learns nothing.
// - A lead needs a phone or an email: there is no other way to answer it.
// - Converting creates the client with the client use case's own rules (src/services/clients.ts,
//   addClient) in the transaction that marks the lead converted: both happen or neither. A lead
//   converted already is a 409; so is a lead whose dni (or the cuit given) a client has already:
//   the existing client is named and the lead stays new (docs/leads.md says why it is not linked).
import { randomUUID } from 'node:crypto';
import { withActor } from '../db/connection.ts';
import type { Client, Lead, LeadStatus } from '../db/schema.ts';
import { findClientByDni } from '../db/repositories/clients.ts';
import {
  getLead as leadRow,
  insertLead,
  listLeads as leadPage,
  markLeadConverted,
  type LeadInput,
} from '../db/repositories/leads.ts';
import type { Page, PageRequest } from '../db/repositories/page.ts';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import { cleanText } from '../domain/text.ts';
import { actorContext, type ActorContext, type Clock, type Database } from './context.ts';
import { businessBySlug } from './businesses.ts';
import { addClient, type ClientInput } from './clients.ts';

/** The audit actor of what the public form writes. */
export const LEAD_ACTOR = 'lead';

export interface LeadSubmission {
  first_name: string;
  last_name: string;
  dni: string;
  phone?: string | null;
  email?: string | null;
  amount_requested?: number | null;
  message?: string | null;
  /** the hidden field: filled, the lead is dropped */
  website?: string | null;
}

/**
 * A lead sent through the public form of the business the slug names. `stored` is false when the
 * hidden field was filled: the id then names nothing, and the caller answers it all the same.
 */
export async function submitLead(
  db: Database,
  clock: Clock,
  slug: string,
  input: LeadSubmission,
): Promise<{ id: string; stored: boolean }> {
  const business = await businessBySlug(db, slug);
  const { website, ...rest } = input;
  const fields = cleanText({
    first_name: rest.first_name,
    last_name: rest.last_name,
    dni: rest.dni,
    phone: rest.phone ?? null,
    email: rest.email ?? null,
    amount_requested: rest.amount_requested ?? null,
    message: rest.message ?? null,
  }) as LeadInput;
  if (!fields.first_name) throw invalid('/first_name', 'must not be blank');
  if (!fields.last_name) throw invalid('/last_name', 'must not be blank');
  if (!fields.dni) throw invalid('/dni', 'must not be blank');
  if (!fields.phone && !fields.email) throw invalid('/phone', 'a phone or an email is needed to answer the request');
  // the hidden field, checked last: a bot is answered exactly as a person sending the same fields
  if (website && website.trim() !== '') return { id: randomUUID(), stored: false };
  const ctx = actorContext({ businessId: business.id, timezone: business.timezone }, LEAD_ACTOR, clock);
  const lead = await withActor(db.kysely, ctx, (trx) => insertLead(trx, business.id, fields));
  return { id: lead.id, stored: true };
}

/** Newest first; status and q (a dni or phone prefix or fragment, a name or email fragment) narrow the list. */
export function listLeads(
  db: Database,
  ctx: ActorContext,
  query: { status?: LeadStatus; q?: string } & PageRequest,
): Promise<Page<Lead>> {
  return leadPage(db.kysely, ctx.businessId, query);
}

export async function getLead(db: Database, ctx: ActorContext, id: string): Promise<Lead> {
  const lead = await leadRow(db.kysely, ctx.businessId, id);
  if (!lead) throw notFound('lead');
  return lead;
}

/** Fields of the client the caller gives or corrects; the lead's name, dni, phone and email fill the rest. */
export type ConversionInput = Partial<ClientInput>;

/**
 * Creates the client from the lead and marks the lead converted, in one transaction. 404 for no
 * such lead of the business; 409 when it was converted already or a client has its dni or cuit.
 */
export function convertLead(db: Database, ctx: ActorContext, id: string, given: ConversionInput = {}): Promise<Client> {
  return withActor(db.kysely, ctx, async (trx) => {
    // locked: a second conversion at the same moment waits, then finds it converted
    const lead = await leadRow(trx, ctx.businessId, id, true);
    if (!lead) throw notFound('lead');
    if (lead.status === 'converted')
      throw conflict(`this lead was converted already, into client ${lead.converted_client_id}`);
    const input: ClientInput = {
      first_name: lead.first_name,
      last_name: lead.last_name,
      dni: lead.dni,
      phone: lead.phone,
      email: lead.email,
      ...given,
    };
    const dni = input.dni.trim();
    const existing = await findClientByDni(trx, ctx.businessId, dni);
    if (existing)
      throw conflict(
        `a client with dni ${dni} already exists (client ${existing.id}); the lead stays new: open that client instead`,
      );
    const client = await addClient(trx, ctx, input);
    if (!(await markLeadConverted(trx, ctx.businessId, lead.id, client.id, ctx.now)))
      throw conflict('this lead was converted already');
    return client;
  });
}
