// The daily delinquency run (DOMAIN.md): posts the punitory owed as of a date on every overdue
// installment and writes off the credits past their plan's write_off_days. Idempotent (it posts
// cumulative − already posted and marks each credit accrued through the date), so the server runs
// it hourly (src/jobs/accrual.ts) and each business is accrued for its own today.
//
// Set-based: credits are taken in batches (locked with SKIP LOCKED, so two processes running it
// share the work instead of doing it twice), their unpaid installments and payment histories are
// read in two queries, the punitory is computed in JS with the rules the payment path uses
// (ledgerState.ts), and the batch's entries go in with one multi-row INSERT. How far each credit
// is accrued lives in credit_accruals, not in the audited credits row: marking a batch writes no
// audit entry.
import type { Database } from '../db/connection.ts';
import { withActor } from '../db/connection.ts';
import type { Business, InstallmentStatus } from '../db/schema.ts';
import { getBusiness, listBusinesses } from '../db/repositories/businesses.ts';
import { lockAccrualBatch, writeOffOverdue, type AccrualCandidate } from '../db/repositories/credits.ts';
import { accrualInstallments, setInstallmentState, type AccrualInstallment } from '../db/repositories/installments.ts';
import {
  installmentHistories,
  insertLedger,
  type InstallmentHistory,
  type NewLedgerEntry,
} from '../db/repositories/ledger.ts';
import { markAccrued } from '../db/repositories/creditAccruals.ts';
import { Dec, compareDates, systemClock, todayIn, toMoneyString, type Clock, type Decimal } from '../domain/index.ts';
import { addPunitory, creditTerms, punitoryPostings, stateFromHistory, statusOf, stopDate } from './ledgerState.ts';

export interface AccrualOptions {
  /** accrue as of this date; each business is clamped to its own today (default: its today) */
  asOf?: string;
  businessId?: string;
  /** audit actor and created_by of the entries: `cli` or `system:accrual` */
  actor: string;
  /** credits a batch (≈ 4 installments each) */
  batchSize?: number;
  /** where now comes from (default: the real time) */
  clock?: Clock;
  /** given: a business that fails is reported here and the run goes on with the others */
  onError?: (business: Business, err: unknown) => void;
}

export interface BusinessAccrual {
  business_id: string;
  as_of: string;
  credits_accrued: number;
  punitory_entries: number;
  punitory_total: string;
  written_off: number;
}

export const DEFAULT_BATCH = 500;

interface BatchPostings {
  rows: NewLedgerEntry[];
  statusChanges: { id: string; status: InstallmentStatus; paidDate: string | null }[];
  total: Decimal;
}

/** What a batch posts: per credit, the punitory owed as of asOf on each unpaid installment, and the statuses that change with it. */
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
  const out: BatchPostings = { rows: [], statusChanges: [], total: new Dec(0) };
  for (const c of credits) {
    const insts = byCredit.get(c.id) ?? [];
    const byId = new Map(insts.map((i) => [i.id, i]));
    const states = insts.map((i) => stateFromHistory(i, historyOf.get(i.id)));
    for (const { state, amount } of punitoryPostings(states, creditTerms(c), o.asOf, stopDate(c, o.timezone))) {
      out.rows.push({
        credit_id: c.id,
        installment_id: state.id,
        type: 'punitory',
        amount: toMoneyString(amount),
        effective_date: o.asOf,
        branch_id: c.branch_id,
        created_by: o.actor,
      });
      out.total = out.total.plus(amount);
      addPunitory(state, amount);
      // only a correction (negative) could change a status; kept general
      const before = byId.get(state.id)!;
      const next = statusOf(state);
      if (next.status !== before.status || next.paidDate !== before.paid_date)
        out.statusChanges.push({ id: state.id, ...next });
    }
  }
  return out;
}

export async function accrueBusiness(db: Database, business: Business, opts: AccrualOptions): Promise<BusinessAccrual> {
  const tz = business.timezone;
  const now = (opts.clock ?? systemClock)();
  const today = todayIn(tz, now);
  // never ahead of the business's calendar: punitory is never charged for a day not yet lived
  const asOf = opts.asOf && compareDates(opts.asOf, today) < 0 ? opts.asOf : today;
  const limit = opts.batchSize ?? DEFAULT_BATCH;
  const bid = business.id;
  const out: BusinessAccrual = {
    business_id: bid,
    as_of: asOf,
    credits_accrued: 0,
    punitory_entries: 0,
    punitory_total: '0.00',
    written_off: 0,
  };
  let total = new Dec(0);
  let afterId: string | null = null;

  for (;;) {
    const batch = await withActor(db.kysely, opts.actor, async (trx) => {
      const { credits, lastId } = await lockAccrualBatch(trx, bid, { asOf, timezone: tz, afterId, limit });
      if (lastId === null) return null;
      const ids = credits.map((c) => c.id);
      const [insts, hist] = await Promise.all([
        accrualInstallments(trx, bid, ids),
        installmentHistories(trx, bid, ids),
      ]);
      const p = batchPostings(credits, insts, hist, { asOf, timezone: tz, actor: opts.actor });
      await insertLedger(trx, bid, p.rows);
      for (const ch of p.statusChanges) await setInstallmentState(trx, bid, ch.id, ch.status, ch.paidDate);
      await markAccrued(trx, bid, ids, asOf);
      return { lastId, credits: ids.length, entries: p.rows.length, total: p.total };
    });
    if (!batch) break;
    afterId = batch.lastId;
    out.credits_accrued += batch.credits;
    out.punitory_entries += batch.entries;
    total = total.plus(batch.total);
  }

  const writtenOff = await withActor(db.kysely, opts.actor, (trx) =>
    writeOffOverdue(trx, bid, { asOf, timezone: tz, at: asOf === today ? now : null }),
  );
  out.written_off = writtenOff.length;
  out.punitory_total = toMoneyString(total);
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
