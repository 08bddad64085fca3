// How long `lending accrue` takes on a book of overdue installments (default 100,000) on PostgreSQL.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_h_engine npm run bench -- accrual [installments]
//
// The book is built in its own schema (dropped at the end unless BENCH_KEEP=1), so the benchmark
// never touches the database's real data: 4 installments a credit, every one overdue (due 30 to
// 210 days ago), a third of the credits with a partial payment on their first installment. Then
// the real command line runs twice, as a separate process: the first run is a month close that
// posts the punitory of every installment up to the last day of the last ended month (they are all
// due at least 90 days before today), the second finds nothing to do (idempotent). The month close
// on the bench book: npm run bench -- close; an ordinary day: npm run bench -- daily.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'kysely';
import { openPostgres } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { createBusiness } from '../src/db/repositories/businesses.ts';
import { insertCreditConfig } from '../src/db/repositories/creditConfigs.ts';
import { addDays, todayIn } from '../src/domain/index.ts';

const base = process.env.DATABASE_URL;
if (!base) {
  console.error(
    'set DATABASE_URL to a PostgreSQL database (the bench builds its book in a schema of its own and drops it)',
  );
  process.exit(2);
}
const INSTALLMENTS = Number(process.argv[2] ?? process.env.BENCH_INSTALLMENTS ?? 100_000);
const PER_CREDIT = 4;
const CREDITS = Math.ceil(INSTALLMENTS / PER_CREDIT);
const SCHEMA = `bench_accrual_${process.pid}`;
const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${SCHEMA},public`)}`;
const root = fileURLToPath(new URL('..', import.meta.url));

const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`CREATE SCHEMA ${SCHEMA}`);
const t = (label: string, t0: number) =>
  console.log(`${label.padEnd(44)} ${((performance.now() - t0) / 1000).toFixed(2)} s`);

try {
  const db = await openPostgres(url);
  const t0 = performance.now();
  await migrate(db);
  const business = await createBusiness(db.kysely, { name: 'Bench', timezone: 'UTC' });
  const bid = business.id;
  const plan = await insertCreditConfig(db.kysely, bid, {
    name: 'bench 4 × 30 days',
    installments_count: PER_CREDIT,
    days_until_first_payment: 30,
    interest_rate: '0.2',
    daily_punitory_rate: '0.005',
  });
  const today = todayIn('UTC');
  // a book loaded from elsewhere: its late installments are not news to the feed (as migration 012)
  await sql`INSERT INTO overdue_announcements (business_id, through) VALUES (${bid}, ${addDays(today, -1)})`.execute(
    db.kysely,
  );
  // set-based fixture: the same rows the API would write, without going through it 25,000 times
  await sql`INSERT INTO clients (business_id, dni, first_name) SELECT ${bid}, 'B' || g, 'Bench' FROM generate_series(1, 1000) g`.execute(
    db.kysely,
  );
  await sql`
    INSERT INTO credits (business_id, client_id, credit_config_id, amount, total, created_by, sequential_id, start_date,
                         installments_count, days_until_first_payment, cut_type, payment_day, interest_rate, daily_punitory_rate,
                         grace_days, punitory_mode, max_punitory_days, punitory_cap_pct, write_off_days)
    SELECT ${bid}, cl.id, ${plan.id}, 1000, 1200, 'bench', g, ${today}::date - 150 - 60 - (g % 61),
           ${PER_CREDIT}, 30, 'fixed', 10, 0.2, 0.005, 0, 'simple_outstanding', 0, 0, 0
      FROM generate_series(1, ${CREDITS}) g
      JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM clients WHERE business_id = ${bid}) cl ON cl.k = g % 1000`.execute(
    db.kysely,
  );
  await sql`UPDATE business_sequences SET last_credit_seq = ${CREDITS} WHERE business_id = ${bid}`.execute(db.kysely);
  await sql`
    INSERT INTO installments (business_id, credit_id, number, amount, principal, interest, vat, due_date)
    SELECT c.business_id, c.id, k, 300, 250, 50, 0, (c.start_date + 30 + make_interval(months => k - 1))::date
      FROM credits c, generate_series(1, ${PER_CREDIT}) k WHERE c.business_id = ${bid}`.execute(db.kysely);
  await sql`
    INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, created_by)
    SELECT i.business_id, i.credit_id, i.id, 'installment', 'schedule', i.amount, c.start_date, 'bench'
      FROM installments i JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id WHERE i.business_id = ${bid}`.execute(
    db.kysely,
  );
  // a partial payment (150 of 300, its interest first: 50) on the first installment of every third
  // credit, 5 days after its due date: its payments row and its one slice
  await sql`
    WITH p AS MATERIALIZED (
      SELECT i.business_id, i.credit_id, i.id, i.due_date + 5 AS paid_on, gen_random_uuid() AS payment_id
        FROM installments i JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
       WHERE i.business_id = ${bid} AND i.number = 1 AND c.sequential_id % 3 = 0),
    pay AS (
      INSERT INTO payments (business_id, id, credit_id, amount, paid_on, created_by)
      SELECT business_id, payment_id, credit_id, 150, paid_on, 'bench' FROM p)
    INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, interest_part, effective_date, payment_id,
                        created_by)
    SELECT business_id, credit_id, id, 'payment', 'payment', 150, 50, paid_on, payment_id, 'bench' FROM p`.execute(
    db.kysely,
  );
  await sql`UPDATE installments i SET status = 'partial' FROM credits c
             WHERE i.business_id = ${bid} AND c.business_id = i.business_id AND c.id = i.credit_id AND i.number = 1 AND c.sequential_id % 3 = 0`.execute(
    db.kysely,
  );
  await sql`ANALYZE`.execute(db.kysely);
  const overdue = await sql<{
    n: string;
  }>`SELECT count(*)::text AS n FROM installments WHERE business_id = ${bid} AND status <> 'paid' AND due_date < ${today}::date`.execute(
    db.kysely,
  );
  t(`book: ${CREDITS} credits, ${overdue.rows[0]!.n} overdue installments`, t0);
  await db.close();

  const run = (label: string) => {
    const t1 = performance.now();
    const r = spawnSync(process.execPath, ['bin/lending.js', 'accrue', '--business', bid, '--json'], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: url },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`lending accrue failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { businesses: Record<string, unknown>[]; ms: number };
    t(`${label} (process wall time)`, t1);
    console.log(
      `${''.padEnd(44)} ${(out.ms / 1000).toFixed(2)} s inside the command: ${JSON.stringify(out.businesses[0])}`,
    );
    return out;
  };
  console.log(`\n$ DATABASE_URL=… node bin/lending.js accrue --business ${bid} --json`);
  const first = run('first run: posts every punitory');
  run('second run: nothing left (idempotent)');
  if (Number(first.businesses[0]!.punitory_entries) !== Number(overdue.rows[0]!.n)) {
    throw new Error(
      `expected one punitory entry per overdue installment, got ${String(first.businesses[0]!.punitory_entries)}`,
    );
  }
} finally {
  if (process.env.BENCH_KEEP !== '1') await admin.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
  else console.log(`kept schema ${SCHEMA}`);
  await admin.end();
}
