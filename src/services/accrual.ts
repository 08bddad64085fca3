// The daily delinquency run (docs/domain.md, "Punitory" and "Write-off"):
//   1. the month close: for every credit with an unpaid installment due before the last day of
//      the most recent month that has ended (`closed_through`), posts the punitory owed up to that
//      day (cumulative − already posted) and marks the credit posted through it. Once a month per
//      credit at most: on the other days of the month the candidates query finds nothing, and the
//      ledger grows with months, not with the days a credit stays late (reads add what accrued
//      since the last posting: lending/engine/state.ts owedOf, the summary's punitory_cumulative);
//   2. the automatic write-off, decided as of today only: an event, so the punitory owed up to
//      today is posted first, then the credit is written off. A run `--as-of` a past date closes
//      the months ended by then and writes nothing off.
// Idempotent, so the server runs it hourly (src/jobs/accrual.ts) and each business is handled for
// its own today.
//
// Set-based: the candidates are found by index reads, then taken in batches of credits (locked
// with SKIP LOCKED, so two processes share the work instead of doing it twice), two batches at a
// time. A close batch is one INSERT … SELECT that computes every installment's punitory in the
// database (punitory_cumulative, the SQL twin of src/domain/punitory.ts that the summary report
// uses too; test/domain/punitory-sql.test.ts keeps them equal to the cent). A write-off batch reads
// the installments and payment histories and computes in JS, as a payment does (lending/engine/state.ts).
// How far each credit is posted lives in credit_accruals, not in the audited credits row.
//
// One credit never stops the run: a batch that fails is done again one credit at a time, and a
// credit that still fails is skipped (left for the next run), reported through onCredit and
// counted. Punitory that would not fit numeric(14,2) stops at the storable maximum (punitory.ts):
// such credits are posted, reported and counted too.
import { queueReminders } from './notifications.ts';
import { reminderSettings } from './settings.ts';
import type { Transaction } from 'kysely';
import type { Database } from '../db/connection.ts';
import { withActor } from '../db/connection.ts';
import type { Business, DB, InstallmentStatus, LedgerEntry } from '../db/schema.ts';
import { getBusiness, listBusinesses } from '../db/repositories/businesses.ts';
import {
  closeCandidates,
  lockForClose,
  lockForWriteOff,
  markWrittenOff,
  writeOffCandidates,
  type AccrualCandidate,
} from '../db/repositories/credits.ts';
import {
  accrualInstallments,
  newlyOverdue,
  setInstallmentState,
  type AccrualInstallment,
} from '../db/repositories/installments.ts';
import { lockOverdueThrough, setOverdueThrough } from '../db/repositories/events.ts';
import { emit } from './events.ts';
import { announceStatus } from './lending/store.ts';
import { worklistItems } from './credits.ts';
import { settleBusinessPromises } from './collections.ts';
import { presentLedgerEntry } from './present.ts';
import {
  installmentHistories,
  insertLedger,
  ledgerEntriesByIds,
  postChargesThrough,
  postPunitoryThrough,
  type InstallmentHistory,
  type NewLedgerEntry,
} from '../db/repositories/ledger.ts';
import { markAccrued } from '../db/repositories/creditAccruals.ts';
import {
  Dec,
  addDays,
  compareDates,
  lastMonthEnd,
  systemClock,
  todayIn,
  toMoneyString,
  type Clock,
  type Decimal,
} from '../domain/index.ts';
import {
  addPunitory,
  chargePostings,
  creditTerms,
  punitoryPostings,
  stateFromHistory,
  statusOf,
  stopDate,
} from './lending/engine/state.ts';

/** One credit the run reports: its punitory stopped at the storable maximum, or it failed and was skipped. */
export interface CreditReport {
  business_id: string;
  credit_id: string;
  kind: 'clamped' | 'skipped';
  /** the failure, for `skipped` */
  error?: unknown;
}

export interface AccrualOptions {
  /** run as of this date; each business is clamped to its own today (default: its today) */
  asOf?: string;
  businessId?: string;
  /** audit actor and created_by of the entries: `cli` or `system:accrual` */
  actor: string;
  /** credits a batch (default 1,000, ≈ 4 installments each) */
  batchSize?: number;
  /** batches at once (default 2 on PostgreSQL, 1 embedded) */
  concurrency?: number;
  /** where now comes from (default: the real time) */
  clock?: Clock;
  /** given: a business that fails is reported here and the run goes on with the others */
  onError?: (business: Business, err: unknown) => void;
  /** SMTP_URL is set: reminders are queued to be sent (else recorded as not_configured) */
  mailConfigured?: boolean;
  /** each credit clamped or skipped (the counts are in the result either way) */
  onCredit?: (report: CreditReport) => void;
}

export interface BusinessAccrual {
  business_id: string;
  /** the run's date */
  as_of: string;
  /** the month close: punitory is posted up to this day (the last day of the last ended month) */
  closed_through: string;
  /** credits the close posted on (and marked posted through closed_through) */
  credits_accrued: number;
  punitory_entries: number;
  punitory_total: string;
  /** collection charges posted (and corrected), one entry each */
  charge_entries: number;
  written_off: number;
  /** installments announced as newly late (installment.overdue): those due since the last run, up to yesterday */
  overdue_announced: number;
  /** promises found broken (promise.broken): pending ones whose day passed without the payments */
  promises_broken: number;
  /** credits whose punitory stopped at the storable maximum (999,999,999,999.99) */
  clamped: number;
  /** credits that failed and were left for the next run */
  skipped: number;
}

export const DEFAULT_BATCH = 1000;

interface BatchPostings {
  rows: NewLedgerEntry[];
  statusChanges: { id: string; status: InstallmentStatus; paidDate: string | null }[];
  total: Decimal;
  clamped: string[];
  /** collection charge entries among rows */
  charges: number;
}

/**
 * What a write-off batch posts (an event: up to its date, computed in JS like a payment's): per
 * credit, the punitory owed as of asOf on each unpaid installment, and the statuses that change.
 */
function batchPostings(
  credits: AccrualCandidate[],
  installments: AccrualInstallment[],
  histories: InstallmentHistory[],
  o: { asOf: string; timezone: string; actor: string },
): BatchPostings {
  const historyOf = new Map(histories.map((h) => [h.installment_id, h]));
  const byCredit = new Map<string, AccrualInstallment[]>();
  for (const i of installments) {
    const list = byCredit.get(i.credit_id);
    if (list) list.push(i);
    else byCredit.set(i.credit_id, [i]);
  }
  const out: BatchPostings = { rows: [], statusChanges: [], total: new Dec(0), clamped: [], charges: 0 };
  for (const c of credits) {
    const insts = byCredit.get(c.id) ?? [];
    const byId = new Map(insts.map((i) => [i.id, i]));
    const states = insts.map((i) => stateFromHistory(i, historyOf.get(i.id)));
    const terms = creditTerms(c);
    const stop = stopDate(c, o.timezone);
    // the collection charges whose day has come, each dated its day (as an event posts them)
    for (const ch of chargePostings(states, terms, o.asOf, stop)) {
      out.rows.push({
        credit_id: c.id,
        installment_id: ch.state.id,
        type: 'charge',
        origin: ch.amount.lt(0) ? 'correction' : 'fee',
        amount: toMoneyString(ch.amount),
        vat_part: toMoneyString(ch.vat),
        effective_date: ch.date,
        branch_id: c.branch_id,
        created_by: o.actor,
      });
      out.charges += 1;
    }
    const { postings, atStorableMax } = punitoryPostings(states, terms, o.asOf, stop);
    if (atStorableMax.length > 0) out.clamped.push(c.id);
    for (const { state, amount, vat } of postings) {
      out.rows.push({
        credit_id: c.id,
        installment_id: state.id,
        type: 'punitory',
        origin: amount.lt(0) ? 'correction' : 'accrual',
        amount: toMoneyString(amount),
        vat_part: toMoneyString(vat),
        effective_date: o.asOf,
        branch_id: c.branch_id,
        created_by: o.actor,
      });
      out.total = out.total.plus(amount);
      addPunitory(state, amount, vat);
      // only a correction (negative) could change a status; kept general
      const before = byId.get(state.id)!;
      const next = statusOf(state);
      if (next.status !== before.status || next.paidDate !== before.paid_date)
        out.statusChanges.push({ id: state.id, ...next });
    }
  }
  return out;
}

interface BatchResult {
  credits: number;
  entries: number;
  /** collection charge entries (docs/domain.md "Fees and charges") */
  charges: number;
  total: Decimal;
  clamped: string[];
  writtenOff: number;
}

/** Posts a write-off batch's punitory as of asOf and marks its credits posted through it. */
async function postBatch(
  trx: Transaction<DB>,
  bid: string,
  credits: AccrualCandidate[],
  o: { asOf: string; timezone: string; actor: string },
): Promise<BatchResult> {
  const ids = credits.map((c) => c.id);
  const [insts, hist] = await Promise.all([accrualInstallments(trx, bid, ids), installmentHistories(trx, bid, ids)]);
  const p = batchPostings(credits, insts, hist, o);
  announcePunitory(trx, bid, await insertLedger(trx, bid, p.rows));
  for (const ch of p.statusChanges) await setInstallmentState(trx, bid, ch.id, ch.status, ch.paidDate);
  await markAccrued(trx, bid, ids, o.asOf);
  return {
    credits: ids.length,
    entries: p.rows.length - p.charges,
    charges: p.charges,
    total: p.total,
    clamped: p.clamped,
    writtenOff: 0,
  };
}

/** punitory.posted, one event a punitory entry (a charge is announced by the ledger feed only). */
function announcePunitory(trx: Transaction<DB>, bid: string, entries: LedgerEntry[]): void {
  for (const e of entries)
    if (e.type === 'punitory') emit(trx, bid, 'punitory.posted', presentLedgerEntry(e), { creditId: e.credit_id });
}

/**
 * Runs `work` on the ids in batches, each in its own transaction, `concurrency` at a time (the
 * batches hold disjoint credits). A batch that fails is done again one credit at a time; a credit
 * that still fails is skipped and reported.
 */
async function inBatches(
  db: Database,
  ids: string[],
  o: { actor: string; limit: number; concurrency: number; onSkipped: (id: string, err: unknown) => void },
  work: (trx: Transaction<DB>, ids: string[]) => Promise<BatchResult>,
  add: (r: BatchResult) => void,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let at = next; at < ids.length; at = next) {
      next += o.limit;
      const batch = ids.slice(at, at + o.limit);
      try {
        add(await withActor(db.kysely, { actor: o.actor }, (trx) => work(trx, batch)));
      } catch {
        for (const id of batch) {
          try {
            add(await withActor(db.kysely, { actor: o.actor }, (trx) => work(trx, [id])));
          } catch (err) {
            o.onSkipped(id, err);
          }
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
}

export async function accrueBusiness(db: Database, business: Business, opts: AccrualOptions): Promise<BusinessAccrual> {
  const tz = business.timezone;
  const now = (opts.clock ?? systemClock)();
  const today = todayIn(tz, now);
  // never ahead of the business's calendar: punitory is never charged for a day not yet lived
  const asOf = opts.asOf && compareDates(opts.asOf, today) < 0 ? opts.asOf : today;
  const close = lastMonthEnd(asOf);
  const limit = opts.batchSize ?? DEFAULT_BATCH;
  const bid = business.id;
  let total = new Dec(0);
  const clamped = new Set<string>();
  const skipped = new Set<string>();
  const out: BusinessAccrual = {
    business_id: bid,
    as_of: asOf,
    closed_through: close,
    credits_accrued: 0,
    punitory_entries: 0,
    punitory_total: '0.00',
    charge_entries: 0,
    written_off: 0,
    overdue_announced: 0,
    promises_broken: 0,
    clamped: 0,
    skipped: 0,
  };
  const add = (r: BatchResult) => {
    out.credits_accrued += r.credits;
    out.punitory_entries += r.entries;
    out.charge_entries += r.charges;
    out.written_off += r.writtenOff;
    total = total.plus(r.total);
    for (const id of r.clamped) {
      if (clamped.has(id)) continue;
      clamped.add(id);
      opts.onCredit?.({ business_id: bid, credit_id: id, kind: 'clamped' });
    }
  };
  const batches = {
    actor: opts.actor,
    limit,
    // two batches at once keep both the database's work and this process's busy (the embedded
    // database has one connection, which serialises them anyway)
    concurrency: opts.concurrency ?? (db.mode === 'postgres' ? 2 : 1),
    onSkipped: (id: string, error: unknown) => {
      skipped.add(id);
      opts.onCredit?.({ business_id: bid, credit_id: id, kind: 'skipped', error });
    },
  };
  const posting = { timezone: tz, actor: opts.actor };

  // 1. the month close
  const toClose = await closeCandidates(db.kysely, bid, { close, timezone: tz });
  await inBatches(
    db,
    toClose,
    batches,
    async (trx, ids) => {
      const locked = (await lockForClose(trx, bid, ids, { close, timezone: tz })).map((c) => c.id);
      const closing = { asOf: close, timezone: tz, createdBy: opts.actor };
      const charged = await postChargesThrough(trx, bid, locked, closing);
      const p = await postPunitoryThrough(trx, bid, locked, closing);
      announcePunitory(trx, bid, await ledgerEntriesByIds(trx, bid, p.ids));
      await markAccrued(trx, bid, locked, close);
      return {
        credits: locked.length,
        entries: p.entries,
        charges: charged.entries,
        total: new Dec(p.total),
        clamped: p.atStorableMax,
        writtenOff: 0,
      };
    },
    add,
  );

  // 2. the automatic write-off: today only; punitory up to today first
  if (asOf === today) {
    const toWriteOff = await writeOffCandidates(db.kysely, bid, { today });
    await inBatches(
      db,
      toWriteOff,
      batches,
      async (trx, ids) => {
        const locked = await lockForWriteOff(trx, bid, ids);
        // the rule again, on the installments read now that the locks are held: a payment that
        // committed just before may have paid the late installment
        const unpaid = await accrualInstallments(
          trx,
          bid,
          locked.map((c) => c.id),
        );
        const oldest = new Map<string, string>(); // per credit, its oldest unpaid due date
        for (const i of unpaid) {
          const o = oldest.get(i.credit_id);
          if (o === undefined || i.due_date < o) oldest.set(i.credit_id, i.due_date);
        }
        const due = locked.filter((c) => {
          const o = oldest.get(c.id);
          return o !== undefined && compareDates(o, addDays(today, -c.write_off_days)) <= 0;
        });
        const r = await postBatch(trx, bid, due, { ...posting, asOf: today });
        const written = await markWrittenOff(
          trx,
          bid,
          due.map((c) => c.id),
          now,
        );
        for (const c of written) announceStatus(trx, bid, c, 'active');
        // the close counts credits posted on; these are counted as written off
        return { ...r, credits: 0, writtenOff: due.length };
      },
      add,
    );
  }

  // 3. installment.overdue for the installments that became late since the last run: today only
  if (asOf === today) {
    out.overdue_announced = await withActor(db.kysely, { actor: opts.actor }, async (trx) => {
      const through = await lockOverdueThrough(trx, bid);
      // late today: due yesterday or before. A business's first run announces every installment
      // late by then (none was announced before); books that existed before the feed start from
      // the day migration 012 ran (their late installments were not news)
      const to = addDays(today, -1);
      const from = through === null ? null : addDays(through, 1);
      if (from !== null && compareDates(from, to) > 0) return 0;
      const rows = await newlyOverdue(trx, bid, { from, to });
      const items = await worklistItems(trx, { businessId: bid, today, timezone: tz }, rows);
      for (const item of items) emit(trx, bid, 'installment.overdue', item, { creditId: item.credit_id });
      await setOverdueThrough(trx, bid, to);
      return items.length;
    });
  }

  // 4. promises whose day has passed are decided for good; each broken one announced once
  if (asOf === today) {
    const r = await withActor(db.kysely, { actor: opts.actor }, (trx) => settleBusinessPromises(trx, bid, today));
    out.promises_broken = r.broken;
  }

  // 5. the reminders of today, when the business has them on (docs/notifications.md): queued
  // once per installment and rule, whatever runs twice; the mail job sends them
  if (asOf === today) {
    const reminders = await reminderSettings(db.kysely, bid);
    if (reminders.enabled)
      await queueReminders(
        db,
        { businessId: bid, businessName: business.name, today, timezone: tz, now },
        reminders,
        opts.mailConfigured ?? false,
      );
  }

  out.punitory_total = toMoneyString(total);
  out.clamped = clamped.size;
  out.skipped = skipped.size;
  return out;
}

/** Runs the daily run for one business or all of them, each as of its own today (or the given date, never later). */
export async function runAccrual(db: Database, opts: AccrualOptions): Promise<BusinessAccrual[]> {
  let businesses: Business[];
  if (opts.businessId) {
    const b = await getBusiness(db.kysely, opts.businessId);
    if (!b) throw new Error(`no business ${opts.businessId}`);
    businesses = [b];
  } else {
    businesses = await listBusinesses(db.kysely);
  }
  const results: BusinessAccrual[] = [];
  for (const b of businesses) {
    try {
      results.push(await accrueBusiness(db, b, opts));
    } catch (err) {
      // the scheduler carries on with the other businesses; the command line stops and says so
      if (!opts.onError) throw err;
      opts.onError(b, err);
    }
  }
  return results;
}
