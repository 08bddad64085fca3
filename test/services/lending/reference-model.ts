// The day-by-day reference model of a book (docs/lending-engine.md, "The daily run"):
// what posting punitory every day would show on any day, computed the literal way, one day at a
// time, independently of the closed form in src/domain/punitory.ts. The API-driven test compares
// every installment, credit and summary figure with it on every day.
//
// For each installment the model walks the days after its due date: each chargeable day adds
// rate × base (simple_outstanding: the amount unpaid that day; full_amount: the amount;
// compound: the amount unpaid + the punitory accrued so far − the punitory paid, both before VAT);
// a payment counts from the day after it is made; max_punitory_days and the write-off date end the
// chargeable days. The net figure of a day is that sum rounded to the cent, capped (and never above
// the storable maximum), and 0 while the installment is not later than its grace (grace is a
// tolerance: paid in full within it, nothing is owed; once the days late exceed it, every day
// counts). Its grace is the larger of grace_days and the business-day tolerance: a due date on a
// Saturday or a Sunday is not late while the installment is paid by the next Monday (docs/domain.md
// "Business days"; the model knows weekends, the tests have no holidays). The figure shown is the
// net figure with its VAT: min(round2(net × (1 + vat_rate)), the storable maximum).
//
// Payments are allocated as docs/domain.md says (oldest installment first, its punitory before its
// amount) against what was owed on their paid_on, with src/domain allocatePayment (tested on its
// own); inside an installment the amount's VAT, interest and principal do not change any figure
// the model shows, so it allocates at the amount's level. Accepted payments are walked in date
// order (one day's in the order they were recorded), whatever order they were recorded in: a
// payment recorded after its paid_on, even before another payment's date (backdated), changes the
// history from its date, and a reversed payment is walked no more. The figures of every day from
// the day such an event is recorded on are recomputed with it; those of earlier days are not.
//
// Waivers of punitory (docs/domain.md "Fees and charges") are taken off what an installment owes
// from the day they are recorded, before that day's payments; they never change the accrual. A
// waiver is refused when not positive or above the installment's punitory unpaid that day.
//
// The collection charge (docs/domain.md "Fees and charges"), when the credit has one: on the day an
// installment becomes after_days late (due + after_days), before that day's payments, it is
// charged its total (VAT included) when some of its amount is still unpaid and the credit was not
// written off before; it is owed from that day and paid first, before the installment's punitory
// (allocatePayment's chargesOwed). Like punitory, a payment recorded later but dated before that
// day changes the history from the day it is recorded: the walk decides the charge again.
//
// Payments are accepted or refused as the API does: refused on a closed credit, when not positive,
// dated in the future or before the credit's start, or when, walked with the accepted payments in
// date order, some payment could no longer be fully allocated (more than owed, counting the later
// payments). A reversal is refused for a payment that was not accepted or is already reversed, and
// when without it some later payment could no longer be allocated. The scenarios never pay exactly
// an early-payoff quote (their amounts are shares of the outstanding balance: at most 60 % of it,
// or all of it, or more), so no payment carries a rebate.
import {
  Dec,
  STORABLE_MAX,
  allocatePayment,
  dayNumber,
  fromDay,
  money,
  round2,
  type Decimal,
  type PunitoryTerms,
} from '../../../src/domain/index.ts';

type Money = string | number | Decimal;

export interface ModelCredit {
  id: string;
  startDate: string;
  /** the schedule as created: amount and due date of each installment, numbered from 1, and the
   *  interest and VAT in its amount (absent: none; only the payoff reads them) */
  installments: {
    number: number;
    amount: Money;
    dueDate: string;
    interest?: Money;
    /** the interest's VAT */
    vat?: Money;
    /** the period's insurance and fees, each with its VAT (absent: none; only the payoff reads them) */
    insurance?: Money;
    fees?: Money;
  }[];
  /** the punitory terms snapshotted on the credit */
  terms: PunitoryTerms;
  /** the VAT on punitory, a fraction (absent: none) */
  vatRate?: Money;
  /** the business date of the write-off, if written off: no later day is chargeable */
  writtenOffOn?: string | null;
  /** the plan's collection charge: its total (VAT included) and the days late that charge it (absent: none) */
  collection?: { total: Money; afterDays: number } | null;
}

export interface ModelPayment {
  kind?: 'pay';
  creditId: string;
  /** the day it is registered (the API's today) */
  recordedOn: string;
  paidOn: string;
  amount: Money;
}

/** The reversal of a payment, recorded on a day (the API's today). */
export interface ModelReversal {
  kind: 'reverse';
  creditId: string;
  recordedOn: string;
  /** the payment reversed: its index in the events given to the model */
  payment: number;
}

/**
 * A waiver of punitory on one installment, recorded on a day (the API's today) and effective that
 * day (docs/domain.md "Fees and charges"): accepted when 0 < amount ≤ the punitory that daily
 * posting would have posted by then, less what is paid and already waived of it. It never changes
 * how punitory accrues; it is taken off what is owed, before that day's payments.
 */
export interface ModelWaiver {
  kind: 'waive';
  creditId: string;
  recordedOn: string;
  installment: number;
  amount: Money;
}

export type ModelEvent = ModelPayment | ModelReversal | ModelWaiver;

export type Rejection =
  | 'closed'
  | 'not_positive'
  | 'future'
  | 'before_start'
  | 'exceeds_outstanding'
  /** a reversal of an event that is no accepted payment of the credit */
  | 'not_a_payment'
  | 'already_reversed'
  /** a reversal that would leave a later payment more than the credit owes */
  | 'no_longer_fits'
  /** a waiver of more than the installment's punitory unpaid that day */
  | 'exceeds_unpaid';
export type Verdict = { accepted: true } | { accepted: false; reason: Rejection };

export interface SliceView {
  paidOn: string;
  principal: Decimal;
  /** VAT included */
  punitory: Decimal;
  /** of the collection charge, VAT included */
  charge: Decimal;
}

export interface InstallmentView {
  number: number;
  dueDate: string;
  amount: Decimal;
  /** what daily posting would have posted by this day, VAT included (the API's punitory_posted + punitory_accrued) */
  punitory: Decimal;
  principalPaid: Decimal;
  punitoryPaid: Decimal;
  /** punitory waived (VAT included) */
  waived: Decimal;
  /** the collection charge owed (VAT included), 0 when none; and what is paid of it */
  charges: Decimal;
  chargesPaid: Decimal;
  /** principalPaid + punitoryPaid + chargesPaid */
  paid: Decimal;
  /** amount + punitory + charges − waived − paid (negative when a recomputation left punitory overpaid) */
  outstanding: Decimal;
  status: 'pending' | 'partial' | 'paid';
  overdue: boolean;
  /** docs/domain.md "Delinquency": days since due while overdue; when paid, how late it was paid */
  daysLate: number;
  /** this installment's payment slices so far, in date order */
  slices: readonly SliceView[];
}

export interface CreditView {
  id: string;
  status: 'active' | 'closed' | 'written_off';
  installments: InstallmentView[];
  outstanding: Decimal;
  /** outstanding of the installments due before this day that still owe something */
  overdue: Decimal;
  /** days late of its oldest overdue installment, 0 when none */
  daysLate: number;
  /** the payments known this day (accepted, recorded by then, not reversed by then), in date order */
  payments: readonly { paidOn: string; amount: Decimal }[];
}

const ZERO = new Dec(0);

/**
 * Days from a due date to the next weekday: 2 on a Saturday, 1 on a Sunday, else 0 (no holidays
 * in the tests). Computed here from the calendar, not by src/domain/businessDays.ts.
 */
export function weekendTolerance(dueDate: string): number {
  const weekday = new Date(`${dueDate}T00:00:00Z`).getUTCDay();
  return weekday === 6 ? 2 : weekday === 0 ? 1 : 0;
}

/** One installment's running state during a walk. */
interface Cell {
  number: number;
  due: number;
  amount: Decimal;
  /** max(grace_days, the weekend tolerance of its due date) */
  grace: number;
  /** punitory accrued so far, unrounded, ungraced, uncapped, before VAT */
  raw: Decimal;
  principalPaid: Decimal;
  /** VAT included */
  punitoryPaid: Decimal;
  /** punitory waived so far, VAT included */
  waived: Decimal;
  /** the day it becomes collection-charge late (due + after_days), null when the plan has none */
  chargeDay: number | null;
  /** the collection charge decided on that day (VAT included), and what is paid of it */
  charge: Decimal;
  chargePaid: Decimal;
  /** the day the amount was fully paid */
  fullyPaid: number | null;
  /** the day it became paid (amount and punitory), while it is */
  paidDay: number | null;
  slices: SliceView[];
}

interface Walk {
  /** the installments at the end of each day (index: day − the credit's start day) */
  days: readonly Cell[][];
  /** per payment walked, what it could not allocate */
  unallocated: Decimal[];
}

interface Terms extends PunitoryTerms {
  vat: Decimal;
}

/** The figure of one installment on day t: rounded, 0 within grace, capped, then its VAT. */
function punitoryOn(c: Cell, t: number, terms: Terms): Decimal {
  if (t <= c.due) return ZERO;
  const daysLate = (c.fullyPaid ?? t) - c.due;
  if (daysLate <= c.grace) return ZERO;
  // an amount that cannot be stored stops growing at the storable maximum
  let net = Dec.min(round2(c.raw), STORABLE_MAX);
  if (terms.capPct.gt(0)) net = Dec.min(net, round2(terms.capPct.times(c.amount).div(100)));
  net = Dec.max(net, ZERO);
  return terms.vat.isZero() ? net : Dec.min(round2(net.times(terms.vat.plus(1))), STORABLE_MAX);
}

/** Adds day t's punitory to each installment whose day t is chargeable. */
function accrueDay(cells: Cell[], t: number, terms: Terms, stop: number | null) {
  for (const c of cells) {
    const k = t - c.due;
    if (k < 1 || (terms.maxDays > 0 && k > terms.maxDays) || (stop !== null && t > stop)) continue;
    const unpaid = c.amount.minus(c.principalPaid);
    if (unpaid.lte(0)) continue;
    const base =
      terms.mode === 'full_amount'
        ? c.amount
        : terms.mode === 'simple_outstanding'
          ? unpaid
          : // what is paid of punitory pays its VAT with it: the punitory paid, before VAT
            unpaid.plus(c.raw).minus(c.punitoryPaid.div(terms.vat.plus(1)));
    if (base.gt(0)) c.raw = c.raw.plus(terms.dailyRate.times(base));
  }
}

/** Allocates one payment made on day t against what each installment owes that day; returns what is left over. */
function pay(cells: Cell[], t: number, amount: Decimal, terms: Terms): Decimal {
  const balances = cells.map((c) => ({
    id: String(c.number),
    number: c.number,
    amount: c.amount,
    principalPaid: c.principalPaid,
    punitoryOwed: punitoryOn(c, t, terms).minus(c.punitoryPaid).minus(c.waived),
    chargesOwed: c.charge.minus(c.chargePaid),
  }));
  const { slices, unallocated } = allocatePayment(amount, balances);
  for (const s of slices) {
    const c = cells.find((x) => String(x.number) === s.installmentId)!;
    c.principalPaid = c.principalPaid.plus(s.principal);
    c.punitoryPaid = c.punitoryPaid.plus(s.punitory);
    c.chargePaid = c.chargePaid.plus(s.charge);
    if (c.fullyPaid === null && c.principalPaid.gte(c.amount)) c.fullyPaid = t;
    c.slices = [...c.slices, { paidOn: fromDay(t), principal: s.principal, punitory: s.punitory, charge: s.charge }];
  }
  return unallocated;
}

const outstandingOn = (c: Cell, t: number, terms: Terms) =>
  c.amount
    .plus(punitoryOn(c, t, terms))
    .plus(c.charge)
    .minus(c.chargePaid)
    .minus(c.principalPaid)
    .minus(c.punitoryPaid)
    .minus(c.waived);

const termsOf = (credit: ModelCredit): Terms => ({ ...credit.terms, vat: money(credit.vatRate ?? 0) });

function view(credit: ModelCredit, cells: Cell[], t: number, payments: ModelPayment[]): CreditView {
  const terms = termsOf(credit);
  const installments = cells.map((c): InstallmentView => {
    const punitory = punitoryOn(c, t, terms);
    const paid = c.principalPaid.plus(c.punitoryPaid).plus(c.chargePaid);
    const isPaid = c.paidDay !== null;
    const overdue = !isPaid && t > c.due;
    return {
      number: c.number,
      dueDate: fromDay(c.due),
      amount: c.amount,
      punitory,
      principalPaid: c.principalPaid,
      punitoryPaid: c.punitoryPaid,
      waived: c.waived,
      charges: c.charge,
      chargesPaid: c.chargePaid,
      paid,
      outstanding: c.amount.plus(punitory).plus(c.charge).minus(c.waived).minus(paid),
      status: isPaid ? 'paid' : c.slices.length > 0 ? 'partial' : 'pending',
      overdue,
      daysLate: overdue ? t - c.due : isPaid ? Math.max(0, c.paidDay! - c.due) : 0,
      slices: c.slices,
    };
  });
  const late = installments.filter((i) => i.overdue);
  const writtenOff = credit.writtenOffOn != null && t >= dayNumber(credit.writtenOffOn);
  return {
    id: credit.id,
    status: writtenOff ? 'written_off' : installments.every((i) => i.status === 'paid') ? 'closed' : 'active',
    installments,
    outstanding: installments.reduce((a, i) => a.plus(i.outstanding), ZERO),
    overdue: late.reduce((a, i) => a.plus(i.outstanding), ZERO),
    daysLate: late.length ? t - Math.min(...late.map((i) => dayNumber(i.dueDate))) : 0,
    payments: payments.map((p) => ({ paidOn: p.paidOn, amount: money(p.amount) })),
  };
}

/** Every day of one credit from its start to `to`, with these payments (in date order) and waivers. */
function walk(credit: ModelCredit, payments: ModelPayment[], waivers: ModelWaiver[], to: number): Walk {
  const terms = termsOf(credit);
  const cells: Cell[] = [...credit.installments]
    .sort((a, b) => a.number - b.number)
    .map((i) => ({
      number: i.number,
      due: dayNumber(i.dueDate),
      amount: money(i.amount),
      grace: Math.max(credit.terms.graceDays, weekendTolerance(i.dueDate)),
      raw: ZERO,
      principalPaid: ZERO,
      punitoryPaid: ZERO,
      waived: ZERO,
      chargeDay: credit.collection ? dayNumber(i.dueDate) + credit.collection.afterDays : null,
      charge: ZERO,
      chargePaid: ZERO,
      fullyPaid: null,
      paidDay: null,
      slices: [],
    }));
  const stop = credit.writtenOffOn ? dayNumber(credit.writtenOffOn) : null;
  const result: Walk = { days: [], unallocated: [] };
  let next = 0;
  for (let t = dayNumber(credit.startDate); t <= to; t++) {
    accrueDay(cells, t, terms, stop);
    // the day an installment becomes after_days late, before that day's payments: charged when
    // some of its amount is still unpaid (and the credit was not written off before)
    for (const c of cells)
      if (c.chargeDay === t && (stop === null || t <= stop) && c.principalPaid.lt(c.amount))
        c.charge = money(credit.collection!.total);
    // a waiver counts from its day, before that day's payments (the API applies it so)
    for (const w of waivers)
      if (dayNumber(w.recordedOn) === t) {
        const c = cells.find((x) => x.number === w.installment)!;
        c.waived = c.waived.plus(money(w.amount));
      }
    for (; next < payments.length && dayNumber(payments[next]!.paidOn) === t; next++) {
      result.unallocated.push(pay(cells, t, money(payments[next]!.amount), terms));
    }
    // paid: nothing left of its amount nor of its punitory (docs/domain.md "Payments and allocation")
    for (const c of cells) c.paidDay = outstandingOn(c, t, terms).lte(0) ? (c.paidDay ?? t) : null;
    (result.days as Cell[][]).push(cells.map((c) => ({ ...c })));
  }
  return result;
}

/** An accepted payment of a credit: its event index, and the day a reversal of it was recorded. */
interface Accepted {
  n: number;
  p: ModelPayment;
  recorded: number;
  reversedOn: number | null;
}

export class ReferenceModel {
  /** per event given, in the order given: accepted, or why the API refuses it */
  readonly verdicts: Verdict[];
  private readonly credits = new Map<string, ModelCredit>();
  /** per credit, its accepted payments in the order they were recorded */
  private readonly accepted = new Map<string, Accepted[]>();
  /** per credit, its accepted waivers with their event index */
  private readonly waivers = new Map<string, { n: number; w: ModelWaiver }[]>();
  private readonly walks = new Map<string, Walk>();
  private readonly until: number;

  /** `until`: the last day the model is read on. Events of one day apply in the order given. */
  constructor(credits: ModelCredit[], events: ModelEvent[], until: string) {
    this.until = dayNumber(until);
    for (const c of credits) {
      this.credits.set(c.id, c);
      this.accepted.set(c.id, []);
      this.waivers.set(c.id, []);
    }
    this.verdicts = events.map(() => ({ accepted: true }));
    const order = events
      .map((e, n) => ({ e, n }))
      .sort((a, b) => dayNumber(a.e.recordedOn) - dayNumber(b.e.recordedOn) || a.n - b.n);
    for (const { e, n } of order) {
      const reason =
        e.kind === 'reverse' ? this.reversal(e) : e.kind === 'waive' ? this.waiverRefusal(e) : this.refusal(e);
      if (reason) this.verdicts[n] = { accepted: false, reason };
      else if (e.kind === 'waive') this.waivers.get(e.creditId)!.push({ n, w: e });
      else if (e.kind !== 'reverse')
        this.accepted.get(e.creditId)!.push({ n, p: e, recorded: dayNumber(e.recordedOn), reversedOn: null });
    }
  }

  /** The credits that exist on `day` as they stand that day (events recorded by then). */
  on(day: string): CreditView[] {
    return [...this.credits.keys()].flatMap((id) => {
      const v = this.creditOn(id, day);
      return v ? [v] : [];
    });
  }

  /** One credit on `day`; null before it starts. */
  creditOn(creditId: string, day: string): CreditView | null {
    const credit = this.credit(creditId);
    const t = dayNumber(day);
    if (t > this.until) throw new RangeError(`${day} is after the model's last day`);
    const index = t - dayNumber(credit.startDate);
    if (index < 0) return null;
    const known = this.known(creditId, t);
    return view(
      credit,
      this.walkOf(credit, known, this.waiversKnown(creditId, t)).days[index]!,
      t,
      byDate(known).map((a) => a.p),
    );
  }

  /**
   * The early-payoff quote of a credit on `day` (docs/domain.md "Early payoff"), from that day's view:
   * installments due by then owe all they still owe, punitory included; each later one owes its
   * principal and the interest and VAT of its own period pro rata to the days elapsed (none before
   * the period starts) and, once the period has begun, its insurance and fees in full, less what is paid of its amount, which counts in full (a prepayment of
   * interest not owed lowers what the others owe). A credit that no longer accrues quotes 0.
   */
  payoffOn(creditId: string, day: string): Decimal {
    return Dec.max(this.settlesOn(creditId, day), ZERO);
  }

  /**
   * What was paid beyond what settles the credit on `day` (interest of periods not begun, paid in
   * advance): the quote is then 0, and closing the credit without a payment hands this back
   * (docs/domain.md "Early payoff"). 0 otherwise, and for a credit that no longer accrues.
   */
  refundableOn(creditId: string, day: string): Decimal {
    return Dec.max(this.settlesOn(creditId, day).neg(), ZERO);
  }

  /** What settles the credit on `day` less what was paid toward it: negative when paid beyond it. */
  private settlesOn(creditId: string, day: string): Decimal {
    const credit = this.credit(creditId);
    const v = this.creditOn(creditId, day);
    if (!v || v.status === 'closed') return ZERO;
    const t = dayNumber(day);
    let total = ZERO;
    let prev = dayNumber(credit.startDate);
    for (const i of v.installments) {
      const due = dayNumber(i.dueDate);
      const sched = credit.installments.find((x) => x.number === i.number)!;
      if (due <= t) total = total.plus(i.outstanding);
      else {
        const share = due > prev ? new Dec(Math.min(Math.max(t - prev, 0), due - prev)).div(due - prev) : ZERO;
        const interest = money(sched.interest ?? 0);
        const vat = money(sched.vat ?? 0);
        // the insurance and fees of a period are owed in full once it has begun, none before
        const periodFees = money(sched.insurance ?? 0).plus(money(sched.fees ?? 0));
        const owed = i.amount
          .minus(interest)
          .minus(vat)
          .minus(periodFees)
          .plus(round2(interest.times(share)))
          .plus(round2(vat.times(share)))
          .plus(t > prev ? periodFees : ZERO)
          .minus(i.principalPaid);
        // what was paid of it beyond that (interest of a period not begun) counts against the rest
        total = total.plus(owed);
      }
      prev = due;
    }
    return total;
  }

  private credit(id: string): ModelCredit {
    const c = this.credits.get(id);
    if (!c) throw new RangeError(`no credit ${id} in the model`);
    return c;
  }

  /** The payments of a credit known on day t: accepted, recorded by then, not reversed by then. */
  private known(creditId: string, t: number): Accepted[] {
    return this.accepted.get(creditId)!.filter((a) => a.recorded <= t && (a.reversedOn === null || a.reversedOn > t));
  }

  /** The waivers of a credit accepted by day t. */
  private waiversKnown(creditId: string, t: number): { n: number; w: ModelWaiver }[] {
    return this.waivers.get(creditId)!.filter((x) => dayNumber(x.w.recordedOn) <= t);
  }

  /** The walk with these payments and waivers (the sets of their event indices name it). */
  private walkOf(credit: ModelCredit, known: Accepted[], waivers: { n: number; w: ModelWaiver }[]): Walk {
    const key = `${credit.id}/${known
      .map((a) => a.n)
      .sort((a, b) => a - b)
      .join(',')}/${waivers.map((x) => x.n).join(',')}`;
    let w = this.walks.get(key);
    if (!w) {
      w = walk(
        credit,
        byDate(known).map((a) => a.p),
        waivers.map((x) => x.w),
        this.until,
      );
      this.walks.set(key, w);
    }
    return w;
  }

  /** Whether some payment, walked with these in date order up to `to`, can no longer be fully allocated. */
  private overpaid(credit: ModelCredit, payments: Accepted[], to: number, recorded: number): boolean {
    const trial = walk(
      credit,
      byDate(payments).map((a) => a.p),
      this.waiversKnown(credit.id, recorded).map((x) => x.w),
      to,
    );
    return trial.unallocated.some((u) => u.gt(0));
  }

  /** Why the API would refuse this payment, given the events accepted before it. */
  private refusal(p: ModelPayment): Rejection | null {
    const credit = this.credit(p.creditId);
    const recorded = dayNumber(p.recordedOn);
    const paidOn = dayNumber(p.paidOn);
    const start = dayNumber(credit.startDate);
    const known = this.known(p.creditId, recorded);
    if (recorded >= start && this.creditOn(credit.id, p.recordedOn)!.status === 'closed') return 'closed';
    if (money(p.amount).lte(0)) return 'not_positive';
    if (paidOn > recorded) return 'future';
    if (paidOn < start) return 'before_start';
    const self: Accepted = { n: Number.MAX_SAFE_INTEGER, p, recorded, reversedOn: null };
    const last = Math.max(paidOn, ...known.map((a) => dayNumber(a.p.paidOn)));
    return this.overpaid(credit, [...known, self], last, recorded) ? 'exceeds_outstanding' : null;
  }

  /** Why the API would refuse this reversal; accepted, it takes effect from its day. */
  private reversal(r: ModelReversal): Rejection | null {
    const credit = this.credit(r.creditId);
    const recorded = dayNumber(r.recordedOn);
    const target = this.accepted.get(r.creditId)!.find((a) => a.n === r.payment);
    if (!target || target.recorded > recorded) return 'not_a_payment';
    if (target.reversedOn !== null) return 'already_reversed';
    const rest = this.known(r.creditId, recorded).filter((a) => a !== target);
    const last = Math.max(recorded, ...rest.map((a) => dayNumber(a.p.paidOn)));
    if (this.overpaid(credit, rest, last, recorded)) return 'no_longer_fits';
    target.reversedOn = recorded;
    return null;
  }

  /** Why the API would refuse this waiver: not positive, or more than the punitory unpaid that day. */
  private waiverRefusal(w: ModelWaiver): Rejection | null {
    if (money(w.amount).lte(0)) return 'not_positive';
    const v = this.creditOn(w.creditId, w.recordedOn);
    const i = v?.installments.find((x) => x.number === w.installment);
    if (!i) return 'exceeds_unpaid';
    const unpaid = i.punitory.minus(i.punitoryPaid).minus(i.waived);
    return money(w.amount).gt(unpaid) ? 'exceeds_unpaid' : null;
  }
}

/** In date order; payments of one day in the order they were recorded. */
function byDate(payments: Accepted[]): Accepted[] {
  return [...payments].sort(
    (a, b) => dayNumber(a.p.paidOn) - dayNumber(b.p.paidOn) || a.recorded - b.recorded || a.n - b.n,
  );
}
