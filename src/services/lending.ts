// The lending use cases: create a credit, register a payment, write off, refinance, cancel.
// Each runs in one transaction that first locks what it changes (the business's credit counter,
// the credit row), so concurrent requests queue instead of over-allocating or skipping numbers.
// Routes translate HTTP to these; the demo and the tests call them too.
import type { Kysely, Transaction } from 'kysely';
import { withActor } from '../db/connection.ts';
import type { ActorContext } from './context.ts';
import type { Credit, DB, Installment, LedgerEntry } from '../db/schema.ts';
import { getClient } from '../db/repositories/clients.ts';
import { insertNumberedCredit, lockCredit, sharePlan, updateCredit } from '../db/repositories/credits.ts';
import { insertSchedule, installmentsOfCredit } from '../db/repositories/installments.ts';
import { hasPayments, ledgerOfCredit } from '../db/repositories/ledger.ts';
import { postedThrough } from '../db/repositories/creditAccruals.ts';
import { applyCreditChanges, type CreditChanges, type StagedEntry } from '../db/repositories/creditChanges.ts';
import {
  allocatePayment,
  scheduleFor,
  compareDates,
  money,
  outstanding,
  STORABLE_MAX,
  toMoneyString,
  type Decimal,
  type PaymentSlice,
} from '../domain/index.ts';
import { conflict, notFound, unprocessable } from '../domain/errors.ts';
import {
  applyEntry,
  balanceOf,
  buildStates,
  creditTerms,
  cumulativeOf,
  punitoryPostings,
  statusOf,
  stopDate,
  type InstallmentState,
} from './ledgerState.ts';
import { chosenBranch, inheritedBranch, usableBranch } from './branches.ts';

/** Who acts, for which business, in which time zone (its "today"). */
export type LendingContext = ActorContext;

export interface CreditDetailRows {
  credit: Credit;
  installments: Installment[];
  ledgerEntries: LedgerEntry[];
}

function positiveAmount(amount: number | string, path = '/amount'): Decimal {
  const d = money(amount);
  if (d.lte(0)) throw unprocessable('amount must be greater than 0', [{ path, message: 'must be > 0' }]);
  return d;
}

// ---------------------------------------------------------------- credits

export interface CreateCreditInput {
  clientId: string;
  creditConfigId: string;
  amount: number | string;
  branchId?: string | null;
  originTransactionReference?: string | null;
  startDate?: string;
  refinancedFromId?: string | null;
}

async function createCreditIn(
  trx: Transaction<DB>,
  ctx: LendingContext,
  input: CreateCreditInput,
): Promise<CreditDetailRows> {
  const bid = ctx.businessId;
  const plan = await sharePlan(trx, bid, input.creditConfigId);
  if (!plan)
    throw unprocessable(`credit_config_id ${input.creditConfigId} names no credit plan of this business`, [
      { path: '/credit_config_id', message: 'no such plan' },
    ]);
  if (!plan.is_active)
    throw unprocessable(`the credit plan "${plan.name}" is inactive`, [
      { path: '/credit_config_id', message: 'plan is inactive' },
    ]);
  const branchId = input.branchId ? await usableBranch(trx, bid, input.branchId) : null;
  const amount = positiveAmount(input.amount);
  const startDate = input.startDate ?? ctx.today;

  const schedule = scheduleFor(plan, amount, startDate);
  if (schedule.total.gt(STORABLE_MAX)) throw unprocessable('the credit total (amount plus interest) is too large');

  const credit = await insertNumberedCredit(trx, bid, {
    client_id: input.clientId,
    credit_config_id: plan.id,
    amount: toMoneyString(amount),
    total: toMoneyString(schedule.total),
    refinanced_from_id: input.refinancedFromId ?? null,
    created_by: ctx.actor,
    origin_transaction_reference: input.originTransactionReference ?? null,
    branch_id: branchId,
    start_date: startDate,
    // the plan's terms as they are now: editing the plan later never changes this credit
    installments_count: plan.installments_count,
    days_until_first_payment: plan.days_until_first_payment,
    cut_type: plan.cut_type,
    payment_day: plan.payment_day,
    interest_rate: plan.interest_rate,
    daily_punitory_rate: plan.daily_punitory_rate,
    grace_days: plan.grace_days,
    punitory_mode: plan.punitory_mode,
    max_punitory_days: plan.max_punitory_days,
    punitory_cap_pct: plan.punitory_cap_pct,
    write_off_days: plan.write_off_days,
  });
  const { installments, entries: ledgerEntries } = await insertSchedule(
    trx,
    bid,
    credit.id,
    schedule.installments.map((i) => ({ number: i.number, amount: toMoneyString(i.amount), due_date: i.dueDate })),
    { effective_date: startDate, branch_id: branchId, created_by: ctx.actor },
  );
  return { credit, installments, ledgerEntries };
}

export async function createCredit(
  db: Kysely<DB>,
  ctx: LendingContext,
  input: CreateCreditInput,
): Promise<CreditDetailRows> {
  return withActor(db, ctx, async (trx) => {
    const client = await getClient(trx, ctx.businessId, input.clientId);
    if (!client) throw notFound('client');
    const result = await createCreditIn(trx, ctx, input);
    return result;
  });
}

export async function creditDetail(
  db: Kysely<DB> | Transaction<DB>,
  businessId: string,
  credit: Credit,
): Promise<CreditDetailRows> {
  const [installments, ledgerEntries] = await Promise.all([
    installmentsOfCredit(db, businessId, credit.id),
    ledgerOfCredit(db, businessId, credit.id),
  ]);
  return { credit, installments, ledgerEntries };
}

// ---------------------------------------------------------------- shared steps

interface Loaded {
  credit: Credit;
  installments: Installment[];
  states: InstallmentState[];
  ledger: LedgerEntry[];
  /** the date punitory is posted through (credit_accruals), null when never */
  postedThrough: string | null;
  /** an installment's punitory stopped at the storable maximum in a posting of this use case */
  atStorableMax: boolean;
  /** what this use case has decided to write, applied to `states` already; written by `flush` */
  staged: { entries: StagedEntry[]; accruedThrough: string | null };
}

async function loadLocked(trx: Transaction<DB>, ctx: LendingContext, creditId: string): Promise<Loaded> {
  const credit = await lockCredit(trx, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  // read after the lock: every writer of these holds it
  const [installments, ledger, posted] = await Promise.all([
    installmentsOfCredit(trx, ctx.businessId, credit.id),
    ledgerOfCredit(trx, ctx.businessId, credit.id),
    postedThrough(trx, ctx.businessId, [credit.id]),
  ]);
  return {
    credit,
    installments,
    ledger,
    states: buildStates(installments, ledger),
    postedThrough: posted.get(credit.id) ?? null,
    atStorableMax: false,
    staged: { entries: [], accruedThrough: null },
  };
}

/** Posts punitory up to `date` unless it is already posted that far, and moves the watermark. */
function accrueTo(ctx: LendingContext, l: Loaded, date: string): void {
  if (l.postedThrough !== null && compareDates(date, l.postedThrough) <= 0) return;
  postPunitory(ctx, l, date);
  l.staged.accruedThrough = date;
  l.postedThrough = date;
}

/** Posts the punitory owed as of asOf (idempotent: cumulative − posted), effective asOf. */
function postPunitory(ctx: LendingContext, l: Loaded, asOf: string): void {
  const { postings, atStorableMax } = punitoryPostings(
    l.states,
    creditTerms(l.credit),
    asOf,
    stopDate(l.credit, ctx.timezone),
  );
  if (atStorableMax.length > 0) l.atStorableMax = true;
  stage(
    l,
    postings.map((p) => ({
      installment_id: p.state.id,
      type: 'punitory',
      amount: toMoneyString(p.amount),
      effective_date: asOf,
      branch_id: l.credit.branch_id,
      created_by: ctx.actor,
    })),
  );
}

/** Stages the entries (written by `flush`) and applies them to the installments' states now. */
function stage(l: Loaded, rows: Omit<StagedEntry, 'id'>[]): void {
  for (const r of rows) {
    const e = { ...r, id: crypto.randomUUID() };
    l.staged.entries.push(e);
    applyEntry(l.states.find((s) => s.id === e.installment_id)!, {
      type: e.type,
      amount: String(e.amount),
      punitory_part: String(e.punitory_part ?? 0),
      effective_date: e.effective_date,
    });
  }
}

/** One payment: an allocation's slices as payment entries of the credit under one payment id. */
function postPayment(
  ctx: LendingContext,
  l: Loaded,
  slices: PaymentSlice[],
  o: { paidOn: string; branchId: string | null },
): void {
  const paymentId = crypto.randomUUID();
  stage(
    l,
    slices.map((s) => ({
      installment_id: s.installmentId,
      type: 'payment' as const,
      amount: toMoneyString(s.amount),
      punitory_part: toMoneyString(s.punitory),
      effective_date: o.paidOn,
      payment_id: paymentId,
      branch_id: o.branchId,
      created_by: ctx.actor,
    })),
  );
}

/**
 * Writes what is staged in one statement, with every installment's status and paid_date brought in
 * line with its sums and a fully paid active credit closed; `l` then holds the rows as written.
 * Returns the entries written (what the use case created).
 */
async function flush(trx: Transaction<DB>, ctx: LendingContext, l: Loaded): Promise<LedgerEntry[]> {
  const moved: CreditChanges['installments'] = [];
  for (const inst of l.installments) {
    const next = statusOf(l.states.find((x) => x.id === inst.id)!);
    if (next.status !== inst.status || next.paidDate !== inst.paid_date)
      moved.push({ id: inst.id, status: next.status, paid_date: next.paidDate });
  }
  const allPaid = l.states.every((s) => statusOf(s).status === 'paid');
  const creditStatus = allPaid && l.credit.status === 'active' ? 'closed' : null;
  const { entries, now } = await applyCreditChanges(trx, ctx.businessId, {
    creditId: l.credit.id,
    entries: l.staged.entries,
    accruedThrough: l.staged.accruedThrough,
    installments: moved,
    creditStatus,
  });
  l.staged = { entries: [], accruedThrough: null };
  // the rows as a re-read would give them, without the re-read
  const byId = new Map(moved.map((m) => [m.id, m]));
  l.installments = l.installments.map((i) => {
    const m = byId.get(i.id);
    return m ? { ...i, status: m.status, paid_date: m.paid_date, updated_at: now } : i;
  });
  if (creditStatus) l.credit = { ...l.credit, status: creditStatus, updated_at: now };
  l.ledger = [...l.ledger, ...entries];
  return entries;
}

function lastPaymentDate(ledger: LedgerEntry[]): string | null {
  let last: string | null = null;
  for (const e of ledger)
    if (e.type === 'payment' && (last === null || e.effective_date > last)) last = e.effective_date;
  return last;
}

// ---------------------------------------------------------------- payments

export interface PaymentInput {
  amount: number | string;
  paidOn?: string;
  /** where it was taken: undefined = the credit's branch (none if deleted since), null = no branch */
  branchId?: string | null;
}

export interface PaymentResult extends CreditDetailRows {
  /** only the entries this payment created: punitory posted, payment slices, corrections */
  created: LedgerEntry[];
  /** some installment's punitory stopped at the storable maximum (the route logs it) */
  punitoryAtStorableMax: boolean;
}

const STATUS_FORBIDS_PAYMENT: Record<string, string> = {
  refinanced: 'the credit was refinanced: pay the new credit instead',
  closed: 'the credit is closed: nothing is owed',
  inactive: 'the credit was cancelled',
};

export async function registerPayment(
  db: Kysely<DB>,
  ctx: LendingContext,
  creditId: string,
  input: PaymentInput,
): Promise<PaymentResult> {
  return withActor(db, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const { credit } = l;
    const why = STATUS_FORBIDS_PAYMENT[credit.status];
    if (why) throw conflict(`payment refused: ${why}`);

    const amount = positiveAmount(input.amount);
    const paidOn = input.paidOn ?? ctx.today;
    if (compareDates(paidOn, ctx.today) > 0)
      throw unprocessable(`paid_on ${paidOn} is in the future (today is ${ctx.today})`, [
        { path: '/paid_on', message: 'in the future' },
      ]);
    if (compareDates(paidOn, credit.start_date) < 0)
      throw unprocessable(`paid_on ${paidOn} is before the credit's start date ${credit.start_date}`, [
        { path: '/paid_on', message: 'before start_date' },
      ]);
    const lastPaid = lastPaymentDate(l.ledger);
    if (lastPaid && compareDates(paidOn, lastPaid) < 0)
      throw unprocessable(`paid_on ${paidOn} is before the credit's last payment (${lastPaid})`, [
        { path: '/paid_on', message: 'before the last payment' },
      ]);
    const branchId = await chosenBranch(trx, credit, input.branchId);

    const postedThrough = l.postedThrough;
    const backdated = postedThrough !== null && compareDates(paidOn, postedThrough) < 0;
    const terms = creditTerms(credit);
    const stop = stopDate(credit, ctx.timezone);

    // 1. punitory up to the payment's date, before anything is allocated
    if (!backdated) accrueTo(ctx, l, paidOn);

    // 2. allocation against what was owed on paid_on. A backdated payment (before punitory
    //    already posted) owes the punitory of its own date, not the later posting.
    const balances = l.states.map((s) =>
      backdated ? balanceOf(s, cumulativeOf(s, terms, paidOn, stop).minus(s.punitoryPaid)) : balanceOf(s),
    );
    const owed = outstanding(balances);
    const allocation = allocatePayment(amount, balances);
    if (allocation.unallocated.gt(0)) {
      throw unprocessable(
        `amount ${toMoneyString(amount)} is more than the outstanding balance ${toMoneyString(owed)} as of ${paidOn}`,
        [{ path: '/amount', message: `at most ${toMoneyString(owed)}` }],
      );
    }
    postPayment(ctx, l, allocation.slices, { paidOn, branchId });

    // 3. a backdated payment changed the history: recompute up to the latest posting and post
    //    the difference (negative when too much had been charged)
    if (backdated) postPunitory(ctx, l, postedThrough!);

    const created = await flush(trx, ctx, l);
    const result = {
      credit: l.credit,
      installments: l.installments,
      ledgerEntries: l.ledger,
      created,
      punitoryAtStorableMax: l.atStorableMax,
    };
    return result;
  });
}

// ---------------------------------------------------------------- write-off, cancel, refinance

export async function writeOffCredit(
  db: Kysely<DB>,
  ctx: LendingContext,
  creditId: string,
  reason: string,
): Promise<Credit> {
  return withActor(db, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    if (l.credit.status !== 'active')
      throw conflict(`only an active credit can be written off; this one is ${l.credit.status}`);
    // what it owes on the day it is written off is posted first; nothing accrues after
    accrueTo(ctx, l, ctx.today);
    await flush(trx, ctx, l);
    return updateCredit(trx, ctx.businessId, l.credit.id, {
      status: 'written_off',
      written_off_at: ctx.now,
      write_off_reason: reason,
    });
  });
}

export async function cancelCredit(db: Kysely<DB>, ctx: LendingContext, creditId: string): Promise<Credit> {
  return withActor(db, ctx, async (trx) => {
    const credit = await lockCredit(trx, ctx.businessId, creditId);
    if (!credit) throw notFound('credit');
    if (credit.status !== 'active')
      throw conflict(`only an active credit can be cancelled; this one is ${credit.status}`);
    if (await hasPayments(trx, ctx.businessId, credit.id))
      throw conflict('the credit has payments and cannot be cancelled');
    return updateCredit(trx, ctx.businessId, credit.id, { status: 'inactive' });
  });
}

export interface RefinanceInput {
  creditConfigId: string;
  amount?: number | string;
  startDate?: string;
  /** the new credit's branch: undefined = the old credit's (none if deleted since), null = no branch */
  branchId?: string | null;
  originTransactionReference?: string | null;
}

/**
 * Punitory is posted up to today, the old credit's whole balance is settled by payment entries,
 * the old credit becomes refinanced, and a new credit for at least that balance is created for
 * the same client — one transaction.
 */
export async function refinanceCredit(
  db: Kysely<DB>,
  ctx: LendingContext,
  creditId: string,
  input: RefinanceInput,
): Promise<CreditDetailRows> {
  return withActor(db, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const old = l.credit;
    if (old.status !== 'active') throw conflict(`only an active credit can be refinanced; this one is ${old.status}`);
    accrueTo(ctx, l, ctx.today);
    const balance = outstanding(l.states.map((s) => balanceOf(s)));
    if (balance.lte(0)) throw unprocessable('the credit owes nothing: there is no balance to refinance');
    const amount = input.amount === undefined ? balance : positiveAmount(input.amount);
    if (amount.lt(balance))
      throw unprocessable(
        `amount ${toMoneyString(amount)} is less than the balance to refinance ${toMoneyString(balance)}`,
        [{ path: '/amount', message: `at least ${toMoneyString(balance)}` }],
      );

    // the settlement belongs to the old credit's book: its branch, whatever the new credit's
    const settlementBranch = await inheritedBranch(trx, old);
    const allocation = allocatePayment(
      balance,
      l.states.map((s) => balanceOf(s)),
    );
    postPayment(ctx, l, allocation.slices, { paidOn: ctx.today, branchId: settlementBranch });
    l.credit = await updateCredit(trx, ctx.businessId, old.id, { status: 'refinanced' });
    await flush(trx, ctx, l);

    return createCreditIn(trx, ctx, {
      clientId: old.client_id,
      creditConfigId: input.creditConfigId,
      amount: toMoneyString(amount),
      // checked like a new credit's: an unknown or deleted branch is 422
      branchId: input.branchId === undefined ? settlementBranch : input.branchId,
      originTransactionReference: input.originTransactionReference ?? null,
      startDate: input.startDate ?? ctx.today,
      refinancedFromId: old.id,
    });
  });
}
