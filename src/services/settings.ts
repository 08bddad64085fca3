// Business settings (docs/applications.md "Settings"): whether credits need an approved
// application, how much an employee may approve, the payment reminders (stored here; the daily run
// that sends them reads them), the locale and the business's time zone. A business that never
// saved them has the defaults.
import type { Executor } from '../db/connection.ts';
import {
  type BusinessSettingsRow,
  businessTimezone,
  lockBusinessSettings,
  getSettings,
  saveSettings,
  setBusinessTimezone,
} from '../db/repositories/settings.ts';
import { invalid } from '../domain/errors.ts';
import { isValidTimeZone, money, toMoneyNumber, toMoneyString } from '../domain/index.ts';
import { withActor } from '../db/connection.ts';
import type { ActorContext, Database } from './context.ts';

export interface Settings {
  approval: { required: boolean; employee_limit: number | null };
  reminders: { enabled: boolean; before_due_days: number[]; overdue_days: number[] };
  locale: 'es-AR' | 'en';
  timezone: string;
}

export const DEFAULT_SETTINGS = {
  approval: { required: false, employee_limit: null },
  reminders: { enabled: false, before_due_days: [3], overdue_days: [1, 7] },
  locale: 'es-AR',
} as const;

function present(row: BusinessSettingsRow | undefined, timezone: string): Settings {
  if (!row)
    return {
      approval: { ...DEFAULT_SETTINGS.approval },
      reminders: {
        enabled: false,
        before_due_days: [...DEFAULT_SETTINGS.reminders.before_due_days],
        overdue_days: [...DEFAULT_SETTINGS.reminders.overdue_days],
      },
      locale: DEFAULT_SETTINGS.locale,
      timezone,
    };
  return {
    approval: {
      required: row.approval_required,
      employee_limit: row.employee_limit === null ? null : toMoneyNumber(money(row.employee_limit)),
    },
    reminders: {
      enabled: row.reminders_enabled,
      before_due_days: row.before_due_days.map(Number),
      overdue_days: row.overdue_days.map(Number),
    },
    locale: row.locale as Settings['locale'],
    timezone,
  };
}

/** What the approval rules of the business are (a step of another use case's transaction). */
export async function approvalSettings(db: Executor, businessId: string): Promise<Settings['approval']> {
  const row = await getSettings(db, businessId);
  return row
    ? {
        required: row.approval_required,
        employee_limit: row.employee_limit === null ? null : toMoneyNumber(money(row.employee_limit)),
      }
    : { ...DEFAULT_SETTINGS.approval };
}

/** Whether and when the business's clients are reminded (the daily run's step). */
export async function reminderSettings(db: Executor, businessId: string): Promise<Settings['reminders']> {
  const row = await getSettings(db, businessId);
  return row
    ? {
        enabled: row.reminders_enabled,
        before_due_days: row.before_due_days.map(Number),
        overdue_days: row.overdue_days.map(Number),
      }
    : { enabled: false, before_due_days: [], overdue_days: [] };
}

export async function readSettings(db: Database, ctx: ActorContext): Promise<Settings> {
  const [row, timezone] = await Promise.all([
    getSettings(db.kysely, ctx.businessId),
    businessTimezone(db.kysely, ctx.businessId),
  ]);
  return present(row, timezone);
}

/** A change of the settings: any section, or any field of one; what is left out keeps its value. */
export interface SettingsChange {
  approval?: Partial<Settings['approval']>;
  reminders?: Partial<Settings['reminders']>;
  locale?: Settings['locale'];
  timezone?: string;
}

/** Changes the settings: the whole record as GET shows it, or only the parts given. */
export async function updateSettings(db: Database, ctx: ActorContext, change: SettingsChange): Promise<Settings> {
  if (change.timezone !== undefined && !isValidTimeZone(change.timezone))
    throw invalid('/timezone', `${change.timezone} is not an IANA time zone (e.g. America/Argentina/Buenos_Aires)`);
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  return withActor(db.kysely, ctx, async (trx) => {
    // the business's row first (locked): a change made at the same time is read, not overwritten
    const timezone = await lockBusinessSettings(trx, ctx.businessId);
    const saved = present(await getSettings(trx, ctx.businessId), timezone);
    const input: Settings = {
      approval: { ...saved.approval, ...change.approval },
      reminders: { ...saved.reminders, ...change.reminders },
      locale: change.locale ?? saved.locale,
      timezone: change.timezone ?? saved.timezone,
    };
    const row = await saveSettings(trx, ctx.businessId, {
      approval_required: input.approval.required,
      employee_limit:
        input.approval.employee_limit === null ? null : toMoneyString(money(input.approval.employee_limit)),
      reminders_enabled: input.reminders.enabled,
      before_due_days: sorted(input.reminders.before_due_days),
      overdue_days: sorted(input.reminders.overdue_days),
      locale: input.locale,
    });
    await setBusinessTimezone(trx, ctx.businessId, input.timezone);
    return present(row, input.timezone);
  });
}
