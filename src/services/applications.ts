// Credit applications and their approval (docs/applications.md): submitted with the checks of the
// plan's policy judged from the client's latest verifications, decided by someone other than the
// submitter (employees up to approval.employee_limit, admins and full keys any amount), and an
// approved one disbursed once into a credit with its terms. Each step is one transaction that
// locks the application first, so two deciders, or two disbursements, racing on one application
// are served one after the other and the second finds it decided (409).
import { withActor } from '../db/connection.ts';
import {
  type ApplicationRow,
  getApplication,
  insertApplication,
  listApplications as applicationPage,
  updateApplication,
} from '../db/repositories/applications.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getCreditConfig } from '../db/repositories/creditConfigs.ts';
import { latestVerification } from '../db/repositories/verifications.ts';
import type { PageRequest } from '../db/repositories/page.ts';
import type { Transaction } from 'kysely';
import type { ApplicationStatus, DB } from '../db/schema.ts';
import type { Role } from '../domain/access.ts';
import { type SeenVerification, approvalLimitProblem, policyChecks } from '../domain/applications.ts';
import { AppError, conflict, notFound, unprocessable } from '../domain/errors.ts';
import { toMoneyString } from '../domain/index.ts';
import { Application } from '../domain/records.ts';
import { actingBranch, usableBranch } from './branches.ts';
import type { ActorContext, Database } from './context.ts';
import { emit } from './events.ts';
import {
  addGuarantorsIn,
  checkGuarantors,
  type Guarantor,
  type GuarantorRole,
  presentGuarantor,
} from './guarantors.ts';
import { holidaySet } from './holidays.ts';
import { createCreditIn } from './lending/grant.ts';
import { positiveAmount } from './lending/engine/book.ts';
import { type CreditDetailRows, recordBuilder } from './present.ts';
import { approvalSettings } from './settings.ts';

const application = recordBuilder(Application);
export const presentApplication = (a: ApplicationRow) => application(a);
export type ApplicationRecord = ReturnType<typeof presentApplication>;

/** Who acts on an application: a user's role, or null for an API key (scope full) or the CLI. */
export type ActingRole = Role | null;

export interface SubmitInput {
  credit_config_id: string;
  amount: number;
  branch_id?: string | null;
  start_date?: string;
  guarantors?: { client_id: string; role: GuarantorRole }[];
  note?: string | null;
}

const text = (s: string | null | undefined) => {
  const t = s?.trim();
  return t ? t : null;
};

/** The client's newest verification of a source younger than the TTL, of the CUIT the client has now. */
async function seen(
  trx: Parameters<typeof latestVerification>[0],
  ctx: ActorContext,
  client: { id: string; cuit: string | null },
  source: 'central_bank' | 'tax_authority',
  ttlHours: number,
): Promise<SeenVerification | null> {
  if (!client.cuit) return null;
  const since = new Date(ctx.now.getTime() - ttlHours * 3_600_000);
  const v = await latestVerification(trx, ctx.businessId, { clientId: client.id, source, since });
  return v && v.cuit === client.cuit ? { status: v.status, summary: v.summary, created_at: v.created_at } : null;
}

export async function submitApplication(
  db: Database,
  ctx: ActorContext,
  clientId: string,
  input: SubmitInput,
  opts: { verificationTtlHours: number },
): Promise<ApplicationRecord> {
  return withActor(db.kysely, ctx, async (trx) => {
    const client = await getClient(trx, ctx.businessId, clientId);
    if (!client) throw notFound('client');
    const plan = await getCreditConfig(trx, ctx.businessId, input.credit_config_id);
    if (!plan)
      throw unprocessable(`credit_config_id ${input.credit_config_id} names no credit plan of this business`, [
        { path: '/credit_config_id', message: 'no such plan' },
      ]);
    if (!plan.is_active)
      throw unprocessable(`the credit plan "${plan.name}" is inactive`, [
        { path: '/credit_config_id', message: 'plan is inactive' },
      ]);
    const amount = positiveAmount(input.amount);
    if (input.start_date !== undefined && input.start_date < ctx.today)
      throw unprocessable(`start_date ${input.start_date} is before today (${ctx.today})`, [
        { path: '/start_date', message: 'must be today or later' },
      ]);
    const branchId =
      input.branch_id === undefined
        ? await actingBranch(trx, ctx)
        : input.branch_id === null
          ? null
          : await usableBranch(trx, ctx.businessId, input.branch_id);
    const guarantors = input.guarantors ?? [];
    await checkGuarantors(trx, ctx.businessId, client.id, guarantors, (i) => `/guarantors/${i}/client_id`);

    const ttl = opts.verificationTtlHours;
    const checks = policyChecks(plan.policy ?? {}, {
      centralBank: await seen(trx, ctx, client, 'central_bank', ttl),
      taxAuthority: await seen(trx, ctx, client, 'tax_authority', ttl),
    });
    const row = await insertApplication(trx, ctx.businessId, {
      client_id: client.id,
      credit_config_id: plan.id,
      amount: toMoneyString(amount),
      branch_id: branchId,
      start_date: input.start_date ?? null,
      guarantors: guarantors.map((g) => ({ client_id: g.client_id, role: g.role })),
      note: text(input.note),
      checks,
      submitted_by: ctx.actor,
    });
    const record = presentApplication(row);
    emit(trx, ctx.businessId, 'application.submitted', record);
    return record;
  });
}

async function lockedApplication(
  trx: Parameters<typeof getApplication>[0],
  ctx: ActorContext,
  id: string,
): Promise<ApplicationRow> {
  const a = await getApplication(trx, ctx.businessId, id, { lock: true });
  if (!a) throw notFound('application');
  return a;
}

const notSubmitted = (a: ApplicationRow, what: string) =>
  conflict(`the application is ${a.status}: only a submitted application can be ${what}`);

/** The maker-checker rule: nobody decides an application they submitted. */
function notTheSubmitter(a: ApplicationRow, ctx: ActorContext) {
  if (a.submitted_by === ctx.actor)
    throw new AppError(
      'forbidden',
      'an application is decided by someone other than who submitted it: ask another employee or an admin',
    );
}

export async function approveApplication(
  db: Database,
  ctx: ActorContext,
  role: ActingRole,
  id: string,
  input: { note?: string | null },
): Promise<ApplicationRecord> {
  return decide(db, ctx, id, 'approved', async (trx, a) => {
    const { employee_limit } = await approvalSettings(trx, ctx.businessId);
    const problem = approvalLimitProblem(
      { kind: role === 'employee' ? 'employee' : 'admin' },
      a.amount,
      employee_limit,
    );
    if (problem) throw new AppError('forbidden', problem);
    const note = text(input.note);
    const failed = a.checks.filter((c) => c.outcome === 'fail').map((c) => c.rule);
    if (failed.length > 0 && !note)
      throw unprocessable(`the application failed ${failed.join(', ')}: approving it anyway needs a note saying why`, [
        { path: '/note', message: 'required to approve over a failed check' },
      ]);
    return note;
  });
}

export async function rejectApplication(
  db: Database,
  ctx: ActorContext,
  id: string,
  input: { reason: string },
): Promise<ApplicationRecord> {
  return decide(db, ctx, id, 'rejected', async () => input.reason.trim());
}

/**
 * A decision (approve or reject): the application locked, still submitted, decided by someone
 * other than its submitter; `rule` checks what else the decision needs and gives its note.
 * Announced as application.decided.
 */
async function decide(
  db: Database,
  ctx: ActorContext,
  id: string,
  status: 'approved' | 'rejected',
  rule: (trx: Transaction<DB>, a: ApplicationRow) => Promise<string | null>,
): Promise<ApplicationRecord> {
  return withActor(db.kysely, ctx, async (trx) => {
    const a = await lockedApplication(trx, ctx, id);
    if (a.status !== 'submitted') throw notSubmitted(a, status);
    notTheSubmitter(a, ctx);
    const note = await rule(trx, a);
    const row = await updateApplication(trx, ctx.businessId, a.id, {
      status,
      decided_by: ctx.actor,
      decision_note: note,
      decided_at: ctx.now,
    });
    const record = presentApplication(row);
    emit(trx, ctx.businessId, 'application.decided', record);
    return record;
  });
}

/** Withdrawn before a decision: by its submitter, or an admin or full key. */
export async function withdrawApplication(
  db: Database,
  ctx: ActorContext,
  role: ActingRole,
  id: string,
): Promise<ApplicationRecord> {
  return withActor(db.kysely, ctx, async (trx) => {
    const a = await lockedApplication(trx, ctx, id);
    if (a.status !== 'submitted') throw notSubmitted(a, 'withdrawn');
    if (role === 'employee' && a.submitted_by !== ctx.actor)
      throw new AppError('forbidden', 'an application is withdrawn by who submitted it, or an admin');
    return presentApplication(await updateApplication(trx, ctx.businessId, a.id, { status: 'withdrawn' }));
  });
}

export interface Disbursed extends CreditDetailRows {
  guarantors: Guarantor[];
}

/**
 * The approved application's credit, granted as POST /api/clients/{id}/credits would (today unless
 * its start_date is still ahead), with its guarantors; the application becomes disbursed. Once.
 */
export async function disburseApplication(
  db: Database,
  ctx: ActorContext,
  id: string,
  input: { method: string; external_reference?: string | null },
): Promise<Disbursed> {
  return withActor(db.kysely, ctx, async (trx) => {
    // before any row lock: a holiday change holds the business's holiday lock while it updates installments
    const holidays = await holidaySet(trx, ctx.businessId);
    const a = await lockedApplication(trx, ctx, id);
    if (a.status === 'disbursed') throw conflict(`the application was disbursed already: credit ${a.credit_id}`);
    if (a.status !== 'approved') throw conflict(`the application is ${a.status}: only an approved one is disbursed`);
    const startDate = a.start_date !== null && a.start_date >= ctx.today ? a.start_date : ctx.today;
    const detail = await createCreditIn(
      trx,
      ctx,
      {
        clientId: a.client_id,
        creditConfigId: a.credit_config_id,
        amount: a.amount,
        branchId: a.branch_id,
        startDate,
        applicationId: a.id,
      },
      holidays,
    );
    const guarantors = await addGuarantorsIn(trx, ctx, detail.credit.id, a.guarantors);
    await updateApplication(trx, ctx.businessId, a.id, {
      status: 'disbursed',
      credit_id: detail.credit.id,
      disbursement_method: input.method,
      disbursement_reference: text(input.external_reference),
      disbursed_at: ctx.now,
    });
    return { ...detail, guarantors: guarantors.map(presentGuarantor) };
  });
}

export async function getApplicationRecord(db: Database, ctx: ActorContext, id: string): Promise<ApplicationRecord> {
  const a = await getApplication(db.kysely, ctx.businessId, id);
  if (!a) throw notFound('application');
  return presentApplication(a);
}

export async function listApplicationRecords(
  db: Database,
  ctx: ActorContext,
  q: { status?: ApplicationStatus; branchId?: string; clientId?: string } & PageRequest,
) {
  const page = await applicationPage(db.kysely, ctx.businessId, q);
  return { ...page, items: page.items.map(presentApplication) };
}
