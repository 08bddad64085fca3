// Calendar dates as 'YYYY-MM-DD' strings. Arithmetic goes through a day number
// (days since 1970-01-01, proleptic Gregorian) so no time zone or DST can shift a date.

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  return [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

function parts(s: string): [number, number, number] {
  const m = DATE_RE.exec(s);
  if (!m) throw new RangeError(`invalid date: ${s}`);
  const y = Number(m[1]),
    mo = Number(m[2]),
    d = Number(m[3]);
  // year 0000 does not exist in PostgreSQL's calendar (1 BC): refused like any impossible date
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) throw new RangeError(`invalid date: ${s}`);
  return [y, mo, d];
}

function fmt(y: number, m: number, d: number): string {
  if (y < 0 || y > 9999) throw new RangeError('date out of range');
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

// Howard Hinnant's days_from_civil / civil_from_days.
function toDayNumber(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function fromDayNumber(z: number): string {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return fmt(yoe + era * 400 + (m <= 2 ? 1 : 0), m, d);
}

// A date's day number, kept once computed (a credit's book compares the same few dates thousands of
// times a payment); only valid dates get here, and the map is emptied before it grows large.
const dayNumbers = new Map<string, number>();

export function dayNumber(s: string): number {
  let n = dayNumbers.get(s);
  if (n === undefined) {
    n = toDayNumber(...parts(s));
    if (dayNumbers.size >= 100_000) dayNumbers.clear();
    dayNumbers.set(s, n);
  }
  return n;
}

export function fromDay(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError('day number must be an integer');
  return fromDayNumber(n);
}

export function isValidDate(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  try {
    parts(s);
    return true;
  } catch {
    return false;
  }
}

export function addDays(d: string, n: number): string {
  if (!Number.isInteger(n)) throw new RangeError('days must be an integer');
  return fromDayNumber(dayNumber(d) + n);
}

/** b − a in days. */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

/** k months after d on the same day of month, or that month's last day when it is shorter. */
export function addMonthsClamped(d: string, k: number): string {
  if (!Number.isInteger(k)) throw new RangeError('months must be an integer');
  const [y, m, day] = parts(d);
  const idx = y * 12 + (m - 1) + k;
  const ny = Math.floor(idx / 12);
  const nm = idx - ny * 12 + 1;
  return fmt(ny, nm, Math.min(day, daysInMonth(ny, nm)));
}

/**
 * The last day of the most recent month that has ended as of d: the day before the first of d's
 * month (2024-03-15 → 2024-02-29; on the 1st, the day before). The daily run posts punitory up to it.
 */
export function lastMonthEnd(d: string): string {
  const [y, m] = parts(d);
  return fromDayNumber(toDayNumber(y, m, 1) - 1);
}

/** Negative, zero or positive like a sort comparator. */
export function compareDates(a: string, b: string): number {
  return Math.sign(dayNumber(a) - dayNumber(b));
}

// One formatter per time zone (a handful per process): building an Intl.DateTimeFormat costs far
// more than using one, and every request asks for its business's today.
const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(timeZone: string): Intl.DateTimeFormat | undefined {
  let f = dayFormats.get(timeZone);
  if (f) return f;
  try {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  } catch {
    return undefined;
  }
  if (dayFormats.size < 1000) dayFormats.set(timeZone, f);
  return f;
}

export function isValidTimeZone(tz: unknown): tz is string {
  // Intl may also accept offsets ("+05:00"); a business timezone must be an IANA name.
  return typeof tz === 'string' && /^[A-Za-z]/.test(tz) && dayFormat(tz) !== undefined;
}

/** Where "now" comes from: the real time, or a clock a test sets. Passed down, never global. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** The calendar date at `now` in the IANA time zone: a business's "today". */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  const f = /^[A-Za-z]/.test(timeZone) ? dayFormat(timeZone) : undefined;
  if (!f) throw new RangeError(`invalid time zone: ${timeZone}`);
  const ps = f.formatToParts(now);
  const val = (t: string) => Number(ps.find((p) => p.type === t)?.value);
  return fmt(val('year'), val('month'), val('day'));
}
