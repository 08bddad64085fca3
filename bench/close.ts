// The month-end close (the target: ≥ 50,000 installments/s, docs/benchmarks.md): the daily run on the first day of the
// month after the one the book was built in, which posts every overdue installment's punitory up
// to that month's last day, once, and writes off the credits that reach write_off_days by then.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- close [--keep] [--json]
//
// Needs the bench book (npm run bench -- book). The close writes into the book, so it runs on a
// copy: CREATE DATABASE <book>_close TEMPLATE <book> (PostgreSQL copies the files; nothing may be
// connected to the book meanwhile), dropped at the end unless --keep. On the copy:
//   1. the database's ceiling: the same close as one set-based statement (punitory_cumulative of
//      every candidate installment with its VAT, minus what is posted, inserted into the ledger
//      with its origin and its audit trigger, and the watermarks upserted: what
//      src/db/repositories/ledger.ts postPunitoryThrough writes), in a transaction rolled back;
//   2. the app: the run the server's scheduler calls (src/services/accrual.ts), in this process, on
//      a clock set to that first day;
//   3. the same run again that day: nothing left to do.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchUrl, databaseName, requireBook, withClient } from './lib/db.ts';
import { fmtMs, overdueInstallments, perSecond, timedRun } from './lib/run.ts';
import { lastMonthEnd } from '../src/domain/index.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: { keep: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
});
const url = benchUrl();
const book = await requireBook(url);
const source = databaseName(url);
const copyName = `${source}_close`;
const copy = new URL(url);
copy.pathname = `/${copyName}`;
const copyUrl = copy.toString();
const maintenance = new URL(url);
maintenance.pathname = '/postgres';
const ident = (n: string) => `"${n.replace(/"/g, '""')}"`;

// the first day of the next month: its run closes the month the book was built in
const [y, m] = book.built_for.split('-').map(Number) as [number, number];
const day = `${m === 12 ? y + 1 : y}-${String(m === 12 ? 1 : m + 1).padStart(2, '0')}-01`;
const close = lastMonthEnd(day);
const load = loadavg()[0]!;

async function onMaintenance(fn: (c: pg.Client) => Promise<void>) {
  const c = new pg.Client({ connectionString: maintenance.toString() });
  await c.connect();
  try {
    await fn(c);
  } finally {
    await c.end();
  }
}

const t0 = performance.now();
await onMaintenance(async (c) => {
  await c.query(`DROP DATABASE IF EXISTS ${ident(copyName)} WITH (FORCE)`);
  await c.query(`CREATE DATABASE ${ident(copyName)} TEMPLATE ${ident(source)}`).catch((err: Error) => {
    throw new Error(`cannot copy ${source} (is something connected to it?): ${err.message}`);
  });
});
const copySeconds = (performance.now() - t0) / 1000;

try {
  // the close is what is timed: the days before it were announced by the runs of those days
  await withClient(copyUrl, (c) =>
    c.query(`UPDATE overdue_announcements SET through = $2::date - 1 WHERE business_id = $1`, [book.business_id, day]),
  );
  const overdue = await withClient(copyUrl, (c) => overdueInstallments(c, book, close));
  console.log(
    `bench close: the daily run on ${day}, closing ${close} (the book is built for ${book.built_for}) on a copy of ${source} (scale ${book.scale}, copied in ${copySeconds.toFixed(1)} s); ${overdue} overdue installments; load average ${load.toFixed(2)}`,
  );

  // 1. the ceiling, rolled back
  const ceiling = await withClient(copyUrl, async (c) => {
    await c.query('BEGIN');
    try {
      await c.query(`SELECT set_config('app.actor', 'bench', true)`);
      const t = performance.now();
      const r = await c.query(
        `WITH cand AS (
           SELECT i.id, i.credit_id, i.amount, i.due_date, c.branch_id, c.daily_punitory_rate, c.punitory_mode,
                  greatest(c.grace_days, i.tolerance_days) AS grace_days, c.vat_rate,
                  c.max_punitory_days, c.punitory_cap_pct, (c.written_off_at AT TIME ZONE $3)::date AS stop_date
             FROM installments i
             JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
             LEFT JOIN credit_accruals a ON a.business_id = i.business_id AND a.credit_id = i.credit_id
            WHERE i.business_id = $1 AND i.status <> 'paid' AND i.due_date < $2::date AND c.status IN ('active', 'written_off')
              AND (a.posted_through IS NULL OR a.posted_through < $2::date)
              AND (c.status = 'active' OR a.posted_through IS NULL OR a.posted_through < (c.written_off_at AT TIME ZONE $3)::date)),
         h AS (
           SELECT l.installment_id,
                  coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0) AS posted,
                  coalesce(sum(l.vat_part) FILTER (WHERE l.type = 'punitory'), 0) AS vat_posted,
                  array_agg(l.effective_date ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS paid_on,
                  array_agg(l.amount - l.punitory_part ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS principal,
                  array_agg(l.punitory_part ORDER BY l.effective_date, l.created_at) FILTER (WHERE l.type = 'payment') AS punitory
             FROM ledger l
            WHERE l.business_id = $1 AND l.installment_id IN (SELECT id FROM cand) AND l.type <> 'installment'
            GROUP BY l.installment_id),
         n AS (
           SELECT cand.*, coalesce(h.posted, 0) AS posted, coalesce(h.vat_posted, 0) AS vat_posted,
                  punitory_cumulative(cand.amount, cand.due_date, $2::date, cand.stop_date, cand.daily_punitory_rate,
                    cand.punitory_mode, cand.grace_days, cand.max_punitory_days, cand.punitory_cap_pct,
                    h.paid_on, h.principal, h.punitory) AS net
             FROM cand LEFT JOIN h ON h.installment_id = cand.id),
         p AS (SELECT n.*, punitory_with_vat(n.net, n.vat_rate) AS cumulative FROM n),
         ins AS (
           INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, vat_part, effective_date, branch_id,
                               created_by)
           SELECT $1, p.credit_id, p.id, 'punitory', CASE WHEN p.cumulative < p.posted THEN 'correction' ELSE 'accrual' END,
                  p.cumulative - p.posted, (p.cumulative - p.net) - p.vat_posted, $2::date, p.branch_id, 'bench'
             FROM p WHERE p.cumulative <> p.posted
           RETURNING 1)
         INSERT INTO credit_accruals (business_id, credit_id, posted_through)
         SELECT DISTINCT $1::uuid, credit_id, $2::date FROM cand
         ON CONFLICT (business_id, credit_id) DO UPDATE SET posted_through = greatest(credit_accruals.posted_through, excluded.posted_through)
         RETURNING (SELECT count(*) FROM ins) AS entries`,
        [book.business_id, close, book.timezone],
      );
      return { ms: performance.now() - t, entries: Number(r.rows[0]?.entries ?? 0), credits: r.rowCount ?? 0 };
    } finally {
      await c.query('ROLLBACK');
    }
  });

  // 2. the app, 3. again
  const app = await timedRun(copyUrl, book, day);
  const again = await timedRun(copyUrl, book, day);

  console.log('');
  console.log(
    `${'work'.padEnd(46)} ${'time'.padStart(9)} ${'entries'.padStart(9)} ${'installments/s'.padStart(15)}   app/ceiling`,
  );
  console.log(
    `${'app: the daily run on the 1st (accrueBusiness)'.padEnd(46)} ${fmtMs(app.ms).padStart(9)} ${String(app.result.punitory_entries).padStart(9)} ${perSecond(overdue, app.ms).toLocaleString('en').padStart(15)}`,
  );
  console.log(
    `${'db: the same close, one statement'.padEnd(46)} ${fmtMs(ceiling.ms).padStart(9)} ${String(ceiling.entries).padStart(9)} ${perSecond(overdue, ceiling.ms).toLocaleString('en').padStart(15)}   ${`${((100 * ceiling.ms) / app.ms).toFixed(1)} %`.padStart(11)}`,
  );
  console.log(
    `${'app: the same day again (nothing to do)'.padEnd(46)} ${fmtMs(again.ms).padStart(9)} ${String(again.result.punitory_entries).padStart(9)}`,
  );
  console.log(`\napp: ${JSON.stringify(app.result)}`);
  if (app.reported.length)
    console.log(`reported: ${app.reported.length} credits (${app.reported.slice(0, 5).join(', ')} …)`);
  console.log(`again: ${JSON.stringify(again.result)}`);
  if (o.json)
    console.log(
      JSON.stringify({
        bench: 'close',
        database: source,
        scale: book.scale,
        day,
        closed_through: close,
        overdue_installments: overdue,
        load_average: Math.round(load * 100) / 100,
        copy_seconds: Math.round(copySeconds * 10) / 10,
        app_ms: Math.round(app.ms),
        app_entries: app.result.punitory_entries,
        installments_per_s: perSecond(overdue, app.ms),
        ceiling_ms: Math.round(ceiling.ms),
        ceiling_entries: ceiling.entries,
        again_ms: Math.round(again.ms),
      }),
    );
  // the close posts what the one statement would (write-offs on the day add their own entries)
  if (
    app.result.punitory_entries < ceiling.entries ||
    again.result.punitory_entries + again.result.credits_accrued > 0
  ) {
    console.error('the run did not post what the close owes, or found work on the second run');
    process.exitCode = 1;
  }
} finally {
  if (!o.keep)
    await onMaintenance((c) => c.query(`DROP DATABASE IF EXISTS ${ident(copyName)} WITH (FORCE)`).then(() => {}));
  else console.log(`kept the copy ${copyName}`);
}
