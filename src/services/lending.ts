// The lending use cases: create a credit, register a payment, write off, refinance, cancel.
// Each runs in one transaction that first locks what it changes (the business's credit counter,
// the credit row), so concurrent requests queue instead of over-allocating or skipping numbers.
// Routes translate HTTP to these; the demo and the tests call them too.
import type { Kysely, Transaction } from 'kysely';
import { withActor } from '../db/connection.ts';
import type { ActorContext } from './context.ts';
import type { Credit, DB, Installment, LedgerEntry } from '../db/schema.ts';
import { getClient } from '../db/repositories/clients.ts';
import { insertCredit, lockCredit, sharePlan, updateCredit } from '../db/repositories/credits.ts';
import { insertInstallments, installmentsOfCredit, setInstallmentState } from '../db/repositories/installments.ts';
import { hasPayments, insertLedger, ledgerOfCredit, type NewLedgerEntry } from '../db/repositories/ledger.ts';
import { markAccrued, postedThrough } from '../db/repositories/creditAccruals.ts';
import { nextCreditSequence } from '../db/repositories/businessSequences.ts';
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

  const seq = await nextCreditSequence(trx, bid);
  const credit = await insertCredit(trx, bid, seq, {
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
  const installments = await insertInstallments(
    trx,
    bid,
    schedule.installments.map((i) => ({
      credit_id: credit.id,
      number: i.number,
      amount: toMoneyString(i.amount),
      due_date: i.dueDate,
    })),
  );
  const ledgerEntries = await insertLedger(
    trx,
    bid,
    installments.map((i) => ({
      credit_id: credit.id,
      installment_id: i.id,
      type: 'installment' as const,
      amount: i.amount,
      effective_date: startDate,
      branch_id: branchId,
      created_by: ctx.actor,
    })),
  );
  return { credit, installments, ledgerEntries };
}

/** Runs inside the use case's transaction just before it commits (the route stores an Idempotency-Key answer with it). */
export type BeforeCommit<T> = (trx: Transaction<DB>, result: T) => Promise<void>;

export async function createCredit(
  db: Kysely<DB>,
  ctx: LendingContext,
  input: CreateCreditInput,
  beforeCommit?: BeforeCommit<CreditDetailRows>,
): Promise<CreditDetailRows> {
  return withActor(db, ctx.actor, async (trx) => {
    const client = await getClient(trx, ctx.businessId, input.clientId);
    if (!client) throw notFound('client');
    const result = await createCreditIn(trx, ctx, input);
    await beforeCommit?.(trx, result);
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
  };
}

/** Posts punitory up to `date` unless it is already posted that far, and records the new watermark. */
async function accrueTo(trx: Transaction<DB>, ctx: LendingContext, l: Loaded, date: string): Promise<LedgerEntry[]> {
  if (l.postedThrough !== null && compareDates(date, l.postedThrough) <= 0) return [];
  const posted = await postPunitory(trx, ctx, l, date);
  await markAccrued(trx, ctx.businessId, [l.credit.id], date);
  l.postedThrough = date;
  return posted;
}

/** Posts the punitory owed as of asOf (idempotent: cumulative − posted), effective asOf. */
async function postPunitory(
  trx: Transaction<DB>,
  ctx: LendingContext,
  l: Loaded,
  asOf: string,
): Promise<LedgerEntry[]> {
  const { postings, atStorableMax } = punitoryPostings(
    l.states,
    creditTerms(l.credit),
    asOf,
    stopDate(l.credit, ctx.timezone),
  );
  if (atStorableMax.length > 0) l.atStorableMax = true;
  const rows: NewLedgerEntry[] = postings.map((p) => ({
    credit_id: l.credit.id,
    installment_id: p.state.id,
    type: 'punitory',
    amount: toMoneyString(p.amount),
    effective_date: asOf,
    branch_id: l.credit.branch_id,
    created_by: ctx.actor,
  }));
  return recordEntries(trx, ctx, l, rows);
}

/** Writes the entries and applies them to the installments' states. */
async function recordEntries(
  trx: Transaction<DB>,
  ctx: LendingContext,
  l: Loaded,
  rows: NewLedgerEntry[],
): Promise<LedgerEntry[]> {
  const inserted = await insertLedger(trx, ctx.businessId, rows);
  for (const e of inserted) applyEntry(l.states.find((s) => s.id === e.installment_id)!, e);
  return inserted;
}

/** One payment: an allocation's slices as payment entries of the credit under one payment id. */
function postPayment(
  trx: Transaction<DB>,
  ctx: LendingContext,
  l: Loaded,
  slices: PaymentSlice[],
  o: { paidOn: string; branchId: string | null },
): Promise<LedgerEntry[]> {
  const paymentId = crypto.randomUUID();
  return recordEntries(
    trx,
    ctx,
    l,
    slices.map((s) => ({
      credit_id: l.credit.id,
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

/** Brings every installment's status and paid_date in line with its sums; closes a fully paid active credit. */
async function settleStatuses(trx: Transaction<DB>, ctx: LendingContext, l: Loaded): Promise<void> {
  for (const inst of l.installments) {
    const s = l.states.find((x) => x.id === inst.id)!;
    const next = statusOf(s);
    if (next.status !== inst.status || next.paidDate !== inst.paid_date) {
      await setInstallmentState(trx, ctx.businessId, inst.id, next.status, next.paidDate);
    }
  }
  const allPaid = l.states.every((s) => statusOf(s).status === 'paid');
  if (allPaid && l.credit.status === 'active')
    l.credit = await updateCredit(trx, ctx.businessId, l.credit.id, { status: 'closed' });
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
  beforeCommit?: BeforeCommit<PaymentResult>,
): Promise<PaymentResult> {
  return withActor(db, ctx.actor, async (trx) => {
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

    const created: LedgerEntry[] = [];
    const postedThrough = l.postedThrough;
    const backdated = postedThrough !== null && compareDates(paidOn, postedThrough) < 0;
    const terms = creditTerms(credit);
    const stop = stopDate(credit, ctx.timezone);

    // 1. punitory up to the payment's date, before anything is allocated
    if (!backdated) created.push(...(await accrueTo(trx, ctx, l, paidOn)));

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
    created.push(...(await postPayment(trx, ctx, l, allocation.slices, { paidOn, branchId })));

    // 3. a backdated payment changed the history: recompute up to the latest posting and post
    //    the difference (negative when too much had been charged)
    if (backdated) created.push(...(await postPunitory(trx, ctx, l, postedThrough!)));

    await settleStatuses(trx, ctx, l);
    const detail = await creditDetail(trx, ctx.businessId, l.credit);
    const result = { ...detail, created, punitoryAtStorableMax: l.atStorableMax };
    await beforeCommit?.(trx, result);
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
  return withActor(db, ctx.actor, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    if (l.credit.status !== 'active')
      throw conflict(`only an active credit can be written off; this one is ${l.credit.status}`);
    // what it owes on the day it is written off is posted first; nothing accrues after
    await accrueTo(trx, ctx, l, ctx.today);
    return updateCredit(trx, ctx.businessId, l.credit.id, {
      status: 'written_off',
      written_off_at: ctx.now,
      write_off_reason: reason,
    });
  });
}

export async function cancelCredit(db: Kysely<DB>, ctx: LendingContext, creditId: string): Promise<Credit> {
  return withActor(db, ctx.actor, async (trx) => {
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
  return withActor(db, ctx.actor, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const old = l.credit;
    if (old.status !== 'active') throw conflict(`only an active credit can be refinanced; this one is ${old.status}`);
    await accrueTo(trx, ctx, l, ctx.today);
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
    await postPayment(trx, ctx, l, allocation.slices, { paidOn: ctx.today, branchId: settlementBranch });
    l.credit = await updateCredit(trx, ctx.businessId, old.id, { status: 'refinanced' });
    await settleStatuses(trx, ctx, l);

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
