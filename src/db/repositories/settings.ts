// Business settings (migration 036): one row per business, none until an admin saves them; the
// time zone is the business's own column.
import { sql } from 'kysely';
import type { Executor } from '../connection.ts';
import type { BusinessSettingsRow } from '../schema.ts';

export type { BusinessSettingsRow };

export interface SettingsValues {
  approval_required: boolean;
  employee_limit: string | null;
  reminders_enabled: boolean;
  before_due_days: number[];
  overdue_days: number[];
  locale: string;
}

/** The business's saved settings, if any; `lock` holds the business's row until the transaction ends. */
export function getSettings(db: Executor, businessId: string): Promise<BusinessSettingsRow | undefined> {
  return db.selectFrom('business_settings').selectAll().where('business_id', '=', businessId).executeTakeFirst();
}

/**
 * The business's time zone, its row locked until the transaction ends: the lock that a change of
 * the settings (read, merged with what is sent, written back) holds, so two at once do not undo
 * each other's fields.
 */
export async function lockBusinessSettings(db: Executor, businessId: string): Promise<string> {
  const b = await db
    .selectFrom('businesses')
    .select('timezone')
    .where('id', '=', businessId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return b.timezone;
}

/** The business's time zone. */
export async function businessTimezone(db: Executor, businessId: string): Promise<string> {
  const b = await db.selectFrom('businesses').select('timezone').where('id', '=', businessId).executeTakeFirstOrThrow();
  return b.timezone;
}

/** Writes the settings (the row is created the first time). */
export function saveSettings(db: Executor, businessId: string, v: SettingsValues): Promise<BusinessSettingsRow> {
  // int[] as text: both drivers take the array literal
  const values = {
    ...v,
    before_due_days: sql<number[]>`${`{${v.before_due_days.join(',')}}`}::int[]`,
    overdue_days: sql<number[]>`${`{${v.overdue_days.join(',')}}`}::int[]`,
  };
  return db
    .insertInto('business_settings')
    .values({ business_id: businessId, ...values })
    .onConflict((oc) => oc.column('business_id').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes the business's time zone (a trigger announces it to the key caches, migration 007). */
export async function setBusinessTimezone(db: Executor, businessId: string, timezone: string): Promise<void> {
  await db
    .updateTable('businesses')
    .set({ timezone, updated_at: sql`now()` })
    .where('id', '=', businessId)
    .where('timezone', '<>', timezone)
    .execute();
}
