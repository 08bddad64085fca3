import DecimalImport from 'decimal.js';
import type { Decimal } from 'decimal.js';

export type { Decimal };

// decimal.js's types describe a CommonJS module while Node's ESM loader gets decimal.mjs,
// whose default export is the class itself: accept both shapes.
const DecimalClass: typeof Decimal =
  (DecimalImport as unknown as { Decimal?: typeof Decimal }).Decimal ?? (DecimalImport as unknown as typeof Decimal);

/** Local Decimal class: 40 significant digits, ties rounded away from zero. The global Decimal is left untouched. */
export const Dec = DecimalClass.clone({ precision: 40, rounding: DecimalClass.ROUND_HALF_UP });
export type Dec = Decimal;

/** The largest amount numeric(14,2) holds: no posted or stored amount may exceed it. */
export const STORABLE_MAX = new Dec('999999999999.99');

// Plain decimal notation only: no hex/binary/octal literals, no Infinity/NaN.
const DECIMAL_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

// texts parsed, each to its Decimal (immutable: every operation gives a new one, so one instance
// serves every caller). A use case parses the same few texts many times (an installment's amount
// at every rebuild of its state); bounded, emptied when full.
const PARSED = new Map<string, Decimal>();
const PARSED_MAX = 20_000;

/** Parses a money or rate value. Throws RangeError on anything that is not a finite decimal. */
export function money(x: string | number | Decimal): Decimal {
  if (typeof x === 'string') {
    const known = PARSED.get(x);
    if (known !== undefined) return known;
    if (!DECIMAL_RE.test(x.trim())) throw new RangeError(`not a decimal: ${x}`);
    const d = new Dec(x.trim());
    if (PARSED.size >= PARSED_MAX) PARSED.clear();
    PARSED.set(x, d);
    return d;
  }
  if (DecimalClass.isDecimal(x)) {
    const d = new Dec(x as Decimal);
    if (!d.isFinite()) throw new RangeError('not a finite decimal');
    return d;
  }
  if (typeof x === 'number') {
    if (!Number.isFinite(x)) throw new RangeError('not a finite number');
    return new Dec(x);
  }
  throw new RangeError(`not a decimal: ${String(x)}`);
}

/** Rounds to the cent, half away from zero (ROUND_HALF_UP in decimal.js is symmetric). */
export function round2(d: Decimal): Decimal {
  const r = new Dec(d).toDecimalPlaces(2, DecimalClass.ROUND_HALF_UP);
  return r.isZero() ? new Dec(0) : r; // drop negative zero
}

/** "1234.50": always two decimals, never "-0.00". */
export function toMoneyString(d: Decimal): string {
  return round2(d).toFixed(2);
}

/** A JS number for JSON output only; never use it for arithmetic. */
export function toMoneyNumber(d: Decimal): number {
  return Number(toMoneyString(d));
}

// at most two decimals: already to the cent, so round2 leaves it as it is
const CENTS_RE = /^-?\d+(\.\d{1,2})?$/;

/**
 * toMoneyNumber(money(x)) without a Decimal for the usual case, a numeric text to the cent as the
 * database gives it ("1234.50"): the same number, since it is already to the cent and JSON numbers
 * of equal value are one double (never -0, as toMoneyString never gives "-0.00").
 */
export function moneyNumberOf(x: string | number | Decimal): number {
  if (typeof x === 'string' && CENTS_RE.test(x)) {
    const n = Number(x);
    return n === 0 ? 0 : n;
  }
  return toMoneyNumber(money(x));
}

/**
 * Whether a JSON number has at most `places` decimals, judged on its shortest
 * representation String(x); an exponent form (1e-7) counts the decimals it hides.
 */
export function hasAtMostDecimals(x: number, places: number): boolean {
  if (typeof x !== 'number' || !Number.isFinite(x)) return false;
  const m = /^-?(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/i.exec(String(x));
  if (!m) return false;
  const fracDigits = (m[2] ?? '').replace(/0+$/, '').length;
  const exp = m[3] ? Number(m[3]) : 0;
  return Math.max(0, fracDigits - exp) <= places;
}
