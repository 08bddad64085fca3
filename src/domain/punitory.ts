import type { Decimal } from './money.ts';
import { Dec, STORABLE_MAX, round2 } from './money.ts';
import { dayNumber } from './dates.ts';

export type PunitoryMode = 'simple_outstanding' | 'compound' | 'full_amount';

export interface PunitoryTerms {
  dailyRate: Decimal;
  mode: PunitoryMode;
  graceDays: number;
  /** 0 = no limit. */
  maxDays: number;
  /** 0 = no limit; 50 = 50 % of the installment amount. */
  capPct: Decimal;
}

/** The part of one payment applied to this installment's amount and to its punitory. */
export interface InstallmentPayment {
  paidOn: string;
  principal: Decimal;
  punitory: Decimal;
  /** what went to the installment's charges (no effect on punitory) */
  charge?: Decimal;
}

export interface PunitoryInput {
  amount: Decimal;
  dueDate: string;
  payments: InstallmentPayment[];
  asOf: string;
  /** Write-off date: no day after it is chargeable. */
  stopDate?: string | null;
}

/** round2(capPct % of amount), or null when there is no cap. */
export function punitoryCap(amount: Decimal, capPct: Decimal): Decimal | null {
  const pct = new Dec(capPct);
  return pct.gt(0) ? round2(pct.div(100).times(amount)) : null;
}

/**
 * A compound stretch whose growth would take base × (1 + rate)^days past 10^13 adds more than
 * the storable maximum whatever the base (base ≤ amount + accrued < 2 × 10^12 there): it is not
 * computed (a rate of 1,000 a day over years would need a number of 100,000 digits). Judged in
 * floating point with a factor of 10 to spare, so the SQL twin (migration 005) agrees.
 */
function overflows(base: Decimal, growth: Decimal, days: number): boolean {
  return Math.log10(base.toNumber()) + days * Math.log10(growth.toNumber()) > 13;
}

/**
 * Cumulative punitory of one installment as of `asOf`, rounded to the cent and capped
 * (docs/domain.md, "Punitory"). Day k is due_date + k. Between two payments the base is constant
 * (simple_outstanding, full_amount) or grows by (1 + rate) a day (compound), so each stretch is
 * one closed form: cost is O(payments), not O(days late). It never exceeds STORABLE_MAX (an
 * amount that cannot be stored stops growing there); atStorableMax tells whether it got there.
 */
export function cumulativePunitory(input: PunitoryInput, terms: PunitoryTerms): Decimal {
  const amount = new Dec(input.amount);
  const raw = accruedPunitory(input, terms);
  if (raw === null) return new Dec(0);
  const cap = punitoryCap(amount, terms.capPct);
  // past the storable maximum the exact figure is not known (nor needed): the maximum, or the cap
  let result = raw === 'overflow' ? STORABLE_MAX : Dec.min(round2(raw), STORABLE_MAX);
  if (cap !== null && result.gt(cap)) result = cap;
  return result.lt(0) ? new Dec(0) : result;
}

/** Whether a cumulative figure is the storable maximum: the daily run reports such credits. */
export function atStorableMax(cumulative: Decimal): boolean {
  return cumulative.gte(STORABLE_MAX);
}

/**
 * The punitory accrued, unrounded and uncapped; null when nothing is owed (not late, within grace,
 * no chargeable day); 'overflow' once it reaches the storable maximum (it never decreases).
 */
function accruedPunitory(input: PunitoryInput, terms: PunitoryTerms): Decimal | null | 'overflow' {
  const amount = new Dec(input.amount);
  const rate = new Dec(terms.dailyRate);
  const due = dayNumber(input.dueDate);
  const asOf = dayNumber(input.asOf);
  if (asOf <= due || amount.lte(0)) return null;

  // Payments after asOf cannot touch any day ≤ asOf (a payment counts from the next day).
  const pays = input.payments
    .map((p) => ({ day: dayNumber(p.paidOn), principal: new Dec(p.principal), punitory: new Dec(p.punitory) }))
    .filter((p) => p.day <= asOf)
    .sort((a, b) => a.day - b.day);

  // Grace is a tolerance on how late it got: until asOf, or until the amount was fully paid.
  let fullyPaidDay: number | null = null;
  {
    let paid = new Dec(0);
    for (const [j, p] of pays.entries()) {
      paid = paid.plus(p.principal);
      // judged on a day's net sum: a reversal or correction may follow a slice on the same day
      if (paid.gte(amount) && pays[j + 1]?.day !== p.day) {
        fullyPaidDay = p.day;
        break;
      }
    }
  }
  const lateness = Math.max(0, (fullyPaidDay ?? asOf) - due);
  if (lateness <= terms.graceDays) return null;

  // Last chargeable day index (days after the amount is fully paid are excluded below, per stretch).
  let lastK = asOf - due;
  if (terms.maxDays > 0) lastK = Math.min(lastK, terms.maxDays);
  if (input.stopDate) lastK = Math.min(lastK, dayNumber(input.stopDate) - due);
  if (lastK < 1) return null;

  let principalPaid = new Dec(0);
  let punitoryPaid = new Dec(0);
  let accrued = new Dec(0); // unrounded
  let i = 0;
  // Applies the payments made on or before that day (they count from the day after).
  const applyUpTo = (lastPaidDay: number) => {
    while (i < pays.length && pays[i]!.day <= lastPaidDay) {
      principalPaid = principalPaid.plus(pays[i]!.principal);
      punitoryPaid = punitoryPaid.plus(pays[i]!.punitory);
      i++;
    }
  };
  applyUpTo(due); // paid on or before the due date: already counts on day 1
  let k = 1;
  while (k <= lastK) {
    // This stretch runs until the day the next payment starts to count (its day + 1), exclusive.
    const nextK = i < pays.length ? pays[i]!.day + 1 - due : Infinity;
    const endK = Math.min(lastK, nextK - 1);
    const days = endK - k + 1;
    if (principalPaid.lt(amount) && days > 0) {
      if (terms.mode === 'full_amount') {
        accrued = accrued.plus(rate.times(amount).times(days));
      } else if (terms.mode === 'simple_outstanding') {
        accrued = accrued.plus(rate.times(amount.minus(principalPaid)).times(days));
      } else {
        // Each day adds rate × base and the base grows by it: Σ = base × ((1 + rate)^days − 1).
        const base = amount.minus(principalPaid).plus(accrued).minus(punitoryPaid);
        if (base.gt(0)) {
          if (overflows(base, rate.plus(1), days)) return 'overflow';
          accrued = accrued.plus(base.times(rate.plus(1).pow(days).minus(1)));
        }
      }
      if (accrued.gte(STORABLE_MAX)) return 'overflow';
    }
    k = endK + 1;
    applyUpTo(due + k - 1);
  }
  return accrued;
}

/**
 * What to post so the posted total equals the cumulative figure: negative when a backdated
 * payment lowered the history; zero when already posted.
 */
export function punitoryToPost(cumulative: Decimal, alreadyPosted: Decimal): Decimal {
  return round2(new Dec(cumulative).minus(alreadyPosted));
}
