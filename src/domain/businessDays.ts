// Business days (docs/domain.md, "Business days and holidays"): every day but Saturdays, Sundays and the business's
// holidays. An installment due on a day that is not one is not late until the end of the next
// business day: its tolerance is the days from its due date to that day.
import { addDays, dayNumber } from './dates.ts';

// the calendar's ends (src/domain/dates.ts): no day before the first or after the last
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

/** Saturday or Sunday (1970-01-01, day number 0, was a Thursday). */
export function isWeekend(date: string): boolean {
  const dow = (((dayNumber(date) + 3) % 7) + 7) % 7; // 0 Monday … 6 Sunday
  return dow >= 5;
}

export function isBusinessDay(date: string, holidays: ReadonlySet<string>): boolean {
  return !isWeekend(date) && !holidays.has(date);
}

/**
 * The date itself when it is a business day, else the first business day after it (the calendar's
 * last day, 9999-12-31, when none is left before it ends).
 */
export function nextBusinessDay(date: string, holidays: ReadonlySet<string>): string {
  let d = date;
  while (!isBusinessDay(d, holidays) && d !== LAST_DAY) d = addDays(d, 1);
  return d;
}

/** Days from the due date to the next business day: 0 for a business day, 2 for a Saturday with no holidays near. */
export function toleranceDays(dueDate: string, holidays: ReadonlySet<string>): number {
  return dayNumber(nextBusinessDay(dueDate, holidays)) - dayNumber(dueDate);
}

/**
 * The due dates whose tolerance a change of `date` (a holiday added or removed) can change:
 * `date` itself and the days not business days just before it, oldest first. Any other date's
 * next business day is reached without passing `date`.
 */
export function datesReaching(date: string, holidays: ReadonlySet<string>): string[] {
  const out = [date];
  for (let d = date; d !== FIRST_DAY; ) {
    d = addDays(d, -1);
    if (isBusinessDay(d, holidays)) break;
    out.unshift(d);
  }
  return out;
}
