// A business's holidays (docs/domain.md, "Business days and holidays"): listed by date, one a date (409 on a second),
// deleted by date. Adding or deleting one moves the tolerance of the installments due on the
// non-business days that reach it, in the same transaction.
import { withActor, type Executor } from '../db/connection.ts';
import {
  deleteHoliday as deleteRow,
  holidayDates,
  insertHoliday,
  listHolidays as holidayRows,
  lockHolidays,
  setToleranceDays,
  type HolidayRow,
} from '../db/repositories/holidays.ts';
import { datesReaching, toleranceDays } from '../domain/businessDays.ts';
import { conflict, invalid, notFound } from '../domain/errors.ts';
import { cleanText } from '../domain/text.ts';
import type { ActorContext, Database } from './context.ts';

export type { HolidayRow };

export interface HolidayInput {
  date: string;
  name: string;
}

/** By date; from and to (both included) narrow the list. */
export function listHolidays(
  db: Database,
  ctx: ActorContext,
  range: { from?: string; to?: string } = {},
): Promise<HolidayRow[]> {
  return holidayRows(db.kysely, ctx.businessId, range);
}

/**
 * Every holiday date of the business, for a use case that builds due dates or tolerances (a new
 * credit). Inside a transaction it first takes the business's holiday lock in share mode, so a
 * holiday being added or deleted either has committed and is in the set, or waits for this
 * transaction and then corrects what it stored (recomputeTolerance).
 */
export async function holidaySet(db: Executor, businessId: string): Promise<Set<string>> {
  if (db.isTransaction) await lockHolidays(db, businessId, 'share');
  return new Set(await holidayDates(db, businessId));
}

/**
 * The tolerance of the installments not fully paid due on the dates that reach `date` (the date
 * and the non-business days just before it): one UPDATE, of the rows that change. Runs after the
 * holiday change, under the exclusive holiday lock.
 */
async function recomputeTolerance(trx: Executor, businessId: string, date: string): Promise<number> {
  const holidays = new Set(await holidayDates(trx, businessId));
  const tolerances = datesReaching(date, holidays).map((d) => ({ dueDate: d, days: toleranceDays(d, holidays) }));
  return setToleranceDays(trx, businessId, tolerances);
}

export function createHoliday(db: Database, ctx: ActorContext, input: HolidayInput): Promise<HolidayRow> {
  const fields = cleanText(input);
  return withActor(db.kysely, ctx, async (trx) => {
    await lockHolidays(trx, ctx.businessId, 'exclusive');
    const holiday = await insertHoliday(trx, ctx.businessId, fields);
    if (!holiday) throw conflict(`${fields.date} is a holiday already`);
    await recomputeTolerance(trx, ctx.businessId, holiday.date);
    return holiday;
  });
}

/** The holiday deleted; 404 when the date has none. */
export function deleteHoliday(db: Database, ctx: ActorContext, date: string): Promise<HolidayRow> {
  return withActor(db.kysely, ctx, async (trx) => {
    await lockHolidays(trx, ctx.businessId, 'exclusive');
    const holiday = await deleteRow(trx, ctx.businessId, date);
    if (!holiday) throw notFound('holiday');
    await recomputeTolerance(trx, ctx.businessId, holiday.date);
    return holiday;
  });
}

/** What an import did: the holidays added, and the dates skipped because the business had one. */
export interface HolidayImport {
  added: HolidayRow[];
  skipped: HolidayInput[];
}

/**
 * Adds the given holidays that the business does not have yet, in one transaction (the tolerance
 * of the installments they reach moves as for createHoliday); a date it has already is skipped,
 * whatever its name.
 */
export function importHolidays(db: Database, ctx: ActorContext, holidays: HolidayInput[]): Promise<HolidayImport> {
  return withActor(db.kysely, ctx, async (trx) => {
    await lockHolidays(trx, ctx.businessId, 'exclusive');
    const added: HolidayRow[] = [];
    const skipped: HolidayInput[] = [];
    for (const h of holidays) {
      const row = await insertHoliday(trx, ctx.businessId, cleanText(h));
      if (row) added.push(row);
      else skipped.push(h);
    }
    for (const row of added) await recomputeTolerance(trx, ctx.businessId, row.date);
    return { added, skipped };
  });
}

/**
 * The national (public) holidays of a country in a year, from the date-holidays package, one a
 * date, by date; the names in Spanish where the package has them. Loaded on first use: the server
 * never needs the package's data. A country it does not know is a 400.
 */
export async function nationalHolidays(country: string, year: number): Promise<HolidayInput[]> {
  const code = country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) throw invalid('/country', `${country} is not a two-letter country code (e.g. AR)`);
  if (!Number.isInteger(year) || year < 1900 || year > 2200)
    throw invalid('/year', `${year} is not a year from 1900 to 2200`);
  const { default: Holidays } = await import('date-holidays');
  if (!(code in new Holidays().getCountries()))
    throw invalid('/country', `no holiday calendar for the country ${code}`);
  const calendar = new Holidays(code, { languages: ['es'], types: ['public'] });
  const byDate = new Map<string, string>();
  for (const h of calendar.getHolidays(year)) {
    if (h.type !== 'public') continue;
    const date = h.date.slice(0, 10);
    byDate.set(date, byDate.has(date) ? `${byDate.get(date)} / ${h.name}` : h.name);
  }
  return [...byDate].sort(([a], [b]) => a.localeCompare(b)).map(([date, name]) => ({ date, name }));
}
