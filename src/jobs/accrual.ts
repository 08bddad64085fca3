// The daily delinquency run (DOMAIN.md): posts the punitory owed as of a date on every overdue
// installment and writes off the credits past their plan's write_off_days. Idempotent (it posts
// cumulative − already posted and marks each credit accrued through the date), so the server runs
// it hourly and each business is accrued for its own today.
//
// Set-based: credits are taken in batches (locked with SKIP LOCKED, so two processes running it
// share the work instead of doing it twice), their unpaid installments and payment histories are
// read in two queries, the punitory is computed in JS with the pure rules, and the batch's
// entries go in with one multi-row INSERT. How far each credit is accrued lives in
// credit_accruals, not in the audited credits row: marking a batch writes no audit entry.
import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/connection.ts';
import { withActor } from '../db/connection.ts';
import type { Business } from '../db/schema.ts';
import { getBusiness, listBusinesses } from '../db/repositories/businesses.ts';
import {
  accrualInstallments,
  installmentHistories,
  insertLedger,
  lockAccrualBatch,
  markAccrued,
  setInstallmentState,
  writeOffOverdue,
  type NewLedgerEntry,
} from '../db/repositories/credits.ts';
import { Dec, compareDates, money, punitoryToPost, todayIn, toMoneyString } from '../domain/index.ts';
import { creditTerms, cumulativeOf, emptyState, statusOf, stopDate } from '../services/ledgerState.ts';

export interface AccrualOptions {
  /** accrue as of this date; each business is clamped to its own today (default: its today) */
  asOf?: string;
  businessId?: string;
  /** audit actor and created_by of the entries: `cli` or `system:accrual` */
  actor: string;
  /** credits a batch (≈ 4 installments each) */
  batchSize?: number;
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

export async function accrueBusiness(db: Database, business: Business, opts: AccrualOptions): Promise<BusinessAccrual> {
  const tz = business.timezone;
  const today = todayIn(tz);
  // never ahead of the business's calendar: punitory is never charged for a day not yet lived
  const asOf = opts.asOf && compareDates(opts.asOf, today) < 0 ? opts.asOf : today;
  const limit = opts.batchSize ?? DEFAULT_BATCH;
  const bid = business.id;
  const out: BusinessAccrual = { business_id: bid, as_of: asOf, credits_accrued: 0, punitory_entries: 0, punitory_total: '0.00', written_off: 0 };
  let total = new Dec(0);
  let afterId: string | null = null;

  for (;;) {
    const batch = await withActor(db.kysely, opts.actor, async (trx) => {
      const { credits, lastId } = await lockAccrualBatch(trx, bid, { asOf, timezone: tz, afterId, limit });
      if (lastId === null) return null;
      const ids = credits.map((c) => c.id);
      const [insts, hist] = await Promise.all([accrualInstallments(trx, bid, ids), installmentHistories(trx, bid, ids)]);
      const histById = new Map(hist.map((h) => [h.installment_id, h]));
      const byCredit = new Map<string, typeof insts>();
      for (const i of insts) {
        const list = byCredit.get(i.credit_id);
        if (list) list.push(i);
        else byCredit.set(i.credit_id, [i]);
      }

      const rows: NewLedgerEntry[] = [];
      const statusChanges: { id: string; status: 'pending' | 'partial' | 'paid'; paidDate: string | null }[] = [];
      for (const c of credits) {
        const terms = creditTerms(c);
        const stop = stopDate(c, tz);
        for (const i of byCredit.get(c.id) ?? []) {
          const s = emptyState(i);
          const h = histById.get(i.id);
          if (h) {
            s.punitoryPosted = money(h.punitory_posted);
            for (const [paidOn, principal, punitory] of h.payments ?? []) {
              const p = { paidOn, principal: money(principal), punitory: money(punitory) };
              s.payments.push(p);
              s.principalPaid = s.principalPaid.plus(p.principal);
              s.punitoryPaid = s.punitoryPaid.plus(p.punitory);
            }
          }
          const diff = punitoryToPost(cumulativeOf(s, terms, asOf, stop), s.punitoryPosted);
          if (diff.isZero()) continue;
          rows.push({
            credit_id: c.id,
            installment_id: i.id,
            type: 'punitory',
            amount: toMoneyString(diff),
            effective_date: asOf,
            branch_id: c.branch_id,
            created_by: opts.actor,
          });
          total = total.plus(diff);
          s.punitoryPosted = s.punitoryPosted.plus(diff);
          // only a correction (negative) could change a status; kept general
          const next = statusOf(s);
          if (next.status !== i.status || next.paidDate !== i.paid_date) statusChanges.push({ id: i.id, ...next });
        }
      }
      await insertLedger(trx, bid, rows);
      for (const ch of statusChanges) await setInstallmentState(trx, bid, ch.id, ch.status, ch.paidDate);
      await markAccrued(trx, bid, ids, asOf);
      return { lastId, credits: ids.length, entries: rows.length };
    });
    if (!batch) break;
    afterId = batch.lastId;
    out.credits_accrued += batch.credits;
    out.punitory_entries += batch.entries;
  }

  const writtenOff = await withActor(db.kysely, opts.actor, (trx) => writeOffOverdue(trx, bid, { asOf, timezone: tz, now: asOf === today }));
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

// The server's scheduler: ACCRUAL_SCHEDULE (default hourly at :15), off when set to "off".
// protect: a run still going when the next one is due is not started twice in this process;
// other processes share the work through SKIP LOCKED.
export function startAccrualSchedule(db: Database, config: Config, log: FastifyBaseLogger): () => void {
  if (!config.accrualSchedule) return () => {};
  const job = new Cron(config.accrualSchedule, { protect: true, catch: (err) => log.error({ err }, 'accrual run failed') }, async () => {
    const started = Date.now();
    const results = await runAccrual(db, {
      actor: 'system:accrual',
      onError: (b, err) => log.error({ err, business_id: b.id }, 'accrual failed for a business'),
    });
    const sum = (k: 'credits_accrued' | 'punitory_entries' | 'written_off') => results.reduce((n, r) => n + r[k], 0);
    log.info(
      { businesses: results.length, credits: sum('credits_accrued'), entries: sum('punitory_entries'), written_off: sum('written_off'), ms: Date.now() - started },
      'accrual run done',
    );
  });
  return () => job.stop();
}
