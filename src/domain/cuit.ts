// CUIT/CUIL, the Argentine tax identity of a person or a company: 11 digits, a two-digit kind
// (20, 23, 24, 27 people; 30, 33, 34 companies), eight digits (a person's dni) and a mod-11 check
// digit. Written 20-12345678-6 or 20123456786; stored and answered without dashes.

const WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2] as const;
/** The two ways a CUIT is written: 11 digits, or with dashes after the kind and the number. */
const SHAPE = /^(\d{2})-?(\d{8})-?(\d)$/;

/**
 * The check digit of the first 10 digits: 11 − (Σ digit × weight mod 11), 11 → 0. null when that
 * is 10: no CUIT ends so (the tax authority gives such a person kind 23 instead).
 */
export function cuitCheckDigit(first10: string): number | null {
  if (!/^\d{10}$/.test(first10)) throw new RangeError('a CUIT check digit needs 10 digits');
  let s = 0;
  for (let i = 0; i < 10; i++) s += Number(first10[i]) * WEIGHTS[i]!;
  const r = 11 - (s % 11);
  if (r === 11) return 0;
  return r === 10 ? null : r;
}

/**
 * The CUIT as stored (11 digits), when `input` is one: 11 digits or NN-NNNNNNNN-N (both dashes
 * or none) with the right check digit. undefined otherwise.
 */
export function parseCuit(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const m = SHAPE.exec(input);
  if (!m) return undefined;
  // one dash without the other is a typo, not a way of writing it
  if (input.length !== 11 && input.length !== 13) return undefined;
  const digits = m[1]! + m[2]! + m[3]!;
  return cuitCheckDigit(digits.slice(0, 10)) === Number(digits[10]) ? digits : undefined;
}

export const isValidCuit = (input: unknown): input is string => parseCuit(input) !== undefined;

/** The 11 digits with the check digit that makes them a valid CUIT (for tests and examples). */
export function withCheckDigit(first10: string): string | undefined {
  const d = cuitCheckDigit(first10);
  return d === null ? undefined : first10 + d;
}
