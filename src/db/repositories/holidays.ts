// A business's holidays, and the tolerance of the installments they move (src/services/holidays.ts).
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { Holiday } from '../schema.ts';

export type HolidayRow = Pick<Holiday, 'date' | 'name' | 'created_at'>;
const COLUMNS = ['date', 'name', 'created_at'] as const;

// The advisory lock class of a business's holidays (the second key is the business's hash).
export const HOLIDAY_LOCK = 727_412;

/**
 * Takes the business's holiday lock until the transaction ends: exclusive for a change of the
 * holidays, shared for a reader that stores what it derives from them (a new credit's tolerance
 * days). Call it before reading the holidays: the next statement sees every change committed before.
 */
export async function lockHolidays(db: Executor, businessId: string, mode: 'share' | 'exclusive'): Promise<void> {
  await (mode === 'share'
    ? sql`SELECT pg_advisory_xact_lock_shared(${HOLIDAY_LOCK}, hashtext(${businessId}))`
    : sql`SELECT pg_advisory_xact_lock(${HOLIDAY_LOCK}, hashtext(${businessId}))`
  ).execute(db);
}

/** By date, within from..to (both included) when given. */
export function listHolidays(
  db: Executor,
  businessId: string,
  range: { from?: string; to?: string } = {},
): Promise<HolidayRow[]> {
  let q = db.selectFrom('holidays').select(COLUMNS).where('business_id', '=', businessId);
  if (range.from) q = q.where('date', '>=', range.from);
  if (range.to) q = q.where('date', '<=', range.to);
  return q.orderBy('date').execute();
}

/** Every holiday date of the business. */
export async function holidayDates(db: Executor, businessId: string): Promise<string[]> {
  const rows = await db.selectFrom('holidays').select('date').where('business_id', '=', businessId).execute();
  return rows.map((r) => r.date);
}

/** The holiday inserted, or undefined when the date has one already. */
export function insertHoliday(
  db: Executor,
  businessId: string,
  input: { date: string; name: string },
): Promise<HolidayRow | undefined> {
  return db
    .insertInto('holidays')
    .values({ business_id: businessId, date: input.date, name: input.name })
    .onConflict((oc) => oc.columns(['business_id', 'date']).doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** The holiday deleted, or undefined when the date had none. */
export function deleteHoliday(db: Executor, businessId: string, date: string): Promise<HolidayRow | undefined> {
  return db
    .deleteFrom('holidays')
    .where('business_id', '=', businessId)
    .where('date', '=', date)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/**
 * Sets the tolerance of the business's installments not fully paid that are due on the given
 * dates, in one statement that writes only the rows whose tolerance changes; returns how many.
 */
export async function setToleranceDays(
  db: Executor,
  businessId: string,
  tolerances: readonly { dueDate: string; days: number }[],
): Promise<number> {
  if (tolerances.length === 0) return 0;
  const values = sql.join(tolerances.map((t) => sql`(${t.dueDate}::date, ${t.days}::integer)`));
  const r = await sql`
    UPDATE installments i SET tolerance_days = v.days, updated_at = now()
      FROM (VALUES ${values}) AS v (due_date, days)
     WHERE i.business_id = ${businessId} AND i.due_date = v.due_date AND i.status <> 'paid'
       AND i.tolerance_days <> v.days`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
