// The daily run over the bench book (benches daily and close): the run the server's scheduler and
// `lending accrue` call (src/services/accrual.ts accrueBusiness), in this process, on a clock set
// to the day being measured, so the figures do not depend on the day the bench is run (the book
// is built for one calendar day: book.built_for); and the database-only ceilings of its work.
import type pg from 'pg';
import { openPostgres } from '../../src/db/connection.ts';
import { getBusiness } from '../../src/db/repositories/businesses.ts';
import { closeCandidates, writeOffCandidates } from '../../src/db/repositories/credits.ts';
import { lastMonthEnd } from '../../src/domain/index.ts';
import { accrueBusiness, type BusinessAccrual } from '../../src/services/accrual.ts';
import type { BookInfo } from './db.ts';

/** Noon of a calendar day in a time zone, near enough for a clock: that day there, whatever the offset (≤ 12 h). */
export function noonOf(day: string): Date {
  return new Date(`${day}T12:00:00Z`);
}

export interface TimedRun {
  result: BusinessAccrual;
  ms: number;
  /** credits reported as clamped or skipped, as the job would log them */
  reported: string[];
}

/** One run of the business's daily run as of `day` (its today), timed. */
export async function timedRun(url: string, book: BookInfo, day: string): Promise<TimedRun> {
  const db = await openPostgres(url);
  try {
    const business = await getBusiness(db.kysely, book.business_id);
    if (!business) throw new Error(`no business ${book.business_id} in the bench database`);
    const reported: string[] = [];
    const t0 = performance.now();
    const result = await accrueBusiness(db, business, {
      actor: 'system:accrual',
      clock: () => noonOf(day),
      onCredit: (r) => reported.push(`${r.kind} ${r.credit_id}`),
    });
    return { result, ms: performance.now() - t0, reported };
  } finally {
    await db.close();
  }
}

/**
 * The statements that find the run's work (the close's candidates, the write-off's), on their own
 * through one bare connection: what an ordinary day costs the database when there is nothing to do.
 */
export async function candidatesCeiling(url: string, book: BookInfo, day: string): Promise<number> {
  const db = await openPostgres(url, 1);
  try {
    await getBusiness(db.kysely, book.business_id); // connected, as the run is when its clock starts
    const t0 = performance.now();
    await closeCandidates(db.kysely, book.business_id, { close: lastMonthEnd(day), timezone: book.timezone });
    await writeOffCandidates(db.kysely, book.business_id, { today: day });
    return performance.now() - t0;
  } finally {
    await db.close();
  }
}

/** Overdue installments the close through `close` covers: unpaid, due before it, of active or written-off credits. */
export async function overdueInstallments(c: pg.Client, book: BookInfo, close: string): Promise<number> {
  const r = await c.query<{ n: string }>(
    `SELECT count(*) AS n FROM installments i JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
      WHERE i.business_id = $1 AND i.status <> 'paid' AND i.due_date < $2::date AND c.status IN ('active', 'written_off')`,
    [book.business_id, close],
  );
  return Number(r.rows[0]!.n);
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const fmtMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
export const perSecond = (n: number, ms: number) => Math.round((n * 1000) / ms);
