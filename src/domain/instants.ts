// Instants in requests (docs/api.md, "Money, rates, dates and ids": RFC 3339 with an offset), such as updated_since:
// 2026-01-15T13:02:00Z, 2026-01-15T10:02:00.5-03:00. The database keeps instants to the
// microsecond; a request may be finer (up to 9 decimals) and any offset RFC 3339 allows, so a
// value is brought to UTC here, where the arithmetic is exact, rather than by the database (which
// refuses offsets beyond ±15:59 and rounds a finer fraction to the nearest microsecond).
import { invalid } from './errors.ts';

// date T time (Z | ±hh:mm); the T and Z may be lower case (RFC 3339 section 5.6)
const INSTANT_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** A lower bound on instants, as the database compares them. */
export interface InstantBound {
  /** UTC, to the microsecond: 2026-01-15T13:02:00.000000Z ('-infinity' / 'infinity' beyond the calendar) */
  instant: string;
  /**
   * true when the value given lies strictly between `instant` and the next microsecond: a stored
   * instant is then at or after the value only when it is after `instant`
   */
  exclusive: boolean;
}

const daysIn = (y: number, m: number) =>
  [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;

/** The bound the text names, or null when it is not an RFC 3339 date-time with an offset (or no real instant). */
export function parseInstant(s: string): InstantBound | null {
  const m = INSTANT_RE.exec(s);
  if (!m) return null;
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] ?? '';
  const sign = m[8] === '-' ? -1 : 1;
  const [oh, om] = [Number(m[9] ?? 0), Number(m[10] ?? 0)];
  // a leap second (:60) is allowed, as RFC 3339 does; it is the next second's start
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) return null;
  if (hh > 23 || mi > 59 || ss > 60 || oh > 23 || om > 59) return null;
  // setUTCFullYear: Date.UTC would read years below 100 as 19xx
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(hh, mi - sign * (oh * 60 + om), ss, 0);
  const year = t.getUTCFullYear();
  if (year < 1) return { instant: '-infinity', exclusive: false };
  if (year > 9999) return { instant: 'infinity', exclusive: false };
  const micro = fraction.slice(0, 6).padEnd(6, '0');
  return {
    instant: `${t.toISOString().slice(0, 19)}.${micro}Z`,
    exclusive: /[1-9]/.test(fraction.slice(6)),
  };
}

export function isValidInstant(s: unknown): s is string {
  return typeof s === 'string' && parseInstant(s) !== null;
}

/**
 * The bound a request's instant names (`path` says which field). The HTTP schema refuses a
 * malformed one already (400); other callers get the same 400 here.
 */
export function instantBound(path: string, value: string): InstantBound {
  const b = parseInstant(value);
  if (!b) throw invalid(path, 'must be an RFC 3339 date-time with an offset, such as 2026-01-15T13:02:00Z');
  return b;
}
