// Credit applications (migration 037), scoped to one business.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { ApplicationCheck, ApplicationGuarantor, ApplicationRow, ApplicationStatus } from '../schema.ts';
import { type Page, type PageRequest, pageOf } from './page.ts';

export type { ApplicationRow };

export interface NewApplication {
  client_id: string;
  credit_config_id: string;
  amount: string;
  branch_id: string | null;
  start_date: string | null;
  guarantors: ApplicationGuarantor[];
  note: string | null;
  checks: ApplicationCheck[];
  submitted_by: string;
}

export function insertApplication(db: Executor, businessId: string, a: NewApplication): Promise<ApplicationRow> {
  return db
    .insertInto('applications')
    .values({
      ...a,
      business_id: businessId,
      guarantors: JSON.stringify(a.guarantors),
      checks: JSON.stringify(a.checks),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** `lock`: FOR UPDATE until the transaction ends: every decision and the disbursement take it first. */
export function getApplication(
  db: Executor,
  businessId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ApplicationRow | undefined> {
  return db
    .selectFrom('applications')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .$if(opts.lock === true, (q) => q.forUpdate())
    .executeTakeFirst();
}

export interface ApplicationPatch {
  status: ApplicationStatus;
  decided_by?: string;
  decision_note?: string | null;
  decided_at?: Date;
  credit_id?: string;
  disbursement_method?: string;
  disbursement_reference?: string | null;
  disbursed_at?: Date;
}

export function updateApplication(
  db: Executor,
  businessId: string,
  id: string,
  patch: ApplicationPatch,
): Promise<ApplicationRow> {
  return db
    .updateTable('applications')
    .set({ ...patch, updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Newest first; status and branch narrow them. */
export function listApplications(
  db: Executor,
  businessId: string,
  q: { status?: ApplicationStatus; branchId?: string; clientId?: string } & PageRequest,
): Promise<Page<ApplicationRow>> {
  let base = db.selectFrom('applications').where('business_id', '=', businessId);
  if (q.status) base = base.where('status', '=', q.status);
  if (q.branchId) base = base.where('branch_id', '=', q.branchId);
  if (q.clientId) base = base.where('client_id', '=', q.clientId);
  return pageOf(base, (b) => b.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), q);
}
