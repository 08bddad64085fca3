// A credit's book as one use case sees it under the credit's lock: its rows as read, what the use
// case has decided to write (staged), and the rules that decide it: punitory posted at an event,
// payments allocated again from the schedule (the replay), the corrections that bring written
// slices in line, a reversal's entries, the early-payoff quote, the statuses that follow. Pure:
// shapes in (./shapes.ts), staged entries out; src/services/lending/store.ts reads and writes.
import {
  allocatePayment,
  compareDates,
  daysBetween,
  Dec,
  money,
  outstanding,
  round2,
  toMoneyString,
  type Decimal,
  type PaymentSlice,
} from '../../../domain/index.ts';
import { conflict, unprocessable } from '../../../domain/errors.ts';
import type {
  CreditShape,
  CreditStatus,
  EntryShape,
  InstallmentShape,
  InstallmentStatus,
  NewEntry,
  PaymentShape,
} from './shapes.ts';
import {
  addPayment,
  applyEntry,
  balanceOf,
  buildStates,
  chargePostings,
  chargesAsOf,
  creditTerms,
  cumulativeOf,
  punitoryPostings,
  statusOf,
  stopDate,
  type InstallmentState,
} from './state.ts';

/** Who acts (the actor written on entries) and the business's time zone (a write-off's date). */
export interface Acting {
  actor: string;
  timezone: string;
}

/** A payment to record: its slices are among the staged entries. */
export interface StagedPayment {
  id: string;
  amount: string;
  paid_on: string;
  branch_id: string | null;
  created_by: string;
  method: string;
  channel: string | null;
  external_reference: string | null;
}

/** What a use case has decided to write on the credit; written in one statement by the store. */
export interface Staged {
  entries: NewEntry[];
  /** the new punitory watermark; null: unchanged */
  accruedThrough: string | null;
  payment: StagedPayment | null;
  reversal: { paymentId: string; reason: string; by: string } | null;
}

/**
 * One credit's book: typed on the engine's shapes, carried as whatever rows the caller read (the
 * type parameters), so what the use case returns is still its rows.
 */
export interface Book<
  C extends CreditShape = CreditShape,
  I extends InstallmentShape = InstallmentShape,
  E extends EntryShape = EntryShape,
  P extends PaymentShape = PaymentShape,
> {
  credit: C;
  installments: I[];
  ledger: E[];
  /** every payment of the credit, reversed ones included, in the order they apply */
  payments: P[];
  /** the date punitory is posted through (credit_accruals), null when never */
  postedThrough: string | null;
  /** an installment's punitory stopped at the storable maximum in a posting of this use case */
  atStorableMax: boolean;
  staged: Staged;
}

export const nothingStaged = (): Staged => ({ entries: [], accruedThrough: null, payment: null, reversal: null });

export function openBook<
  C extends CreditShape,
  I extends InstallmentShape,
  E extends EntryShape,
  P extends PaymentShape,
>(credit: C, installments: I[], ledger: E[], payments: P[], postedThrough: string | null): Book<C, I, E, P> {
  return { credit, installments, ledger, payments, postedThrough, atStorableMax: false, staged: nothingStaged() };
}

export function positiveAmount(amount: number | string, path = '/amount'): Decimal {
  const d = money(amount);
  if (d.lte(0)) throw unprocessable('amount must be greater than 0', [{ path, message: 'must be > 0' }]);
  return d;
}

/** The installments' states from the ledger as written plus what is staged. */
export function statesOf(l: Book): InstallmentState[] {
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
      charge_part: String(e.charge_part ?? 0),
      fees_part: String(e.fees_part ?? 0),
      insurance_part: String(e.insurance_part ?? 0),
      created_at: at,
    })),
  ]);
}

/**
 * Posts the punitory owed as of asOf (idempotent: cumulative − posted), effective asOf, and moves
 * the watermark there (never backwards): a posting at an event. Returns the installments' states
 * with what it staged: what statesOf(l) would now give.
 */
export function postPunitory(ctx: Acting, l: Book, asOf: string): InstallmentState[] {
  const terms = creditTerms(l.credit);
  const stop = stopDate(l.credit, ctx.timezone);
  const states = statesOf(l);
  const first = l.staged.entries.length;
  // the collection charges whose day has come by asOf, each dated its day (docs/domain.md "Fees
  // and charges"): they do not move punitory, so one reading of the states serves both
  for (const c of chargePostings(states, terms, asOf, stop))
    l.staged.entries.push({
      id: crypto.randomUUID(),
      installment_id: c.state.id,
      type: 'charge',
      origin: c.amount.lt(0) ? 'correction' : 'fee',
      amount: toMoneyString(c.amount),
      vat_part: toMoneyString(c.vat),
      effective_date: c.date,
      branch_id: l.credit.branch_id,
      created_by: ctx.actor,
    });
  const { postings, atStorableMax } = punitoryPostings(states, terms, asOf, stop);
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
  // what it staged, on the states it read: punitory and charge entries only add to an
  // installment's sums (never to its payment history, the one thing the entries' order decides),
  // so this is the state statesOf(l) would rebuild from the whole ledger
  const byId = new Map(states.map((s) => [s.id, s]));
  for (let k = first; k < l.staged.entries.length; k++) {
    const e = l.staged.entries[k]!;
    applyEntry(byId.get(e.installment_id)!, e as unknown as EntryShape);
  }
  return states;
}

export type SliceOrigin = 'payment' | 'correction' | 'reversal' | 'rebate' | 'refinance';

/** One entry per slice, of the payment paymentId, effective paidOn. */
export function stageSlices(
  ctx: Acting,
  l: Book,
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
      charge_part: toMoneyString(s.charge),
      fees_part: toMoneyString(s.fees),
      insurance_part: toMoneyString(s.insurance),
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
  charge: ZERO,
  vat: ZERO,
  interest: ZERO,
  fees: ZERO,
  insurance: ZERO,
});
const addSlice = (a: PaymentSlice, b: PaymentSlice, sign = 1): PaymentSlice => ({
  installmentId: a.installmentId,
  amount: a.amount.plus(b.amount.times(sign)),
  principal: a.principal.plus(b.principal.times(sign)),
  punitory: a.punitory.plus(b.punitory.times(sign)),
  charge: a.charge.plus(b.charge.times(sign)),
  vat: a.vat.plus(b.vat.times(sign)),
  interest: a.interest.plus(b.interest.times(sign)),
  fees: a.fees.plus(b.fees.times(sign)),
  insurance: a.insurance.plus(b.insurance.times(sign)),
});
const sliceOf = (e: EntryShape): PaymentSlice => {
  const punitory = money(e.punitory_part);
  const charge = money(e.charge_part ?? 0);
  return {
    installmentId: e.installment_id,
    amount: money(e.amount),
    principal: money(e.amount).minus(punitory).minus(charge),
    punitory,
    charge,
    vat: money(e.vat_part),
    interest: money(e.interest_part),
    fees: money(e.fees_part ?? 0),
    insurance: money(e.insurance_part ?? 0),
  };
};
const isZeroSlice = (s: PaymentSlice) =>
  s.amount.isZero() &&
  s.punitory.isZero() &&
  s.charge.isZero() &&
  s.vat.isZero() &&
  s.interest.isZero() &&
  s.fees.isZero() &&
  s.insurance.isZero();

/** Per installment, the net of these entries (in installment order of first appearance). */
function netSlices(entries: EntryShape[]): Map<string, PaymentSlice> {
  const out = new Map<string, PaymentSlice>();
  for (const e of entries)
    out.set(e.installment_id, addSlice(out.get(e.installment_id) ?? zeroSlice(e.installment_id), sliceOf(e)));
  return out;
}

/** A payment as the allocation replays it. */
export interface Replayed {
  id: string;
  amount: Decimal;
  paidOn: string;
  /** the new payment (its refusal names its own amount) */
  isNew: boolean;
}

/**
 * Allocates these payments again from the schedule alone, in order, each against what was owed on
 * its date (punitory as of that date, given the payments before it), as if no other payment had
 * ever been made: what a reversal or a payment dated before others leaves (docs/domain.md, "Payment
 * reversal"). A payment's early-payoff rebate applies just before it. Throws 422 when a payment no
 * longer fits (a backdated payment that, with the later ones, would pay more than is owed).
 */
export function replay(ctx: Acting, l: Book, payments: Replayed[]): Map<string, PaymentSlice[]> {
  const terms = creditTerms(l.credit);
  const stop = stopDate(l.credit, ctx.timezone);
  const states = buildStates(l.installments, []);
  const byId = new Map(states.map((s) => [s.id, s]));
  const order = new Map(l.installments.map((i) => [i.id, i.number]));
  const rebates = [...l.ledger, ...(l.staged.entries as unknown as EntryShape[])].filter((e) => e.origin === 'rebate');
  // waivers are not payments: they stand as written, each counted from its date on (a payment of
  // the same date comes after them). Collection charges are what the rule gives from the replayed
  // history, as punitory is: written ones are brought in line by the next posting
  const notCash = [...l.ledger, ...(l.staged.entries as unknown as EntryShape[])]
    .filter((e) => e.type === 'waiver')
    .sort((a, b) => compareDates(a.effective_date, b.effective_date));
  let nextNotCash = 0;
  const out = new Map<string, PaymentSlice[]>();
  for (const p of payments) {
    while (nextNotCash < notCash.length && compareDates(notCash[nextNotCash]!.effective_date, p.paidOn) <= 0) {
      const e = notCash[nextNotCash++]!;
      const s = byId.get(e.installment_id);
      if (s) applyEntry(s, e);
    }
    const own = netSlices(rebates.filter((e) => e.payment_id === p.id));
    const written = [...own.values()].filter((s) => !isZeroSlice(s));
    if (written.length > 0) {
      // a rebate belongs to the payment that earned it: one that is no longer the payoff of its
      // date (a reversal or a backdated payment changed what came before) is an ordinary payment,
      // and its rebate is reversed; one that still is keeps the rebate of its date
      let keep = written;
      if (!p.isNew) {
        const quote = payoffOfStates(l.credit, states, terms, stop, p.paidOn);
        keep = quote.breakdown.rebate.gt(0) && p.amount.eq(quote.amount) ? quote.rebates : [];
        const diffs = rebateChanges(written, keep, order);
        if (diffs.length > 0) {
          const payment = l.payments.find((x) => x.id === p.id);
          stageSlices(ctx, l, diffs, {
            origin: 'rebate',
            paymentId: p.id,
            paidOn: p.paidOn,
            branchId: payment?.branch_id ?? l.credit.branch_id,
          });
        }
      }
      for (const r of keep) addPayment(byId.get(r.installmentId)!, { paidOn: p.paidOn, ...r });
    }
    // what the rebate leaves paid beyond an installment's amount (interest of a period not begun,
    // prepaid) is taken back and paid toward the installments still owing
    const back = takeBackBeyond(states, p.paidOn);
    const available = back.reduce((sum, b) => sum.minus(b.amount), p.amount);
    // the charges owed on its date: each from the payments before its charge day (all allocated by now)
    if (terms.collection) for (const s of states) s.chargesPosted = chargesAsOf(s, terms, p.paidOn, stop);
    const balances = states.map((s) =>
      balanceOf(s, cumulativeOf(s, terms, p.paidOn, stop).minus(s.punitoryPaid).minus(s.punitoryWaived)),
    );
    const allocation = allocatePayment(available, balances);
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
    const merged = new Map<string, PaymentSlice>();
    for (const sl of [...back, ...allocation.slices])
      merged.set(sl.installmentId, addSlice(merged.get(sl.installmentId) ?? zeroSlice(sl.installmentId), sl));
    out.set(
      p.id,
      [...merged.values()].sort((a, b) => order.get(a.installmentId)! - order.get(b.installmentId)!),
    );
  }
  return out;
}

/**
 * What an installment holds paid beyond its amount (a rebate wrote off interest already prepaid),
 * taken back from each part in the allocation's order: one negative slice per such installment,
 * applied to the states (dated paidOn).
 */
function takeBackBeyond(states: InstallmentState[], paidOn: string): PaymentSlice[] {
  const back: PaymentSlice[] = [];
  for (const s of states) {
    const over = s.principalPaid.minus(s.amount);
    if (over.lte(0)) continue;
    // each part paid beyond what it carries, in the allocation's order
    let left = over;
    const beyond = (paid: Decimal, due: Decimal) => {
      const x = Dec.min(left, Dec.max(paid.minus(due), ZERO));
      left = left.minus(x);
      return x;
    };
    const fees = beyond(s.feesPaid, s.fees);
    const insurance = beyond(s.insurancePaid, s.insurance);
    const vat = beyond(s.vatPaid, s.vat);
    const interest = beyond(s.interestPaid, s.interest);
    const slice = {
      installmentId: s.id,
      amount: over.neg(),
      principal: over.neg(),
      punitory: ZERO,
      charge: ZERO,
      vat: vat.neg(),
      interest: interest.neg(),
      fees: fees.neg(),
      insurance: insurance.neg(),
    };
    addPayment(s, { paidOn, ...slice });
    back.push(slice);
  }
  return back;
}

/** The rebate entries that bring a payment's written rebate to the one it should carry. */
function rebateChanges(written: PaymentSlice[], wanted: PaymentSlice[], order: Map<string, number>): PaymentSlice[] {
  const net = new Map<string, PaymentSlice>();
  for (const w of wanted) net.set(w.installmentId, addSlice(net.get(w.installmentId) ?? zeroSlice(w.installmentId), w));
  for (const w of written)
    net.set(w.installmentId, addSlice(net.get(w.installmentId) ?? zeroSlice(w.installmentId), w, -1));
  return [...net.values()]
    .filter((s) => !isZeroSlice(s))
    .sort((a, b) => order.get(a.installmentId)! - order.get(b.installmentId)!);
}

/**
 * Brings every active payment's entries in line with the replay: a correction entry (effective on
 * the payment's date) per installment whose slice changed. Nothing written is edited.
 */
export function stageCorrections(ctx: Acting, l: Book, replayed: Map<string, PaymentSlice[]>, skip: string | null) {
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

/** Entries cancelling a payment's slices (its rebate's too), dated like it, and the payment marked reversed. */
export function stageReversal(ctx: Acting, l: Book, payment: PaymentShape, reason: string): void {
  const own = netSlices(l.ledger.filter((e) => e.payment_id === payment.id));
  stageSlices(
    ctx,
    l,
    [...own.values()].filter((s) => !isZeroSlice(s)).map((s) => addSlice(zeroSlice(s.installmentId), s, -1)),
    { origin: 'reversal', paymentId: payment.id, paidOn: payment.paid_on, branchId: payment.branch_id },
  );
  l.staged.reversal = { paymentId: payment.id, reason, by: ctx.actor };
}

/** The active payments in the order they apply, as the replay takes them. */
export function activePayments(l: Book): Replayed[] {
  return l.payments
    .filter((p) => p.reversed_at === null)
    .map((p) => ({ id: p.id, amount: money(p.amount), paidOn: p.paid_on, isNew: false }));
}

/** The statuses once what is staged is written: the installments whose status or paid_date moved, and the credit's new status (null: unchanged). */
export function settle(l: Book): {
  moved: { id: string; status: InstallmentStatus; paid_date: string | null }[];
  creditStatus: CreditStatus | null;
} {
  // each installment's status once: it decides both what moved and whether all is paid
  const next = new Map(statesOf(l).map((s) => [s.id, statusOf(s)]));
  const moved: { id: string; status: InstallmentStatus; paid_date: string | null }[] = [];
  for (const inst of l.installments) {
    const n = next.get(inst.id)!;
    if (n.status !== inst.status || n.paidDate !== inst.paid_date)
      moved.push({ id: inst.id, status: n.status, paid_date: n.paidDate });
  }
  const allPaid = [...next.values()].every((n) => n.status === 'paid');
  const creditStatus =
    allPaid && l.credit.status === 'active' ? 'closed' : !allPaid && l.credit.status === 'closed' ? 'active' : null;
  return { moved, creditStatus };
}

/** Posts punitory up to `date`, or up to what is already posted when that is later. */
export function postThrough(ctx: Acting, l: Book, date: string): void {
  postPunitory(ctx, l, l.postedThrough && compareDates(l.postedThrough, date) > 0 ? l.postedThrough : date);
}

// ---------------------------------------------------------------- early payoff

export interface Payoff {
  asOf: string;
  amount: Decimal;
  /** paid beyond what settles the credit (interest of periods not begun): then amount is 0 */
  refundable: Decimal;
  breakdown: {
    /** the amount still owed of installments due on or before asOf */
    due: Decimal;
    /** their punitory, posted and accrued, less what is paid and waived of it */
    punitory: Decimal;
    /** collection charges owed on any installment (posted, or whose day has come), less what is paid and waived of them */
    charges: Decimal;
    /** of installments due later: the principal, and the interest and VAT accrued in the current period */
    principal: Decimal;
    interest: Decimal;
    vat: Decimal;
    /** of installments due later: the insurance and fees (their VAT included) of the period begun */
    insurance: Decimal;
    fees: Decimal;
    /** interest, insurance, fees and VAT not owed: written off by a payment of exactly `amount` */
    rebate: Decimal;
  };
  /** per installment due later, the interest and VAT written off */
  rebates: PaymentSlice[];
}

/**
 * A floor under what a payoff quote of these states as of asOf can come to (payoffOfStates's
 * `owed`, before it is floored at 0), far cheaper than the quote: no punitory, no charges
 * computed. A payment of less than it cannot be the payoff, so it need not be quoted. Term by term
 * against payoffOfStates:
 * - an installment due on or before asOf adds amount − principalPaid to `due`, and to `punitory`
 *   its cumulative punitory less what is paid and waived of it; the cumulative figure is never
 *   below 0 (cumulativePunitory floors it at 0, and its VAT is at a rate ≥ 0), so at least
 *   −(punitoryPaid + punitoryWaived);
 * - `charges` is a sum of max(…, 0): at least 0;
 * - an installment due later adds gross − principalPaid to `later`, gross being its amount less
 *   its interest, VAT, fees and insurance, plus of each of these what is accrued: the part itself,
 *   0, or round2(part × share) with share in [0, 1], so at least min(part, 0) (0 for the
 *   installments the database holds: their parts are ≥ 0, constraint installments_parts).
 */
export function payoffFloor(states: InstallmentState[], asOf: string): Decimal {
  let floor = ZERO;
  const negative = (d: Decimal) => (d.isNeg() ? d : ZERO);
  for (const s of states) {
    if (compareDates(s.dueDate, asOf) <= 0)
      floor = floor.plus(s.amount).minus(s.principalPaid).minus(s.punitoryPaid).minus(s.punitoryWaived);
    else
      floor = floor
        .plus(s.amount.minus(s.interest).minus(s.vat).minus(s.fees).minus(s.insurance))
        .plus(negative(s.interest))
        .plus(negative(s.vat))
        .plus(negative(s.fees))
        .plus(negative(s.insurance))
        .minus(s.principalPaid);
  }
  return floor;
}

/** What settles the credit on asOf (docs/domain.md, "Early payoff"), from the ledger as it stands. */
export function payoffOf(ctx: Acting, l: Book, asOf: string): Payoff {
  return payoffOfStates(l.credit, statesOf(l), creditTerms(l.credit), stopDate(l.credit, ctx.timezone), asOf);
}

/** A payoff breakdown with every figure 0 (what a credit that no longer accrues owes). */
export function zeroBreakdown(): Payoff['breakdown'] {
  return {
    due: ZERO,
    punitory: ZERO,
    charges: ZERO,
    principal: ZERO,
    interest: ZERO,
    vat: ZERO,
    insurance: ZERO,
    fees: ZERO,
    rebate: ZERO,
  };
}

/**
 * The payoff from installments' states (as written, or as a replay rebuilds them). Installments due
 * later owe their principal and the interest and VAT accrued in the current period; what is paid
 * of them counts in full, across installments: a prepayment that went to interest of a period not
 * begun pays toward the principal of the others.
 */
export function payoffOfStates(
  credit: Pick<CreditShape, 'start_date'>,
  states: InstallmentState[],
  terms: ReturnType<typeof creditTerms>,
  stop: string | null,
  asOf: string,
): Payoff {
  const b = zeroBreakdown();
  const rebates: PaymentSlice[] = [];
  let prevDue = credit.start_date;
  // of installments due later: what they owe in all, less what is paid of them (may be negative)
  let later = ZERO;
  for (const s of states) {
    // the collection charges owed as of asOf, posted or not yet, less what is paid and waived
    b.charges = b.charges.plus(
      Dec.max(chargesAsOf(s, terms, asOf, stop).minus(s.chargesPaid).minus(s.chargesWaived), ZERO),
    );
    if (compareDates(s.dueDate, asOf) <= 0) {
      const amountPart = s.amount.minus(s.principalPaid);
      const punitory = cumulativeOf(s, terms, asOf, stop).minus(s.punitoryPaid).minus(s.punitoryWaived);
      b.due = b.due.plus(amountPart);
      b.punitory = b.punitory.plus(punitory);
    } else {
      // the current period earns interest pro rata to its days elapsed; later periods none
      const period = daysBetween(prevDue, s.dueDate);
      const elapsed = compareDates(prevDue, asOf) < 0 ? daysBetween(prevDue, asOf) : 0;
      const share = period > 0 ? Dec.min(new Dec(elapsed).div(period), 1) : ZERO;
      const accruedInterest = round2(s.interest.times(share));
      const accruedVat = round2(s.vat.times(share));
      // the insurance and the fees (with their VAT) of a period are owed in full once it has begun,
      // none of them before (docs/domain.md, "Early payoff")
      const begun = elapsed > 0;
      const accruedFees = begun ? s.fees : ZERO;
      const accruedInsurance = begun ? s.insurance : ZERO;
      // owed of it: its principal and what is accrued, less everything paid of its amount
      const principal = s.amount.minus(s.interest).minus(s.vat).minus(s.fees).minus(s.insurance);
      const gross = principal.plus(accruedInterest).plus(accruedVat).plus(accruedFees).plus(accruedInsurance);
      const net = gross.minus(s.principalPaid);
      later = later.plus(net);
      // what is owed goes to the parts in the allocation's order
      let owed = Dec.max(net, ZERO);
      const part = (accrued: Decimal, paid: Decimal) => {
        const x = Dec.min(Dec.max(accrued.minus(paid), ZERO), owed);
        owed = owed.minus(x);
        return x;
      };
      b.fees = b.fees.plus(part(accruedFees, s.feesPaid));
      b.insurance = b.insurance.plus(part(accruedInsurance, s.insurancePaid));
      b.vat = b.vat.plus(part(accruedVat, s.vatPaid));
      b.interest = b.interest.plus(part(accruedInterest, s.interestPaid));
      // the rebate: what of its amount is not owed (a payment of exactly the quote writes it off;
      // what was paid of it beyond that moves to the installments still owing)
      const rebate = s.amount.minus(gross);
      if (rebate.gt(0)) {
        const fees = s.fees.minus(accruedFees);
        const insurance = s.insurance.minus(accruedInsurance);
        const rebateVat = Dec.min(rebate.minus(fees).minus(insurance), Dec.max(s.vat.minus(accruedVat), ZERO));
        b.rebate = b.rebate.plus(rebate);
        rebates.push({
          installmentId: s.id,
          amount: rebate,
          principal: rebate,
          punitory: ZERO,
          charge: ZERO,
          vat: rebateVat,
          interest: rebate.minus(fees).minus(insurance).minus(rebateVat),
          fees,
          insurance,
        });
      }
    }
    prevDue = s.dueDate;
  }
  // the principal: what the later installments owe beyond the interest and VAT accrued, less the
  // prepayments (negative when these exceed it)
  b.principal = later.minus(b.interest).minus(b.vat).minus(b.fees).minus(b.insurance);
  const owed = b.due.plus(b.punitory).plus(b.charges).plus(later);
  // prepayments beyond what settles the credit (interest of periods not begun, already paid):
  // the quote is 0 and says what would be refunded (docs/domain.md, "Early payoff")
  return { asOf, amount: Dec.max(owed, ZERO), refundable: Dec.max(owed.neg(), ZERO), breakdown: b, rebates };
}

// ---------------------------------------------------------------- payoff close

/**
 * Closes a credit whose payoff on asOf is 0 (what was paid toward installments due later exceeds
 * what settles it; docs/domain.md, "Early payoff"), with no cash coming in: punitory posted up to
 * asOf, the rebate of the interest (insurance, fees, VAT) not owed written as entries of origin
 * `rebate` of the close `closeId`, then what those leave paid beyond each installment's amount
 * taken back (origin `correction`, negative) and paid toward any installment still owing; the rest
 * is the refund, handed back to the client. Returns the refund. A quote above 0 is 409 (pay it
 * instead); nothing is staged then but the punitory posting (the caller writes nothing on a refusal).
 */
export function stagePayoffClose(
  ctx: Acting,
  l: Book,
  asOf: string,
  closeId: string,
  branchId: string | null,
): { refund: Decimal; quote: Payoff } {
  if (l.postedThrough === null || compareDates(asOf, l.postedThrough) > 0) postPunitory(ctx, l, asOf);
  const quote = payoffOf(ctx, l, asOf);
  if (quote.amount.gt(0))
    throw conflict(
      `the payoff on ${asOf} is ${toMoneyString(quote.amount)}: the credit is closed by paying it (POST /api/credits/{id}/payments with that amount and paid_on ${asOf}), not by a close without payment`,
    );
  const terms = creditTerms(l.credit);
  const stop = stopDate(l.credit, ctx.timezone);
  stageSlices(ctx, l, quote.rebates, { origin: 'rebate', paymentId: closeId, paidOn: asOf, branchId });
  const states = statesOf(l);
  const back = takeBackBeyond(states, asOf);
  const available = back.reduce((sum, b) => sum.minus(b.amount), ZERO);
  const balances = states.map((s) =>
    balanceOf(s, cumulativeOf(s, terms, asOf, stop).minus(s.punitoryPaid).minus(s.punitoryWaived)),
  );
  const allocation = allocatePayment(available, balances);
  const order = new Map(l.installments.map((i) => [i.id, i.number]));
  const merged = new Map<string, PaymentSlice>();
  for (const sl of [...back, ...allocation.slices])
    merged.set(sl.installmentId, addSlice(merged.get(sl.installmentId) ?? zeroSlice(sl.installmentId), sl));
  stageSlices(
    ctx,
    l,
    [...merged.values()]
      .filter((x) => !isZeroSlice(x))
      .sort((a, b) => order.get(a.installmentId)! - order.get(b.installmentId)!),
    { origin: 'correction', paymentId: closeId, paidOn: asOf, branchId },
  );
  return { refund: allocation.unallocated, quote };
}
