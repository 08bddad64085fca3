// The lending use cases: create a credit, register a payment, write off, refinance, cancel.
// Each runs in one transaction that first locks what it changes (the business's credit counter,
// the credit row), so concurrent requests queue instead of over-allocating or skipping numbers.
// Routes translate HTTP to these; the demo and the tests call them too.
import type { Kysely, Transaction } from 'kysely';
import { withActor } from '../db/connection.ts';
import type { ActorContext } from './context.ts';
import type { Credit, DB, Installment, LedgerEntry, Payment } from '../db/schema.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getCredit, insertNumberedCredit, lockCredit, sharePlan, updateCredit } from '../db/repositories/credits.ts';
import { insertSchedule, installmentsOfCredit } from '../db/repositories/installments.ts';
import { ledgerOfCredit } from '../db/repositories/ledger.ts';
import { paymentsOfCredit } from '../db/repositories/payments.ts';
import { postedThrough } from '../db/repositories/creditAccruals.ts';
import { applyCreditChanges, type CreditChanges, type StagedEntry } from '../db/repositories/creditChanges.ts';
import {
  allocatePayment,
  scheduleFor,
  compareDates,
  daysBetween,
  Dec,
  money,
  outstanding,
  round2,
  STORABLE_MAX,
  toMoneyString,
  type Decimal,
  type PaymentSlice,
} from '../domain/index.ts';
import { conflict, notFound, unprocessable } from '../domain/errors.ts';
import {
  ACCRUING,
  addPayment,
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
import { actingBranch, chosenBranch, inheritedBranch, usableBranch } from './branches.ts';
import { nextBusinessDay, toleranceDays } from '../domain/businessDays.ts';
import { holidaySet } from './holidays.ts';
import { emit } from './events.ts';
import { presentCredit, presentLedgerEntry, presentPayment } from './present.ts';

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

/**
 * The schedule a credit of `amount` on this plan gets when it starts on startDate: a due date on a
 * weekend or holiday moved to the next business day under the `next` rule; either way it cannot be
 * late before the end of the next business day (tolerance_days). Refuses (422) a total too large.
 */
export function plannedSchedule(
  plan: Parameters<typeof scheduleFor>[0] & { business_day_rule: string },
  amount: Decimal,
  startDate: string,
  holidays: ReadonlySet<string>,
) {
  const schedule = scheduleFor(plan, amount, startDate);
  if (schedule.total.gt(STORABLE_MAX)) throw unprocessable('the credit total (amount plus interest) is too large');
  const rows = schedule.installments.map((i) => {
    const dueDate = plan.business_day_rule === 'next' ? nextBusinessDay(i.dueDate, holidays) : i.dueDate;
    return {
      number: i.number,
      amount: toMoneyString(i.amount),
      principal: toMoneyString(i.principal),
      interest: toMoneyString(i.interest),
      vat: toMoneyString(i.vat),
      due_date: dueDate,
      tolerance_days: toleranceDays(dueDate, holidays),
    };
  });
  return { schedule, rows };
}

/** `holidays`: the business's (holidaySet), read first in the transaction, before any row lock it takes. */
async function createCreditIn(
  trx: Transaction<DB>,
  ctx: LendingContext,
  input: CreateCreditInput,
  holidays: ReadonlySet<string>,
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

  const { schedule, rows } = plannedSchedule(plan, amount, startDate, holidays);

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
    amortization: plan.amortization,
    vat_rate: plan.vat_rate,
    business_day_rule: plan.business_day_rule,
  });
  const { installments, entries: ledgerEntries } = await insertSchedule(trx, bid, credit.id, rows, {
    effective_date: startDate,
    branch_id: branchId,
    created_by: ctx.actor,
  });
  emit(trx, bid, 'credit.created', presentCredit(credit), { creditId: credit.id });
  return { credit, installments, ledgerEntries };
}

export async function createCredit(
  db: Kysely<DB>,
  ctx: LendingContext,
  input: CreateCreditInput,
): Promise<CreditDetailRows> {
  return withActor(db, ctx, async (trx) => {
    // before any row lock: a holiday change holds the business's holiday lock while it updates installments
    const holidays = await holidaySet(trx, ctx.businessId);
    const client = await getClient(trx, ctx.businessId, input.clientId);
    if (!client) throw notFound('client');
    // not given: the signed-in user's branch, if they have one
    const branchId = input.branchId !== undefined ? input.branchId : await actingBranch(trx, ctx);
    return createCreditIn(trx, ctx, { ...input, branchId }, holidays);
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
  ledger: LedgerEntry[];
  /** every payment of the credit, reversed ones included, in the order they apply */
  payments: Payment[];
  /** the date punitory is posted through (credit_accruals), null when never */
  postedThrough: string | null;
  /** an installment's punitory stopped at the storable maximum in a posting of this use case */
  atStorableMax: boolean;
  /** what this use case has decided to write; written by `flush` */
  staged: {
    entries: StagedEntry[];
    accruedThrough: string | null;
    payment: CreditChanges['payment'];
    reversal: CreditChanges['reversal'];
  };
}

async function loadLocked(trx: Transaction<DB>, ctx: LendingContext, creditId: string): Promise<Loaded> {
  const credit = await lockCredit(trx, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  // read after the lock: every writer of these holds it
  const [installments, ledger, payments, posted] = await Promise.all([
    installmentsOfCredit(trx, ctx.businessId, credit.id),
    ledgerOfCredit(trx, ctx.businessId, credit.id),
    paymentsOfCredit(trx, ctx.businessId, credit.id),
    postedThrough(trx, ctx.businessId, [credit.id]),
  ]);
  return {
    credit,
    installments,
    ledger,
    payments,
    postedThrough: posted.get(credit.id) ?? null,
    atStorableMax: false,
    staged: { entries: [], accruedThrough: null, payment: null, reversal: null },
  };
}

/** The installments' states from the ledger as written plus what is staged. */
function statesOf(l: Loaded): InstallmentState[] {
  // staged entries sort after the written ones of the same effective date
  const at = new Date(8.64e15);
  return buildStates(l.installments, [
    ...l.ledger,
    ...l.staged.entries.map((e) => ({
      ...e,
      amount: String(e.amount),
      punitory_part: String(e.punitory_part ?? 0),
      vat_part: String(e.vat_part ?? 0),
      interest_part: String(e.interest_part ?? 0),
      created_at: at,
    })),
  ]);
}

/**
 * Posts the punitory owed as of asOf (idempotent: cumulative − posted), effective asOf, and moves
 * the watermark there (never backwards): a posting at an event.
 */
function postPunitory(ctx: LendingContext, l: Loaded, asOf: string): void {
  const { postings, atStorableMax } = punitoryPostings(
    statesOf(l),
    creditTerms(l.credit),
    asOf,
    stopDate(l.credit, ctx.timezone),
  );
  if (atStorableMax.length > 0) l.atStorableMax = true;
  for (const p of postings)
    l.staged.entries.push({
      id: crypto.randomUUID(),
      installment_id: p.state.id,
      type: 'punitory',
      origin: p.amount.lt(0) ? 'correction' : 'accrual',
      amount: toMoneyString(p.amount),
      vat_part: toMoneyString(p.vat),
      effective_date: asOf,
      branch_id: l.credit.branch_id,
      created_by: ctx.actor,
    });
  if (l.postedThrough === null || compareDates(asOf, l.postedThrough) > 0) {
    l.staged.accruedThrough = asOf;
    l.postedThrough = asOf;
  }
}

type SliceOrigin = 'payment' | 'correction' | 'reversal' | 'rebate' | 'refinance';

/** One entry per slice, of the payment paymentId, effective paidOn. */
function stageSlices(
  ctx: LendingContext,
  l: Loaded,
  slices: PaymentSlice[],
  o: { origin: SliceOrigin; paymentId: string; paidOn: string; branchId: string | null },
): void {
  for (const s of slices)
    l.staged.entries.push({
      id: crypto.randomUUID(),
      installment_id: s.installmentId,
      type: 'payment',
      origin: o.origin,
      amount: toMoneyString(s.amount),
      punitory_part: toMoneyString(s.punitory),
      vat_part: toMoneyString(s.vat),
      interest_part: toMoneyString(s.interest),
      effective_date: o.paidOn,
      payment_id: o.paymentId,
      branch_id: o.branchId,
      created_by: ctx.actor,
    });
}

const ZERO = new Dec(0);
const zeroSlice = (installmentId: string): PaymentSlice => ({
  installmentId,
  amount: ZERO,
  principal: ZERO,
  punitory: ZERO,
  vat: ZERO,
  interest: ZERO,
});
const addSlice = (a: PaymentSlice, b: PaymentSlice, sign = 1): PaymentSlice => ({
  installmentId: a.installmentId,
  amount: a.amount.plus(b.amount.times(sign)),
  principal: a.principal.plus(b.principal.times(sign)),
  punitory: a.punitory.plus(b.punitory.times(sign)),
  vat: a.vat.plus(b.vat.times(sign)),
  interest: a.interest.plus(b.interest.times(sign)),
});
const sliceOf = (e: LedgerEntry): PaymentSlice => {
  const punitory = money(e.punitory_part);
  return {
    installmentId: e.installment_id,
    amount: money(e.amount),
    principal: money(e.amount).minus(punitory),
    punitory,
    vat: money(e.vat_part),
    interest: money(e.interest_part),
  };
};
const isZeroSlice = (s: PaymentSlice) =>
  s.amount.isZero() && s.punitory.isZero() && s.vat.isZero() && s.interest.isZero();

/** Per installment, the net of these entries (in installment order of first appearance). */
function netSlices(entries: LedgerEntry[]): Map<string, PaymentSlice> {
  const out = new Map<string, PaymentSlice>();
  for (const e of entries)
    out.set(e.installment_id, addSlice(out.get(e.installment_id) ?? zeroSlice(e.installment_id), sliceOf(e)));
  return out;
}

/** A payment as the allocation replays it. */
interface Replayed {
  id: string;
  amount: Decimal;
  paidOn: string;
  /** the new payment (its refusal names its own amount) */
  isNew: boolean;
}

/**
 * Allocates these payments again from the schedule alone, in order, each against what was owed on
 * its date (punitory as of that date, given the payments before it), as if no other payment had
 * ever been made: what a reversal or a payment dated before others leaves (DOMAIN.md "Payment
 * reversal"). A payment's early-payoff rebate applies just before it. Throws 422 when a payment no
 * longer fits (a backdated payment that, with the later ones, would pay more than is owed).
 */
function replay(ctx: LendingContext, l: Loaded, payments: Replayed[]): Map<string, PaymentSlice[]> {
  const terms = creditTerms(l.credit);
  const stop = stopDate(l.credit, ctx.timezone);
  const states = buildStates(l.installments, []);
  const byId = new Map(states.map((s) => [s.id, s]));
  const rebates = [...l.ledger, ...(l.staged.entries as unknown as LedgerEntry[])].filter((e) => e.origin === 'rebate');
  const out = new Map<string, PaymentSlice[]>();
  for (const p of payments) {
    for (const e of rebates)
      if (e.payment_id === p.id) applyEntry(byId.get(e.installment_id)!, { ...e, amount: String(e.amount) });
    const balances = states.map((s) => balanceOf(s, cumulativeOf(s, terms, p.paidOn, stop).minus(s.punitoryPaid)));
    const allocation = allocatePayment(p.amount, balances);
    if (allocation.unallocated.gt(0)) {
      const owed = outstanding(balances);
      if (p.isNew)
        throw unprocessable(
          `amount ${toMoneyString(p.amount)} is more than the outstanding balance ${toMoneyString(owed)} as of ${p.paidOn}`,
          [{ path: '/amount', message: `at most ${toMoneyString(owed)}` }],
        );
      throw unprocessable(
        `with the payments made after it, the credit would be paid ${toMoneyString(allocation.unallocated)} more than it owes (the payment of ${p.paidOn} no longer fits)`,
        [{ path: '/amount', message: `at most ${toMoneyString(p.amount.minus(allocation.unallocated))} less` }],
      );
    }
    for (const sl of allocation.slices) addPayment(byId.get(sl.installmentId)!, { paidOn: p.paidOn, ...sl });
    out.set(p.id, allocation.slices);
  }
  return out;
}

/**
 * Brings every active payment's entries in line with the replay: a correction entry (effective on
 * the payment's date) per installment whose slice changed. Nothing written is edited.
 */
function stageCorrections(ctx: LendingContext, l: Loaded, replayed: Map<string, PaymentSlice[]>, skip: string | null) {
  for (const p of l.payments) {
    if (p.reversed_at !== null || p.id === skip) continue;
    const desired = replayed.get(p.id) ?? [];
    const written = netSlices(
      l.ledger.filter((e) => e.payment_id === p.id && (e.origin === 'payment' || e.origin === 'correction')),
    );
    const diffs: PaymentSlice[] = [];
    const seen = new Set<string>();
    for (const d of desired) {
      seen.add(d.installmentId);
      const diff = addSlice(d, written.get(d.installmentId) ?? zeroSlice(d.installmentId), -1);
      if (!isZeroSlice(diff)) diffs.push(diff);
    }
    for (const [id, w] of written) {
      if (seen.has(id) || isZeroSlice(w)) continue;
      diffs.push(addSlice(zeroSlice(id), w, -1));
    }
    const order = new Map(l.installments.map((i) => [i.id, i.number]));
    diffs.sort((a, b) => order.get(a.installmentId)! - order.get(b.installmentId)!);
    stageSlices(ctx, l, diffs, { origin: 'correction', paymentId: p.id, paidOn: p.paid_on, branchId: p.branch_id });
  }
}

/** The active payments in the order they apply, as the replay takes them. */
function activePayments(l: Loaded): Replayed[] {
  return l.payments
    .filter((p) => p.reversed_at === null)
    .map((p) => ({ id: p.id, amount: money(p.amount), paidOn: p.paid_on, isNew: false }));
}

/**
 * Writes what is staged in one statement, with every installment's status and paid_date brought in
 * line with its sums, a fully paid active credit closed and a closed one that owes again reopened;
 * `l` then holds the rows as written. Returns the entries written (what the use case created).
 */
async function flush(trx: Transaction<DB>, ctx: LendingContext, l: Loaded): Promise<LedgerEntry[]> {
  const states = statesOf(l);
  const moved: CreditChanges['installments'] = [];
  for (const inst of l.installments) {
    const next = statusOf(states.find((x) => x.id === inst.id)!);
    if (next.status !== inst.status || next.paidDate !== inst.paid_date)
      moved.push({ id: inst.id, status: next.status, paid_date: next.paidDate });
  }
  const allPaid = states.every((s) => statusOf(s).status === 'paid');
  const creditStatus =
    allPaid && l.credit.status === 'active' ? 'closed' : !allPaid && l.credit.status === 'closed' ? 'active' : null;
  const { entries, now, paymentCreatedAt } = await applyCreditChanges(trx, ctx.businessId, {
    creditId: l.credit.id,
    entries: l.staged.entries,
    accruedThrough: l.staged.accruedThrough,
    installments: moved,
    creditStatus,
    payment: l.staged.payment,
    reversal: l.staged.reversal,
  });
  announceChanges(trx, ctx, l, { entries, now, paymentCreatedAt, creditStatus });
  l.staged = { entries: [], accruedThrough: null, payment: null, reversal: null };
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

/** The events of what flush wrote: the payment, its reversal, punitory posted, the credit's status. */
function announceChanges(
  trx: Transaction<DB>,
  ctx: LendingContext,
  l: Loaded,
  written: { entries: LedgerEntry[]; now: Date; paymentCreatedAt: Date | null; creditStatus: Credit['status'] | null },
): void {
  const creditId = l.credit.id;
  const { payment, reversal } = l.staged;
  // the punitory posted up to the payment's date comes before the payment, as in the ledger
  for (const e of written.entries)
    if (e.type === 'punitory') emit(trx, ctx.businessId, 'punitory.posted', presentLedgerEntry(e), { creditId });
  if (payment)
    emit(
      trx,
      ctx.businessId,
      'payment.created',
      presentPayment({
        ...payment,
        business_id: ctx.businessId,
        credit_id: creditId,
        created_at: written.paymentCreatedAt ?? written.now,
        reversed_at: null,
        reversal_reason: null,
        reversed_by: null,
      }),
      { creditId },
    );
  if (reversal) {
    const reversed = l.payments.find((p) => p.id === reversal.paymentId)!;
    emit(
      trx,
      ctx.businessId,
      'payment.reversed',
      presentPayment({ ...reversed, reversed_at: written.now, reversal_reason: reversal.reason }),
      { creditId },
    );
  }
  if (written.creditStatus)
    announceStatus(
      trx,
      ctx.businessId,
      { ...l.credit, status: written.creditStatus, updated_at: written.now },
      l.credit.status,
    );
}

/** credit.status_changed, with the status it had before. */
export function announceStatus(trx: Transaction<DB>, businessId: string, credit: Credit, previous: string): void {
  emit(trx, businessId, 'credit.status_changed', presentCredit(credit), {
    creditId: credit.id,
    extra: { previous_status: previous },
  });
}

// ---------------------------------------------------------------- payments

export interface PaymentInput {
  amount: number | string;
  paidOn?: string;
  /**
   * where it was taken: undefined = the acting user's branch, else the credit's (none if deleted
   * since), null = no branch
   */
  branchId?: string | null;
}

export interface PaymentResult extends CreditDetailRows {
  /** only the entries this payment created: punitory posted, payment slices, corrections */
  created: LedgerEntry[];
  /** the payment recorded */
  paymentId: string;
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
    const branchId = await chosenBranch(trx, ctx, credit, input.branchId);
    const paymentId = crypto.randomUUID();
    // 0. punitory up to the payment's date, before anything is allocated (a payment counts from
    //    the next day, so this does not depend on it)
    if (l.postedThrough === null || compareDates(paidOn, l.postedThrough) > 0) postPunitory(ctx, l, paidOn);
    const active = activePayments(l);
    const latest = active.every((p) => compareDates(p.paidOn, paidOn) <= 0);

    // 1. an early payoff: a payment of exactly the payoff amount, dated on or after every other,
    //    first writes off the interest not owed (the rebate)
    if (latest) {
      const quote = payoffOf(ctx, l, paidOn);
      if (quote.breakdown.rebate.gt(0) && amount.eq(quote.amount))
        stageSlices(ctx, l, quote.rebates, { origin: 'rebate', paymentId, paidOn, branchId });
    }

    // 2. every active payment and this one allocated in date order (this one after those of its
    //    date); unchanged earlier payments give no entry
    const list = [...active, { id: paymentId, amount, paidOn, isNew: true }].sort(
      (a, b) => compareDates(a.paidOn, b.paidOn) || Number(a.isNew) - Number(b.isNew),
    );
    const replayed = replay(ctx, l, list);
    stageCorrections(ctx, l, replayed, null);
    stageSlices(ctx, l, replayed.get(paymentId)!, { origin: 'payment', paymentId, paidOn, branchId });
    l.staged.payment = {
      id: paymentId,
      amount: toMoneyString(amount),
      paid_on: paidOn,
      branch_id: branchId,
      created_by: ctx.actor,
    };

    // 3. a payment dated before punitory already posted changed the history: the punitory up to
    //    the latest posting, computed again, and the difference posted (negative when too much had
    //    been charged); nothing otherwise
    postPunitory(ctx, l, l.postedThrough!);

    const created = await flush(trx, ctx, l);
    const result = {
      credit: l.credit,
      installments: l.installments,
      ledgerEntries: l.ledger,
      created,
      paymentId,
      punitoryAtStorableMax: l.atStorableMax,
    };
    return result;
  });
}

/** A credit's payments, reversed ones included, in the order they apply. */
export async function listPayments(db: Kysely<DB>, ctx: LendingContext, creditId: string): Promise<Payment[]> {
  const credit = await getCredit(db, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  return paymentsOfCredit(db, ctx.businessId, creditId);
}

/**
 * Undoes one payment: entries cancelling its slices (and its rebate), then every later payment
 * allocated again as if it had never been made, punitory recomputed up to today, statuses after.
 */
export async function reversePayment(
  db: Kysely<DB>,
  ctx: LendingContext,
  creditId: string,
  paymentId: string,
  reason: string,
): Promise<CreditDetailRows> {
  return withActor(db, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const payment = l.payments.find((p) => p.id === paymentId);
    if (!payment) throw notFound('payment');
    if (payment.reversed_at !== null)
      throw conflict(`the payment was already reversed (${new Date(payment.reversed_at).toISOString()})`);
    if (l.credit.status === 'refinanced' || l.credit.status === 'inactive')
      throw conflict(`the credit is ${l.credit.status}: its payments can no longer be reversed`);

    // what it owes up to today with the history as it stands, then the history without the payment
    postThrough(ctx, l, ctx.today);
    const own = netSlices(l.ledger.filter((e) => e.payment_id === paymentId));
    stageSlices(
      ctx,
      l,
      [...own.values()].filter((s) => !isZeroSlice(s)).map((s) => addSlice(zeroSlice(s.installmentId), s, -1)),
      { origin: 'reversal', paymentId, paidOn: payment.paid_on, branchId: payment.branch_id },
    );
    l.staged.reversal = { paymentId, reason, by: ctx.actor };
    const rest = activePayments(l).filter((p) => p.id !== paymentId);
    stageCorrections(ctx, l, replay(ctx, l, rest), paymentId);
    postPunitory(ctx, l, l.postedThrough!);
    await flush(trx, ctx, l);
    return { credit: l.credit, installments: l.installments, ledgerEntries: l.ledger };
  });
}

// ---------------------------------------------------------------- early payoff

export interface Payoff {
  asOf: string;
  amount: Decimal;
  breakdown: {
    /** the amount still owed of installments due on or before asOf */
    due: Decimal;
    /** their punitory, posted and accrued, less what is paid of it */
    punitory: Decimal;
    /** of installments due later: the principal, and the interest and VAT accrued in the current period */
    principal: Decimal;
    interest: Decimal;
    vat: Decimal;
    /** interest and VAT not owed: written off by a payment of exactly `amount` */
    rebate: Decimal;
  };
  /** per installment due later, the interest and VAT written off */
  rebates: PaymentSlice[];
}

/** What settles the credit on asOf (DOMAIN.md "Early payoff"), from the ledger as it stands. */
function payoffOf(ctx: LendingContext, l: Loaded, asOf: string): Payoff {
  const terms = creditTerms(l.credit);
  const stop = stopDate(l.credit, ctx.timezone);
  const states = statesOf(l);
  const b = { due: ZERO, punitory: ZERO, principal: ZERO, interest: ZERO, vat: ZERO, rebate: ZERO };
  const rebates: PaymentSlice[] = [];
  let prevDue = l.credit.start_date;
  for (const s of states) {
    if (compareDates(s.dueDate, asOf) <= 0) {
      const amountPart = s.amount.minus(s.principalPaid);
      const punitory = cumulativeOf(s, terms, asOf, stop).minus(s.punitoryPaid);
      b.due = b.due.plus(amountPart);
      b.punitory = b.punitory.plus(punitory);
    } else {
      // the current period earns interest pro rata to its days elapsed; later periods none
      const period = daysBetween(prevDue, s.dueDate);
      const elapsed = compareDates(prevDue, asOf) < 0 ? daysBetween(prevDue, asOf) : 0;
      const share = period > 0 ? Dec.min(new Dec(elapsed).div(period), 1) : ZERO;
      const accruedInterest = round2(s.interest.times(share));
      const accruedVat = round2(s.vat.times(share));
      // owed: its principal and the interest and VAT accrued, less everything paid of its amount (a
      // prepayment that went to interest not owed after all counts toward the principal)
      const owed = Dec.max(
        s.amount.minus(s.interest).minus(s.vat).plus(accruedInterest).plus(accruedVat).minus(s.principalPaid),
        ZERO,
      );
      const interest = Dec.min(Dec.max(accruedInterest.minus(s.interestPaid), ZERO), owed);
      const vat = Dec.min(Dec.max(accruedVat.minus(s.vatPaid), ZERO), owed.minus(interest));
      b.principal = b.principal.plus(owed.minus(interest).minus(vat));
      b.interest = b.interest.plus(interest);
      b.vat = b.vat.plus(vat);
      // the rebate: what is left of the amount once `owed` is paid, all of it interest and VAT not owed
      const rebate = s.amount.minus(s.principalPaid).minus(owed);
      if (rebate.gt(0)) {
        const rebateVat = Dec.min(rebate, Dec.max(s.vat.minus(accruedVat), ZERO));
        b.rebate = b.rebate.plus(rebate);
        rebates.push({
          installmentId: s.id,
          amount: rebate,
          principal: rebate,
          punitory: ZERO,
          vat: rebateVat,
          interest: rebate.minus(rebateVat),
        });
      }
    }
    prevDue = s.dueDate;
  }
  const amount = Dec.max(b.due.plus(b.punitory).plus(b.principal).plus(b.interest).plus(b.vat), ZERO);
  return { asOf, amount, breakdown: b, rebates };
}

/** The payoff quote of a credit as of a date (default today; not before its start, not after today). */
export async function payoffQuote(
  db: Kysely<DB>,
  ctx: LendingContext,
  creditId: string,
  asOf?: string,
): Promise<Payoff> {
  const date = asOf ?? ctx.today;
  return withActor(db, ctx, async (trx) => {
    const credit = await getCredit(trx, ctx.businessId, creditId);
    if (!credit) throw notFound('credit');
    if (compareDates(date, ctx.today) > 0)
      throw unprocessable(`as_of ${date} is in the future (today is ${ctx.today})`, [
        { path: '/as_of', message: 'in the future' },
      ]);
    if (compareDates(date, credit.start_date) < 0)
      throw unprocessable(`as_of ${date} is before the credit's start date ${credit.start_date}`, [
        { path: '/as_of', message: 'before start_date' },
      ]);
    const [installments, ledger, payments] = await Promise.all([
      installmentsOfCredit(trx, ctx.businessId, credit.id),
      ledgerOfCredit(trx, ctx.businessId, credit.id),
      paymentsOfCredit(trx, ctx.businessId, credit.id),
    ]);
    const l: Loaded = {
      credit,
      installments,
      ledger: ledger.filter((e) => compareDates(e.effective_date, date) <= 0 || e.type === 'installment'),
      payments,
      postedThrough: null,
      atStorableMax: false,
      staged: { entries: [], accruedThrough: null, payment: null, reversal: null },
    };
    if (!ACCRUING.has(credit.status)) return { ...payoffOf(ctx, l, date), amount: ZERO };
    return payoffOf(ctx, l, date);
  });
}

// ---------------------------------------------------------------- write-off, cancel, refinance

/** Posts punitory up to `date`, or up to what is already posted when that is later. */
function postThrough(ctx: LendingContext, l: Loaded, date: string): void {
  postPunitory(ctx, l, l.postedThrough && compareDates(l.postedThrough, date) > 0 ? l.postedThrough : date);
}

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
    postThrough(ctx, l, ctx.today);
    await flush(trx, ctx, l);
    const written = await updateCredit(trx, ctx.businessId, l.credit.id, {
      status: 'written_off',
      written_off_at: ctx.now,
      write_off_reason: reason,
    });
    announceStatus(trx, ctx.businessId, written, l.credit.status);
    return written;
  });
}

/**
 * A credit granted by mistake: active, with no payment (reversed ones do not count) and no
 * installment due yet (DOMAIN.md "Write-off, refinance, cancel"); later, the ways out are write-off
 * and refinance.
 */
export async function cancelCredit(db: Kysely<DB>, ctx: LendingContext, creditId: string): Promise<Credit> {
  return withActor(db, ctx, async (trx) => {
    const l = await loadLocked(trx, ctx, creditId);
    const { credit } = l;
    if (credit.status !== 'active')
      throw conflict(`only an active credit can be cancelled; this one is ${credit.status}`);
    if (l.payments.some((p) => p.reversed_at === null))
      throw conflict('the credit has payments and cannot be cancelled: write it off or refinance it');
    const first = l.installments[0];
    if (first && compareDates(first.due_date, ctx.today) <= 0)
      throw conflict(
        `the credit's first installment was due on ${first.due_date}: it can no longer be cancelled; write it off or refinance it`,
      );
    const cancelled = await updateCredit(trx, ctx.businessId, credit.id, { status: 'inactive' });
    announceStatus(trx, ctx.businessId, cancelled, credit.status);
    return cancelled;
  });
}

export interface RefinanceInput {
  creditConfigId: string;
  amount?: number | string;
  /** must be today when given: the new credit starts the day the old one is settled */
  startDate?: string;
  /** the new credit's branch: undefined = the old credit's (none if deleted since), null = no branch */
  branchId?: string | null;
  originTransactionReference?: string | null;
}

/**
 * Punitory is posted up to today, the old credit's whole balance is settled by entries that say
 * they are a refinance settlement (no cash), the old credit becomes refinanced, and a new credit
 * for at least that balance, starting today, is created for the same client — one transaction.
 */
export async function refinanceCredit(
  db: Kysely<DB>,
  ctx: LendingContext,
  creditId: string,
  input: RefinanceInput,
): Promise<CreditDetailRows> {
  return withActor(db, ctx, async (trx) => {
    // before the credit's lock: a holiday change holds the business's holiday lock while it updates installments
    const holidays = await holidaySet(trx, ctx.businessId);
    const l = await loadLocked(trx, ctx, creditId);
    const old = l.credit;
    if (old.status !== 'active') throw conflict(`only an active credit can be refinanced; this one is ${old.status}`);
    if (input.startDate !== undefined && input.startDate !== ctx.today)
      throw unprocessable(
        `start_date ${input.startDate}: a refinancing credit starts today (${ctx.today}), the day the old one is settled`,
        [{ path: '/start_date', message: `must be ${ctx.today} or omitted` }],
      );
    postThrough(ctx, l, ctx.today);
    const states = statesOf(l);
    const balance = outstanding(states.map((s) => balanceOf(s)));
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
      states.map((s) => balanceOf(s)),
    );
    stageSlices(ctx, l, allocation.slices, {
      origin: 'refinance',
      paymentId: crypto.randomUUID(),
      paidOn: ctx.today,
      branchId: settlementBranch,
    });
    l.credit = await updateCredit(trx, ctx.businessId, old.id, { status: 'refinanced' });
    announceStatus(trx, ctx.businessId, l.credit, old.status);
    await flush(trx, ctx, l);

    return createCreditIn(
      trx,
      ctx,
      {
        clientId: old.client_id,
        creditConfigId: input.creditConfigId,
        amount: toMoneyString(amount),
        // checked like a new credit's: an unknown or deleted branch is 422
        branchId: input.branchId === undefined ? settlementBranch : input.branchId,
        originTransactionReference: input.originTransactionReference ?? null,
        startDate: ctx.today,
        refinancedFromId: old.id,
      },
      holidays,
    );
  });
}
