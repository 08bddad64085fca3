// The day-by-day reference model of a book (issue 9, "bounded growth"): what posting punitory
// every day would show on any day, computed the literal way, one day at a time, independently
// of the closed form in src/domain/punitory.ts. The API-driven test compares every installment,
// credit and summary figure with it on every day.
//
// For each installment the model walks the days after its due date: each chargeable day adds
// rate × base (simple_outstanding: the amount unpaid that day; full_amount: the amount;
// compound: the amount unpaid + punitory accrued so far − punitory paid); a payment counts from
// the day after it is made; max_punitory_days and the write-off date end the chargeable days.
// The figure of a day is that sum rounded to the cent, capped (and never above the storable
// maximum), and 0 while the installment is not later than grace_days (grace is a tolerance: paid
// in full within it, nothing is owed; once the days late exceed it, every day counts). Payments
// are allocated as DOMAIN.md says (oldest installment first, its punitory before its amount)
// against what was owed on their paid_on, with src/domain allocatePayment (tested on its own). A
// payment recorded after its paid_on (backdated) changes the history from its date: the figures
// of every day from the day it is recorded on are recomputed with it, those of earlier days are not.
//
// Payments are accepted or refused as the API does: refused on a closed credit, dated in the
// future or before the credit's start or its latest payment, or for more than it owes on its date.
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
} from '../../src/domain/index.ts';

type Money = string | number | Decimal;

export interface ModelCredit {
  id: string;
  startDate: string;
  /** the schedule as created: amount and due date of each installment, numbered from 1 */
  installments: { number: number; amount: Money; dueDate: string }[];
  /** the punitory terms snapshotted on the credit */
  terms: PunitoryTerms;
  /** the business date of the write-off, if written off: no later day is chargeable */
  writtenOffOn?: string | null;
}

export interface ModelPayment {
  creditId: string;
  /** the day it is registered (the API's today) */
  recordedOn: string;
  paidOn: string;
  amount: Money;
}

export type Rejection =
  | 'closed'
  | 'not_positive'
  | 'future'
  | 'before_start'
  | 'before_last_payment'
  | 'exceeds_outstanding';
export type Verdict = { accepted: true } | { accepted: false; reason: Rejection };

export interface SliceView {
  paidOn: string;
  principal: Decimal;
  punitory: Decimal;
}

export interface InstallmentView {
  number: number;
  dueDate: string;
  amount: Decimal;
  /** what daily posting would have posted by this day (the API's punitory_posted + punitory_accrued) */
  punitory: Decimal;
  principalPaid: Decimal;
  punitoryPaid: Decimal;
  /** principalPaid + punitoryPaid */
  paid: Decimal;
  /** amount + punitory − paid (negative when a recomputation left punitory overpaid) */
  outstanding: Decimal;
  status: 'pending' | 'partial' | 'paid';
  overdue: boolean;
  /** DOMAIN.md "Delinquency": days since due while overdue; when paid, how late it was paid */
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
}

const ZERO = new Dec(0);

/** One installment's running state during a walk. */
interface Cell {
  number: number;
  due: number;
  amount: Decimal;
  /** punitory accrued so far, unrounded, ungraced, uncapped */
  raw: Decimal;
  principalPaid: Decimal;
  punitoryPaid: Decimal;
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

/** The figure of one installment on day t: rounded, 0 within grace, capped. */
function punitoryOn(c: Cell, t: number, terms: PunitoryTerms): Decimal {
  if (t <= c.due) return ZERO;
  const daysLate = (c.fullyPaid ?? t) - c.due;
  if (daysLate <= terms.graceDays) return ZERO;
  // an amount that cannot be stored stops growing at the storable maximum
  let r = Dec.min(round2(c.raw), STORABLE_MAX);
  if (terms.capPct.gt(0)) r = Dec.min(r, round2(terms.capPct.times(c.amount).div(100)));
  return Dec.max(r, ZERO);
}

/** Adds day t's punitory to each installment whose day t is chargeable. */
function accrueDay(cells: Cell[], t: number, terms: PunitoryTerms, stop: number | null) {
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
          : unpaid.plus(c.raw).minus(c.punitoryPaid);
    if (base.gt(0)) c.raw = c.raw.plus(terms.dailyRate.times(base));
  }
}

/** Allocates one payment made on day t against what each installment owes that day; returns what is left over. */
function pay(cells: Cell[], t: number, amount: Decimal, terms: PunitoryTerms): Decimal {
  const balances = cells.map((c) => ({
    id: String(c.number),
    number: c.number,
    amount: c.amount,
    principalPaid: c.principalPaid,
    punitoryOwed: punitoryOn(c, t, terms).minus(c.punitoryPaid),
  }));
  const { slices, unallocated } = allocatePayment(amount, balances);
  for (const s of slices) {
    const c = cells.find((x) => String(x.number) === s.installmentId)!;
    c.principalPaid = c.principalPaid.plus(s.principal);
    c.punitoryPaid = c.punitoryPaid.plus(s.punitory);
    if (c.fullyPaid === null && c.principalPaid.gte(c.amount)) c.fullyPaid = t;
    c.slices = [...c.slices, { paidOn: fromDay(t), principal: s.principal, punitory: s.punitory }];
  }
  return unallocated;
}

const outstandingOn = (c: Cell, t: number, terms: PunitoryTerms) =>
  c.amount
    .plus(punitoryOn(c, t, terms))
    .minus(c.principalPaid)
    .minus(c.punitoryPaid);

function view(credit: ModelCredit, cells: Cell[], t: number): CreditView {
  const installments = cells.map((c): InstallmentView => {
    const punitory = punitoryOn(c, t, credit.terms);
    const paid = c.principalPaid.plus(c.punitoryPaid);
    const isPaid = c.paidDay !== null;
    const overdue = !isPaid && t > c.due;
    return {
      number: c.number,
      dueDate: fromDay(c.due),
      amount: c.amount,
      punitory,
      principalPaid: c.principalPaid,
      punitoryPaid: c.punitoryPaid,
      paid,
      outstanding: c.amount.plus(punitory).minus(paid),
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
  };
}

/** Every day of one credit from its start to `to`, with these payments (in date order). */
function walk(credit: ModelCredit, payments: ModelPayment[], to: number): Walk {
  const cells: Cell[] = [...credit.installments]
    .sort((a, b) => a.number - b.number)
    .map((i) => ({
      number: i.number,
      due: dayNumber(i.dueDate),
      amount: money(i.amount),
      raw: ZERO,
      principalPaid: ZERO,
      punitoryPaid: ZERO,
      fullyPaid: null,
      paidDay: null,
      slices: [],
    }));
  const stop = credit.writtenOffOn ? dayNumber(credit.writtenOffOn) : null;
  const result: Walk = { days: [], unallocated: [] };
  let next = 0;
  for (let t = dayNumber(credit.startDate); t <= to; t++) {
    accrueDay(cells, t, credit.terms, stop);
    for (; next < payments.length && dayNumber(payments[next]!.paidOn) === t; next++) {
      result.unallocated.push(pay(cells, t, money(payments[next]!.amount), credit.terms));
    }
    // paid: nothing left of its amount nor of its punitory (DOMAIN.md "Installment status")
    for (const c of cells) c.paidDay = outstandingOn(c, t, credit.terms).lte(0) ? (c.paidDay ?? t) : null;
    (result.days as Cell[][]).push(cells.map((c) => ({ ...c })));
  }
  return result;
}

export class ReferenceModel {
  /** per payment given, in the order given: accepted, or why the API refuses it */
  readonly verdicts: Verdict[];
  private readonly credits = new Map<string, ModelCredit>();
  /** per credit, its accepted payments in the order they were recorded */
  private readonly accepted = new Map<string, ModelPayment[]>();
  private readonly walks = new Map<string, Walk>();
  private readonly until: number;

  /** `until`: the last day the model is read on. */
  constructor(credits: ModelCredit[], payments: ModelPayment[], until: string) {
    this.until = dayNumber(until);
    for (const c of credits) {
      this.credits.set(c.id, c);
      this.accepted.set(c.id, []);
    }
    this.verdicts = payments.map(() => ({ accepted: true }));
    const order = payments
      .map((p, n) => ({ p, n }))
      .sort((a, b) => dayNumber(a.p.recordedOn) - dayNumber(b.p.recordedOn) || a.n - b.n);
    for (const { p, n } of order) {
      const reason = this.refusal(p);
      if (reason) this.verdicts[n] = { accepted: false, reason };
      else this.accepted.get(p.creditId)!.push(p);
    }
  }

  /** The credits that exist on `day` as they stand that day (payments recorded by then). */
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
    const known = this.accepted.get(creditId)!.filter((p) => dayNumber(p.recordedOn) <= t);
    return view(credit, this.walkOf(credit, known).days[index]!, t);
  }

  private credit(id: string): ModelCredit {
    const c = this.credits.get(id);
    if (!c) throw new RangeError(`no credit ${id} in the model`);
    return c;
  }

  /** The walk with these payments (a prefix of the accepted ones, so their count names it). */
  private walkOf(credit: ModelCredit, known: ModelPayment[]): Walk {
    const key = `${credit.id}/${known.length}`;
    let w = this.walks.get(key);
    if (!w) {
      w = walk(credit, byDate(known), this.until);
      this.walks.set(key, w);
    }
    return w;
  }

  /** Why the API would refuse this payment, given the payments accepted before it. */
  private refusal(p: ModelPayment): Rejection | null {
    const credit = this.credit(p.creditId);
    const accepted = this.accepted.get(p.creditId)!;
    const recorded = dayNumber(p.recordedOn);
    const paidOn = dayNumber(p.paidOn);
    const start = dayNumber(credit.startDate);
    if (
      recorded >= start &&
      view(credit, this.walkOf(credit, accepted).days[recorded - start]!, recorded).status === 'closed'
    )
      return 'closed';
    if (money(p.amount).lte(0)) return 'not_positive';
    if (paidOn > recorded) return 'future';
    if (paidOn < start) return 'before_start';
    if (accepted.some((a) => dayNumber(a.paidOn) > paidOn)) return 'before_last_payment';
    const trial = walk(credit, byDate([...accepted, p]), paidOn);
    return trial.unallocated[trial.unallocated.length - 1]!.gt(0) ? 'exceeds_outstanding' : null;
  }
}

/** In date order; payments of one day in the order they were recorded. */
function byDate(payments: ModelPayment[]): ModelPayment[] {
  return payments
    .map((p, n) => ({ p, n }))
    .sort((a, b) => dayNumber(a.p.paidOn) - dayNumber(b.p.paidOn) || a.n - b.n)
    .map((x) => x.p);
}
