// What each installment owes, rebuilt from its ledger entries, and the punitory to post as of a
// date. Pure: shapes in (./shapes.ts), decimals out. The payment path and the daily run share it
// so both post exactly what the punitory rule gives (docs/domain.md).
import type { CreditStatus, CreditShape, EntryLike, InstallmentLike, TermsSource } from './shapes.ts';
import {
  Dec,
  STORABLE_MAX,
  round2,
  atStorableMax,
  chargeDay,
  collectionChargeOf,
  collectionChargeOwed,
  compareDates,
  cumulativePunitory,
  installmentStatus,
  money,
  punitoryToPost,
  todayIn,
  type CollectionCharge,
  type Decimal,
  type InstallmentBalance,
  type InstallmentPayment,
  type InstallmentStatus,
  type PunitoryTerms,
} from '../../../domain/index.ts';

export type { InstallmentLike };

export interface InstallmentState {
  id: string;
  number: number;
  dueDate: string;
  amount: Decimal;
  /** the interest's VAT and the interest in amount */
  vat: Decimal;
  interest: Decimal;
  /** the fees and the insurance in amount, each with its VAT */
  fees: Decimal;
  insurance: Decimal;
  /** days after a due date that is not a business day before it can be late (src/domain/businessDays.ts) */
  toleranceDays: number;
  /** what is paid of amount (VAT, interest and principal), and of it the VAT and the interest */
  principalPaid: Decimal;
  vatPaid: Decimal;
  interestPaid: Decimal;
  feesPaid: Decimal;
  insurancePaid: Decimal;
  /** punitory posted, VAT included, and the VAT in it */
  punitoryPosted: Decimal;
  punitoryVatPosted: Decimal;
  punitoryPaid: Decimal;
  /** punitory waived (VAT included): no longer owed, though posted (docs/domain.md "Fees and charges") */
  punitoryWaived: Decimal;
  /** charges posted (VAT included), the VAT in them, paid and waived */
  chargesPosted: Decimal;
  chargeVatPosted: Decimal;
  chargesPaid: Decimal;
  chargesWaived: Decimal;
  /** this installment's payment slices, in date order */
  payments: InstallmentPayment[];
}

/** The punitory terms snapshotted on the credit, and the VAT rate its punitory carries. */
export interface CreditTerms extends PunitoryTerms {
  vatRate: Decimal;
  /** the collection charge of the credit's fees (docs/domain.md "Fees and charges"), null when none */
  collection: CollectionCharge | null;
}

/** The punitory terms snapshotted on the credit. */
export function creditTerms(c: TermsSource): CreditTerms {
  const vatRate = money(String(c.vat_rate ?? 0));
  return {
    dailyRate: money(c.daily_punitory_rate),
    mode: c.punitory_mode,
    graceDays: c.grace_days,
    maxDays: c.max_punitory_days,
    capPct: money(c.punitory_cap_pct),
    vatRate,
    collection: collectionChargeOf(c.fees, vatRate),
  };
}

/** The last day punitory can accrue on: the business's calendar date of the write-off. */
export function stopDate(c: Pick<CreditShape, 'written_off_at'>, timezone: string): string | null {
  return c.written_off_at ? todayIn(timezone, new Date(c.written_off_at)) : null;
}

// one zero for every state's sums: a Decimal is never changed in place (each sum is a new one)
const ZERO = new Dec(0);

function emptyState(i: InstallmentLike): InstallmentState {
  const insuranceVat = money(i.insurance_vat ?? 0);
  const feesVat = money(i.fees_vat ?? 0);
  return {
    id: i.id,
    number: i.number,
    dueDate: i.due_date,
    amount: money(i.amount),
    // the installment's vat is that of its interest, insurance and fees together
    vat: money(i.vat ?? 0)
      .minus(insuranceVat)
      .minus(feesVat),
    interest: money(i.interest ?? 0),
    fees: money(i.fees ?? 0).plus(feesVat),
    insurance: money(i.insurance ?? 0).plus(insuranceVat),
    toleranceDays: i.tolerance_days ?? 0,
    principalPaid: ZERO,
    vatPaid: ZERO,
    interestPaid: ZERO,
    feesPaid: ZERO,
    insurancePaid: ZERO,
    punitoryPosted: ZERO,
    punitoryVatPosted: ZERO,
    punitoryPaid: ZERO,
    punitoryWaived: ZERO,
    chargesPosted: ZERO,
    chargeVatPosted: ZERO,
    chargesPaid: ZERO,
    chargesWaived: ZERO,
    payments: [],
  };
}

/** Punitory posted on the installment, VAT included (a negative amount is a correction). */
export function addPunitory(s: InstallmentState, amount: Decimal, vat: Decimal = new Dec(0)) {
  s.punitoryPosted = s.punitoryPosted.plus(amount);
  s.punitoryVatPosted = s.punitoryVatPosted.plus(vat);
}

/** One payment slice on the installment; slices come in date order. */
export function addPayment(
  s: InstallmentState,
  p: InstallmentPayment & { vat?: Decimal; interest?: Decimal; charge?: Decimal; fees?: Decimal; insurance?: Decimal },
) {
  s.principalPaid = s.principalPaid.plus(p.principal);
  s.punitoryPaid = s.punitoryPaid.plus(p.punitory);
  if (p.charge) s.chargesPaid = s.chargesPaid.plus(p.charge);
  if (p.vat) s.vatPaid = s.vatPaid.plus(p.vat);
  if (p.interest) s.interestPaid = s.interestPaid.plus(p.interest);
  if (p.fees) s.feesPaid = s.feesPaid.plus(p.fees);
  if (p.insurance) s.insurancePaid = s.insurancePaid.plus(p.insurance);
  s.payments.push({ paidOn: p.paidOn, principal: p.principal, punitory: p.punitory, charge: p.charge });
}

/** A waiver entry (negative) on the installment: what it takes off its punitory or its charges. */
export function addWaiver(s: InstallmentState, e: Pick<EntryLike, 'punitory_part' | 'charge_part'>) {
  s.punitoryWaived = s.punitoryWaived.minus(money(e.punitory_part));
  s.chargesWaived = s.chargesWaived.minus(money(e.charge_part ?? 0));
}

/** Applies one ledger entry (punitory, charge, waiver or payment) to the state of its installment. */
export function applyEntry(s: InstallmentState, e: EntryLike) {
  if (e.type === 'punitory') {
    addPunitory(s, money(e.amount), money(e.vat_part ?? 0));
  } else if (e.type === 'charge') {
    s.chargesPosted = s.chargesPosted.plus(money(e.amount));
    s.chargeVatPosted = s.chargeVatPosted.plus(money(e.vat_part ?? 0));
  } else if (e.type === 'waiver') {
    addWaiver(s, e);
  } else if (e.type === 'payment') {
    const punitory = money(e.punitory_part);
    const charge = money(e.charge_part ?? 0);
    addPayment(s, {
      paidOn: e.effective_date,
      principal: money(e.amount).minus(punitory).minus(charge),
      punitory,
      charge,
      vat: money(e.vat_part ?? 0),
      interest: money(e.interest_part ?? 0),
      fees: money(e.fees_part ?? 0),
      insurance: money(e.insurance_part ?? 0),
    });
  }
}

/** Punitory posted and not paid nor waived (negative: a negative posting left a credit). */
export const punitoryUnpaid = (s: InstallmentState): Decimal =>
  s.punitoryPosted.minus(s.punitoryPaid).minus(s.punitoryWaived);
/** Charges posted and not paid nor waived. */
export const chargesUnpaid = (s: InstallmentState): Decimal =>
  s.chargesPosted.minus(s.chargesPaid).minus(s.chargesWaived);

/** The installment's state from its aggregated history (the daily run reads it in one query, not entry by entry). */
export function stateFromHistory(
  i: InstallmentLike,
  h:
    | {
        punitory_posted: string;
        punitory_vat_posted?: string;
        punitory_waived?: string;
        charges_posted?: string;
        charge_vat_posted?: string;
        charges_paid?: string;
        charges_waived?: string;
        payments: [paidOn: string, principal: string, punitory: string][] | null;
      }
    | undefined,
): InstallmentState {
  const s = emptyState(i);
  if (!h) return s;
  addPunitory(s, money(h.punitory_posted), money(h.punitory_vat_posted ?? 0));
  s.punitoryWaived = money(h.punitory_waived ?? 0);
  s.chargesPosted = money(h.charges_posted ?? 0);
  s.chargeVatPosted = money(h.charge_vat_posted ?? 0);
  s.chargesPaid = money(h.charges_paid ?? 0);
  s.chargesWaived = money(h.charges_waived ?? 0);
  for (const [paidOn, principal, punitory] of h.payments ?? [])
    addPayment(s, { paidOn, principal: money(principal), punitory: money(punitory) });
  return s;
}

export function buildStates(
  installments: InstallmentLike[],
  ledger: (EntryLike & { installment_id: string; created_at: Date })[],
): InstallmentState[] {
  const states = installments.map(emptyState).sort((a, b) => a.number - b.number);
  const byId = new Map(states.map((s) => [s.id, s]));
  const ordered = [...ledger].sort(
    (a, b) =>
      a.effective_date.localeCompare(b.effective_date) ||
      new Date(a.created_at).getTime() - new Date(b.created_at).getTime(),
  );
  for (const e of ordered) {
    const s = byId.get(e.installment_id);
    if (s) applyEntry(s, e);
  }
  return states;
}

/**
 * What a slice paid of punitory before its VAT (the punitory paid that compound's base subtracts:
 * the base grows on the punitory unpaid, not on its tax). The SQL readers divide the same way.
 */
export function netPunitoryPaid(punitory: Decimal, vatRate: Decimal): Decimal {
  return vatRate.isZero() ? punitory : punitory.div(vatRate.plus(1));
}

/** Cumulative punitory of one installment as of a date, before VAT, from its payment history. */
export function netCumulativeOf(s: InstallmentState, terms: CreditTerms, asOf: string, stop: string | null): Decimal {
  if (terms.dailyRate.lte(0)) return new Dec(0);
  // a due date that is not a business day cannot be late before the next business day
  const graceDays = Math.max(terms.graceDays, s.toleranceDays);
  const payments = terms.vatRate.isZero()
    ? s.payments
    : s.payments.map((p) => ({ ...p, punitory: netPunitoryPaid(new Dec(p.punitory), terms.vatRate) }));
  return cumulativePunitory(
    { amount: s.amount, dueDate: s.dueDate, payments, asOf, stopDate: stop },
    graceDays === terms.graceDays ? terms : { ...terms, graceDays },
  );
}

/** The punitory owed with its VAT, from the net figure: rounded, never past the storable maximum. */
export function withVat(net: Decimal, vatRate: Decimal): Decimal {
  if (vatRate.isZero() || net.isZero()) return net;
  return Dec.min(round2(net.times(vatRate.plus(1))), STORABLE_MAX);
}

/** Cumulative punitory of one installment as of a date, VAT included, from its payment history. */
export function cumulativeOf(s: InstallmentState, terms: CreditTerms, asOf: string, stop: string | null): Decimal {
  return withVat(netCumulativeOf(s, terms, asOf, stop), terms.vatRate);
}

export interface Postings {
  /** per installment, what to post so the posted total equals the cumulative figure (zeros left out), and the VAT in it */
  postings: { state: InstallmentState; amount: Decimal; vat: Decimal }[];
  /** the installments whose cumulative figure stopped at the storable maximum */
  atStorableMax: InstallmentState[];
}

/** What to post so each installment's posted total equals its cumulative figure as of asOf. */
export function punitoryPostings(
  states: InstallmentState[],
  terms: CreditTerms,
  asOf: string,
  stop: string | null,
): Postings {
  const out: Postings = { postings: [], atStorableMax: [] };
  for (const s of states) {
    const net = netCumulativeOf(s, terms, asOf, stop);
    const cumulative = withVat(net, terms.vatRate);
    if (atStorableMax(cumulative)) out.atStorableMax.push(s);
    const diff = punitoryToPost(cumulative, s.punitoryPosted);
    if (!diff.isZero())
      out.postings.push({ state: s, amount: diff, vat: cumulative.minus(net).minus(s.punitoryVatPosted) });
  }
  return out;
}

// ---------------------------------------------------------------- the collection charge

/**
 * The collection charge the installment owes as of asOf, VAT included (its total or 0), from its
 * payment history (src/domain/fees.ts collectionChargeOwed): what posting every day would have
 * posted by then, corrections included.
 */
export function chargeOwedOf(s: InstallmentState, terms: CreditTerms, asOf: string, stop: string | null): Decimal {
  return collectionChargeOwed(s, terms.collection, asOf, stop);
}

/**
 * The charges of the installment as of asOf, posted or not yet: once its charge day has come, what
 * the rule gives from its history (a posting at the next event or month close writes the
 * difference); before, what is posted (nothing, unless read as of a past date).
 */
export function chargesAsOf(s: InstallmentState, terms: CreditTerms, asOf: string, stop: string | null): Decimal {
  if (!terms.collection || compareDates(chargeDay(s.dueDate, terms.collection.afterDays), asOf) > 0)
    return s.chargesPosted;
  return chargeOwedOf(s, terms, asOf, stop);
}

/**
 * What to post so each installment's charges equal what it owes as of asOf: the charge (positive,
 * origin `fee`) when its charge day has come and it was unpaid then; a correction (negative) when
 * the history changed since (a payment recorded later, dated before the charge day); each dated
 * its charge day. Installments whose charge day is after asOf are left alone.
 */
export function chargePostings(
  states: InstallmentState[],
  terms: CreditTerms,
  asOf: string,
  stop: string | null,
): { state: InstallmentState; amount: Decimal; vat: Decimal; date: string }[] {
  const c = terms.collection;
  if (!c) return [];
  const out: { state: InstallmentState; amount: Decimal; vat: Decimal; date: string }[] = [];
  for (const s of states) {
    const date = chargeDay(s.dueDate, c.afterDays);
    if (compareDates(date, asOf) > 0) continue;
    const owed = chargeOwedOf(s, terms, asOf, stop);
    const diff = owed.minus(s.chargesPosted);
    if (diff.isZero()) continue;
    const vat = (owed.isZero() ? new Dec(0) : c.vat).minus(s.chargeVatPosted);
    out.push({ state: s, amount: diff, vat, date });
  }
  return out;
}

/** Balance for allocation; punitoryOwed may be given (a backdated payment owes what it owed on its date). */
export function balanceOf(s: InstallmentState, punitoryOwed?: Decimal): InstallmentBalance {
  return {
    id: s.id,
    number: s.number,
    amount: s.amount,
    principalPaid: s.principalPaid,
    punitoryOwed: punitoryOwed ?? punitoryUnpaid(s),
    chargesOwed: chargesUnpaid(s),
    vatDue: s.vat.minus(s.vatPaid),
    interestDue: s.interest.minus(s.interestPaid),
    feesDue: s.fees.minus(s.feesPaid),
    insuranceDue: s.insurance.minus(s.insurancePaid),
  };
}

export function statusOf(s: InstallmentState): { status: InstallmentStatus; paidDate: string | null } {
  const status = installmentStatus({
    amount: s.amount,
    principalPaid: s.principalPaid,
    punitoryOwed: punitoryUnpaid(s),
    chargesOwed: chargesUnpaid(s),
    // what the slices leave, net of reversals and corrections: a reversed payment paid nothing
    anythingPaid: s.principalPaid.plus(s.punitoryPaid).plus(s.chargesPaid).gt(0),
  });
  if (status !== 'paid') return { status, paidDate: null };
  // the day it became paid: the date of the payment that completed it, the last day whose slices
  // (net of reversals and corrections, which are dated like their payment) changed what is paid;
  // payments are in date order
  const byDay = new Map<string, Decimal>();
  for (const p of s.payments)
    byDay.set(
      p.paidOn,
      (byDay.get(p.paidOn) ?? new Dec(0))
        .plus(p.principal)
        .plus(p.punitory)
        .plus(p.charge ?? 0),
    );
  let paidDate: string | null = null;
  for (const [day, net] of byDay) if (!net.isZero()) paidDate = day;
  return { status, paidDate };
}

// ---------------------------------------------------------------- what is owed when it is read

/** An installment's Balance (src/domain/records.ts) as of a date. */
export interface Owed {
  punitoryPosted: Decimal;
  /** since the last posting: what posting every day would have added by the date */
  punitoryAccrued: Decimal;
  /** collection charges, VAT included: posted, and those whose day has come not yet posted */
  charges: Decimal;
  /** punitory and charges waived */
  waived: Decimal;
  /** amount, punitory and charges */
  paid: Decimal;
  /** amount + punitoryPosted + punitoryAccrued + charges − waived − paid; negative: in the client's favour */
  outstanding: Decimal;
}

/** The credits whose unpaid installments accrue punitory: those the daily run posts on. */
export const ACCRUING: ReadonlySet<CreditStatus> = new Set(['active', 'written_off']);

type OwedSource = TermsSource & Pick<CreditShape, 'status' | 'written_off_at'>;

/**
 * What an installment of this credit owes as of asOf (the business's today, in `timezone`). Its
 * punitory accrued is the cumulative figure minus what is posted: exactly what the daily posting
 * would have posted by then, so a read equals posting every day, to the cent. An installment whose
 * amount is paid (its punitory stopped growing then, and that payment posted it), or one of a
 * credit the daily run leaves alone (closed, refinanced, cancelled), accrues nothing; the
 * portfolio summary (src/db/repositories/reports.ts) applies the same rule in SQL.
 */
export function owedOf(s: InstallmentState, credit: OwedSource, asOf: string, timezone: string): Owed {
  const terms = creditTerms(credit);
  const stop = stopDate(credit, timezone);
  const accrues = ACCRUING.has(credit.status) && s.principalPaid.lt(s.amount);
  const accrued = accrues ? cumulativeOf(s, terms, asOf, stop).minus(s.punitoryPosted) : new Dec(0);
  // the collection charge whose day has come counts before it is posted (a read equals posting every day)
  const charges = ACCRUING.has(credit.status) ? chargesAsOf(s, terms, asOf, stop) : s.chargesPosted;
  const paid = s.principalPaid.plus(s.punitoryPaid).plus(s.chargesPaid);
  const waived = s.punitoryWaived.plus(s.chargesWaived);
  return {
    punitoryPosted: s.punitoryPosted,
    punitoryAccrued: accrued,
    charges,
    waived,
    paid,
    outstanding: s.amount.plus(s.punitoryPosted).plus(accrued).plus(charges).minus(waived).minus(paid),
  };
}

/** Per installment id, what each installment of these credits owes as of asOf (from their rows and whole ledgers). */
export function owedOfCredits(
  credits: (OwedSource & { id: string })[],
  installments: (InstallmentLike & { credit_id: string })[],
  ledger: (Parameters<typeof buildStates>[1][number] & { credit_id: string })[],
  asOf: string,
  timezone: string,
): Map<string, Owed> {
  const out = new Map<string, Owed>();
  for (const c of credits) {
    const states = buildStates(
      installments.filter((i) => i.credit_id === c.id),
      ledger.filter((e) => e.credit_id === c.id),
    );
    for (const s of states) out.set(s.id, owedOf(s, c, asOf, timezone));
  }
  return out;
}

/** A credit's Balance: its installments' summed. */
export function sumOwed(items: Owed[]): Owed {
  const zero = new Dec(0);
  const total: Owed = {
    punitoryPosted: zero,
    punitoryAccrued: zero,
    charges: zero,
    waived: zero,
    paid: zero,
    outstanding: zero,
  };
  for (const o of items) {
    total.punitoryPosted = total.punitoryPosted.plus(o.punitoryPosted);
    total.punitoryAccrued = total.punitoryAccrued.plus(o.punitoryAccrued);
    total.charges = total.charges.plus(o.charges);
    total.waived = total.waived.plus(o.waived);
    total.paid = total.paid.plus(o.paid);
    total.outstanding = total.outstanding.plus(o.outstanding);
  }
  return total;
}
