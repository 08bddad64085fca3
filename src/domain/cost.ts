// The disclosed cost of a credit: TNA, TEA and CFT as annual rates, fractions to 6 decimals
// (docs/domain.md, "Interest methods, VAT and disclosed cost", where flat's TNA is
// decided). Rates, not money: solved in decimal.js all the same, no binary floating point.
import type { Decimal } from './money.ts';
import { Dec } from './money.ts';
import { daysBetween, isValidDate } from './dates.ts';
import type { Amortization } from './schedule.ts';

type DecimalLike = Decimal | string | number;

/** An installment as the schedule built it (ScheduledInstallment fits). */
export interface CostInstallment {
  dueDate: string;
  /** VAT included */
  amount: DecimalLike;
  principal: DecimalLike;
  interest: DecimalLike;
  /** not read: amount already includes it */
  vat?: DecimalLike;
}

export interface CostInput {
  /** the amount lent: the principal the schedule is built on */
  amount: DecimalLike;
  /**
   * the cash handed over, when it differs from the amount (an origination fee deducted or
   * financed): cft_tea equates it with the installments. Absent: the amount
   */
  disbursed?: DecimalLike;
  startDate: string;
  /** in schedule order */
  installments: readonly CostInstallment[];
  amortization: Amortization;
  /** the plan's interest_rate: flat, the fraction over the whole credit; french, the TNA */
  interestRate: DecimalLike;
}

export interface CreditCost {
  /** nominal annual rate */
  tna: Decimal;
  /** effective annual rate: (1 + tna / 12)^12 − 1 */
  tea: Decimal;
  /**
   * total financial cost as an effective annual rate: the rate r with
   * Σ amount_k / (1 + r)^(days_k / 365) = amount lent, VAT included. null when no rate does it:
   * what falls due on the start date itself already repays the amount lent, and more is owed.
   */
  cft_tea: Decimal | null;
}

/** A cash flow a whole number of periods (days, months) after the start. */
interface Flow {
  periods: number;
  amount: Decimal;
}

/**
 * The rates are solved with 40 significant digits and L = ln(1 + r) to 1e-30: exact to the 6
 * decimals shown for any rate below 1e20 (a one-day credit at a flat 20 % already has a CFT of
 * 4e30: shown to 20 significant digits). A floating-point root seeds the search.
 */
const D = Dec.clone({ precision: 40 });
const ONE = new D(1);
const TWELVE = new D(12);
const EPSILON = new D('1e-30');

/** Rounded half away from zero to 6 decimals, never −0. */
function rate6(r: Decimal): Decimal {
  const x = r.toDecimalPlaces(6, D.ROUND_HALF_UP);
  return new Dec(x.isZero() ? 0 : x);
}

/**
 * The L = ln(1 + r) that makes the flows, discounted at r per period, worth pv:
 * f(L) = Σ a·q^n − pv = 0 with q = e^(−L) (one exponential per step, whole powers after it).
 * Newton's method inside a bracket [lo, hi] with f(lo) > 0 > f(hi),
 * halving the bracket whenever a step would leave it. With flows ≥ 0 at t ≥ 0, f is decreasing
 * and convex, so a root is unique and Newton from the side where f > 0 never overshoots; the
 * bracket keeps it safe whatever the flows. null when no L exists.
 */
function solveLogRate(flows: readonly Flow[], pv: Decimal): Decimal | null {
  const at = (L: Decimal): { f: Decimal; df: Decimal } => {
    const q = L.neg().exp();
    let f = pv.neg();
    let df = new D(0);
    for (const { periods, amount } of flows) {
      if (amount.isZero()) continue;
      const v = amount.times(q.pow(periods));
      f = f.plus(v);
      df = df.minus(v.times(periods));
    }
    return { f, df };
  };
  const zero = new D(0);
  // a floating-point solution first (microseconds): when a tight bracket around it holds the root,
  // Newton in decimals needs two or three steps instead of a search from 0 (the cost is on every
  // credit's answer: a search from 0 at 80 digits took 4–8 ms; seeded, at 40 digits, ~2 ms)
  const seed = floatSeed(flows, pv.toNumber());
  if (seed !== null) {
    const w = 1e-9 * Math.max(1, Math.abs(seed));
    const lo = new D(seed - w);
    const hi = new D(seed + w);
    if (at(lo).f.gt(0) && at(hi).f.lt(0)) return newton(at, lo, hi, lo);
  }
  const f0 = at(zero).f;
  if (f0.isZero()) return zero;
  // Bracket the root, doubling away from 0 (64 doublings reach L = 2^63: no rate is that large).
  let lo = zero;
  let hi = zero;
  let found = false;
  for (let step = ONE, k = 0; k < 64; step = step.times(2), k++) {
    const L = f0.gt(0) ? step : step.neg();
    const f = at(L).f;
    if (f0.gt(0) ? f.lt(0) : f.gt(0)) {
      if (f0.gt(0)) hi = L;
      else lo = L;
      found = true;
      break;
    }
    if (f0.gt(0)) lo = L;
    else hi = L;
  }
  if (!found) return null;

  return newton(at, lo, hi, f0.gt(0) ? lo : hi);
}

/** Newton's method from x inside [lo, hi] (f(lo) > 0 > f(hi)), halving whenever a step would leave it. */
function newton(at: (L: Decimal) => { f: Decimal; df: Decimal }, lo: Decimal, hi: Decimal, x: Decimal): Decimal {
  for (let k = 0; k < 400; k++) {
    const { f, df } = at(x);
    if (f.isZero()) return x;
    if (f.gt(0)) lo = x;
    else hi = x;
    if (hi.minus(lo).lte(EPSILON)) return lo.plus(hi).div(2);
    let next = df.isZero() ? null : x.minus(f.div(df));
    if (next === null || !next.isFinite() || next.lte(lo) || next.gte(hi)) next = lo.plus(hi).div(2);
    if (next.minus(x).abs().lte(EPSILON)) return next;
    x = next;
  }
  return lo.plus(hi).div(2);
}

/** L in floating point (Newton from 0, then bisection if it wanders); null when it finds none. */
function floatSeed(flows: readonly Flow[], pv: number): number | null {
  const fs = flows.map((f) => [f.periods, f.amount.toNumber()] as const).filter(([, a]) => a !== 0);
  const at = (L: number) => {
    let f = -pv;
    let df = 0;
    for (const [n, a] of fs) {
      const v = a * Math.exp(-L * n);
      f += v;
      df -= v * n;
    }
    return [f, df] as const;
  };
  let L = 0;
  for (let k = 0; k < 100; k++) {
    const [f, df] = at(L);
    if (!Number.isFinite(f) || !Number.isFinite(df) || df === 0) return null;
    const next = L - f / df;
    if (!Number.isFinite(next)) return null;
    if (Math.abs(next - L) <= 1e-15 * Math.max(1, Math.abs(L))) return next;
    L = next;
  }
  return null;
}

function decimal(x: DecimalLike, what: string): Decimal {
  const d = new D(x);
  if (!d.isFinite()) throw new RangeError(`${what} is not a finite decimal`);
  return d;
}

/** The disclosed cost of a credit's schedule: tna, tea and cft_tea, fractions rounded to 6 decimals. */
export function creditCost(input: CostInput): CreditCost {
  const lent = decimal(input.amount, 'amount');
  if (lent.lte(0)) throw new RangeError('amount must be > 0');
  if (!isValidDate(input.startDate)) throw new RangeError('startDate must be YYYY-MM-DD');
  if (input.installments.length === 0) throw new RangeError('a schedule has at least one installment');
  if (input.amortization !== 'flat' && input.amortization !== 'french')
    throw new RangeError('amortization must be flat or french');
  const rate = decimal(input.interestRate, 'interestRate');

  const installments = input.installments.map((i, k) => {
    if (!isValidDate(i.dueDate)) throw new RangeError(`installment ${k + 1}: dueDate must be YYYY-MM-DD`);
    const days = daysBetween(input.startDate, i.dueDate);
    if (days < 0) throw new RangeError(`installment ${k + 1} falls due before the start date`);
    const amount = decimal(i.amount, 'installment amount');
    const principal = decimal(i.principal, 'installment principal');
    const interest = decimal(i.interest, 'installment interest');
    if (amount.lt(0) || principal.lt(0) || interest.lt(0)) throw new RangeError(`installment ${k + 1} is negative`);
    return { days, amount, beforeVat: principal.plus(interest) };
  });

  let tna: Decimal;
  let tea: Decimal;
  if (input.amortization === 'french') {
    tna = rate;
    tea = ONE.plus(rate.div(TWELVE)).pow(12).minus(1);
  } else {
    // flat: the monthly rate that makes principal + interest (no VAT), as if paid at months
    // 1..n, worth the amount lent; tna is twelve times it.
    const L = solveLogRate(
      installments.map((i, k) => ({ periods: k + 1, amount: i.beforeVat })),
      lent,
    );
    if (L === null) throw new RangeError('no monthly rate equates the installments with the amount lent');
    const monthly = L.exp().minus(1);
    tna = monthly.times(TWELVE);
    // (1 + tna / 12)^12 − 1 from the unrounded rate
    tea = L.times(TWELVE).exp().minus(1);
  }

  // per day, then over 365 days: (1 + r)^(days / 365) = (1 + daily)^days
  const cash = input.disbursed === undefined ? lent : decimal(input.disbursed, 'disbursed');
  if (cash.lte(0)) throw new RangeError('disbursed must be > 0');
  const daily = solveLogRate(
    installments.map((i) => ({ periods: i.days, amount: i.amount })),
    cash,
  );
  const cft = daily === null ? null : daily.times(365).exp().minus(1);
  return { tna: rate6(tna), tea: rate6(tea), cft_tea: cft === null ? null : rate6(cft) };
}
