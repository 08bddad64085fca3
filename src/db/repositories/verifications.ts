// Client verifications (migration 017), scoped to one business: written once, read newest first.
import type { Executor } from '../connection.ts';
import type { VerificationRow } from '../schema.ts';
import { type Page, type PageRequest, pageOf } from './page.ts';

export type { VerificationRow };

export interface NewVerification {
  clientId: string;
  source: VerificationRow['source'];
  cuit: string;
  status: VerificationRow['status'];
  summary: unknown;
  raw: unknown;
  createdBy: string;
  createdAt: Date;
}

export function insertVerification(db: Executor, businessId: string, v: NewVerification): Promise<VerificationRow> {
  return db
    .insertInto('verifications')
    .values({
      business_id: businessId,
      client_id: v.clientId,
      source: v.source,
      cuit: v.cuit,
      status: v.status,
      summary: v.summary === null ? null : JSON.stringify(v.summary),
      raw: JSON.stringify(v.raw),
      created_by: v.createdBy,
      created_at: v.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The client's newest verification of this source and CUIT made after `since`, if any. */
export function freshVerification(
  db: Executor,
  businessId: string,
  q: { clientId: string; source: VerificationRow['source']; cuit: string; since: Date },
): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('source', '=', q.source)
    .where('cuit', '=', q.cuit)
    .where('created_at', '>', q.since)
    .where('client_id', '=', q.clientId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A client's verifications, newest first; source narrows them. */
export function listVerifications(
  db: Executor,
  businessId: string,
  clientId: string,
  q: { source?: VerificationRow['source'] } & PageRequest,
): Promise<Page<VerificationRow>> {
  let base = db.selectFrom('verifications').where('business_id', '=', businessId).where('client_id', '=', clientId);
  if (q.source) base = base.where('source', '=', q.source);
  return pageOf(base, (b) => b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), q);
}

/** The client's newest verification of this source made after `since`, if any (any CUIT: the caller compares). */
export function latestVerification(
  db: Executor,
  businessId: string,
  q: { clientId: string; source: VerificationRow['source']; since: Date },
): Promise<VerificationRow | undefined> {
  return db
    .selectFrom('verifications')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('client_id', '=', q.clientId)
    .where('source', '=', q.source)
    .where('created_at', '>', q.since)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
