// A business's leads (migration 016): stored from the public form, listed, converted into a client.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { Lead, LeadStatus } from '../schema.ts';
import { pageOf, type Page, type PageRequest } from './page.ts';
import { fold, foldSql } from './clients.ts';

export interface LeadInput {
  first_name: string;
  last_name: string;
  dni: string;
  phone: string | null;
  email: string | null;
  amount_requested: number | null;
  message: string | null;
}

export function insertLead(db: Executor, businessId: string, input: LeadInput): Promise<Lead> {
  return db
    .insertInto('leads')
    .values({ ...input, business_id: businessId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export interface LeadFilter {
  status?: LeadStatus;
  /** a dni or phone prefix, or a name or email fragment (case and accents folded) */
  q?: string;
}

/** Newest first. */
export function listLeads(db: Executor, businessId: string, f: LeadFilter & PageRequest): Promise<Page<Lead>> {
  let base = db.selectFrom('leads').where('business_id', '=', businessId);
  if (f.status) base = base.where('status', '=', f.status);
  const q = f.q?.trim();
  if (q) {
    const esc = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);
    const like = `%${esc(fold(q))}%`;
    base = base.where((eb) =>
      eb.or([
        eb('dni', 'like', `${esc(q)}%`),
        eb('phone', 'like', `%${esc(q)}%`),
        eb(foldSql(sql`first_name || ' ' || last_name`), 'like', like),
        eb(foldSql(sql`last_name || ' ' || first_name`), 'like', like),
        eb(foldSql(sql`coalesce(email, '')`), 'like', like),
      ]),
    );
  }
  return pageOf(base, (b) => b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), f);
}

/** The business's lead; `forUpdate` locks its row until the transaction ends (a conversion). */
export function getLead(db: Executor, businessId: string, id: string, forUpdate = false): Promise<Lead | undefined> {
  const q = db.selectFrom('leads').selectAll().where('business_id', '=', businessId).where('id', '=', id);
  return (forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** Marks a new lead converted into the client; undefined when it is not new (any more). */
export function markLeadConverted(
  db: Executor,
  businessId: string,
  id: string,
  clientId: string,
  at: Date,
): Promise<Lead | undefined> {
  return db
    .updateTable('leads')
    .set({ status: 'converted', converted_client_id: clientId, converted_at: at, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .where('status', '=', 'new')
    .returningAll()
    .executeTakeFirst();
}
