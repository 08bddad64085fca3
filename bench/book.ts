// Builds the bench book: a lender's book at the scale docs/benchmarks.md describes, in a PostgreSQL database of its
// own, reused by every HTTP bench (read, ledger, audit, pay).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- book [--scale 0.01] [--rebuild] [--jobs 2]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BENCH_DB=lending_bench npm run bench -- book
//
// With BENCH_DB the database of that name is created on DATABASE_URL's server when missing;
// otherwise DATABASE_URL is used as it is (and must exist). A finished book leaves a marker (table
// bench_meta, with the two API keys of the business "Bench book"); a second run finds it and
// exits at once. --rebuild drops the database (only if it holds nothing but a bench book) and
// builds again.
//
// At --scale 1 (the default): 100k clients, 300k credits over the last 24 months on 8 plans (3, 6,
// 9 and 12 installments, fixed and monthly cut, every punitory mode, grace, caps, maximum days,
// automatic write-off), 20 branches, ~1.8M installments, ~3.2M ledger entries and ~5.4M audit rows.
// Schedules follow src/domain/schedule.ts (total = round(amount × (1 + rate)), equal installments
// with the remainder on the last, the interest spread the same way (flat, no VAT): the
// installments' principal and interest; due dates by cut type). Each credit has a behaviour: pays on
// time (66.5 %), pays late (15 %), stops paying at some installment after a partial payment (17 %,
// written off when its plan says so), cancelled (1.5 %). Punitory is the rule of
// src/domain/punitory.ts for one installment: one entry at the payment that settles a late
// installment, one for each overdue installment as of yesterday (or its write-off date). Paid
// installments have a payment (a payments row, and one slice with origin 'payment' carrying its
// id) covering amount + punitory (punitory_part first, then interest_part inside the amount, as
// src/domain/allocation.ts splits it); credit_accruals says how far punitory is posted. Every row goes through the real tables with the audit
// triggers on (actor "bench"), in set-based INSERT … SELECT statements over plan tables in an
// unlogged schema (bench_build, dropped at the end); installments, payments and ledger load in --jobs
// parallel transactions. Indexes no foreign key needs are dropped for the load and built again
// from their own definitions after it, as bulk loads do; then VACUUM ANALYZE.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgres } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { backfillCosts } from '../src/services/lending/costBackfill.ts';
import { createApiKey } from '../src/db/repositories/apiKeys.ts';
import { todayIn } from '../src/domain/index.ts';
import {
  BOOK_BUSINESS,
  benchUrl,
  databaseName,
  dropDatabase,
  ensureDatabase,
  readBook,
  withClient,
  type BookInfo,
} from './lib/db.ts';

const { values: opts } = parseArgs({
  args: process.argv.slice(2),
  options: {
    scale: { type: 'string', default: '1' },
    rebuild: { type: 'boolean', default: false },
    jobs: { type: 'string', default: '2' },
  },
});
const scale = Number(opts.scale);
const jobs = Number(opts.jobs);
if (!(scale > 0 && scale <= 10) || !Number.isInteger(jobs) || jobs < 1 || jobs > 16) {
  console.error('--scale must be a number in (0, 10] and --jobs a whole number from 1 to 16');
  process.exit(2);
}
const CLIENTS = Math.max(1, Math.round(100_000 * scale));
const CREDITS = Math.max(1, Math.round(300_000 * scale));
const BRANCHES = 20;
const TIMEZONE = 'America/Argentina/Buenos_Aires';
const ACTOR = 'bench';
// Start dates: age in days = 730 × u^AGE_SKEW (u uniform): a growing lender has more recent credits.
const AGE_SKEW = 1.6;

/** The plans: [name, installments, cut, first payment after (days), payment day, interest, daily punitory, mode, grace, max days, cap %, write-off days, share of credits]. */
const PLANS: [
  string,
  number,
  'fixed' | 'monthly',
  number,
  number,
  number,
  number,
  string,
  number,
  number,
  number,
  number,
  number,
][] = [
  ['Express 3 cuotas', 3, 'fixed', 30, 10, 0.25, 0.005, 'simple_outstanding', 3, 0, 0, 0, 0.2],
  ['Mensual 3 cuotas', 3, 'monthly', 30, 10, 0.22, 0.004, 'simple_outstanding', 5, 0, 50, 0, 0.2],
  ['Express 6 cuotas', 6, 'fixed', 30, 10, 0.45, 0.003, 'compound', 0, 0, 0, 180, 0.15],
  ['Mensual 6 cuotas', 6, 'monthly', 30, 5, 0.4, 0.003, 'simple_outstanding', 3, 90, 0, 0, 0.15],
  ['Consumo 9 cuotas', 9, 'fixed', 30, 10, 0.65, 0.004, 'full_amount', 0, 60, 30, 0, 0.1],
  ['Mensual 9 cuotas', 9, 'monthly', 30, 15, 0.6, 0.003, 'simple_outstanding', 5, 0, 100, 240, 0.1],
  ['Personal 12 cuotas', 12, 'fixed', 30, 10, 0.9, 0.002, 'compound', 0, 0, 0, 360, 0.05],
  ['Mensual 12 cuotas', 12, 'monthly', 30, 20, 0.85, 0.002, 'simple_outstanding', 7, 120, 50, 180, 0.05],
];

const url = benchUrl();
const dbName = databaseName(url);
const t = (s: number) => `${s.toFixed(1).padStart(7)} s`;
const started = performance.now();

async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const r = await fn();
  console.log(`${label.padEnd(60)} ${t((performance.now() - t0) / 1000)}`);
  return r;
}

/** What is in the database now: a finished book, an unfinished one, other data, or nothing. */
async function inspect(c: pg.Client): Promise<{ book: BookInfo | null; others: number; unfinished: boolean }> {
  const book = await readBook(c);
  const has = await c.query<{ t: string | null }>(`SELECT to_regclass('public.businesses')::text AS t`);
  if (!has.rows[0]?.t) return { book, others: 0, unfinished: false };
  const r = await c.query<{ others: string; bench: string }>(
    `SELECT count(*) FILTER (WHERE name <> $1) AS others, count(*) FILTER (WHERE name = $1) AS bench FROM businesses`,
    [BOOK_BUSINESS],
  );
  return { book, others: Number(r.rows[0]!.others), unfinished: !book && Number(r.rows[0]!.bench) > 0 };
}

async function exists(): Promise<boolean> {
  return withClient(url, async () => true).catch((err: { code?: string }) => {
    if (err.code === '3D000') return false; // invalid_catalog_name: no such database
    throw err;
  });
}

let dropped = false;
if (opts.rebuild && (await exists())) {
  const state = await withClient(url, inspect);
  if (state.others > 0) {
    console.error(`refusing to drop ${dbName}: it holds ${state.others} business(es) other than "${BOOK_BUSINESS}"`);
    process.exit(2);
  }
  await step(`drop database ${dbName}`, () => dropDatabase(url));
  dropped = true;
}
if (process.env.BENCH_DB || dropped) {
  if (await ensureDatabase(url)) console.log(`created database ${dbName}`);
} else if (!(await exists())) {
  console.error(`database ${dbName} does not exist: create it, or set BENCH_DB=${dbName} to have it created`);
  process.exit(2);
}

const state = await withClient(url, inspect);
if (state.book) {
  const b = state.book;
  console.log(
    `the bench book is already in ${dbName} (business ${b.business_id}, scale ${b.scale}, built ${b.built_at} in ${b.build_seconds} s):`,
  );
  console.log(JSON.stringify(b.counts));
  console.log('nothing to do; --rebuild drops it and builds it again');
  process.exit(0);
}
if (state.unfinished) {
  console.error(`an unfinished bench book is in ${dbName} (a build that stopped): run again with --rebuild`);
  process.exit(2);
}
if (state.others > 0) {
  console.error(
    `${dbName} already holds ${state.others} business(es): the bench book needs a database of its own (set BENCH_DB)`,
  );
  process.exit(2);
}

console.log(
  `building the bench book in ${dbName}: scale ${scale} (${CLIENTS} clients, ${CREDITS} credits), ${jobs} parallel jobs`,
);
const today = todayIn(TIMEZONE);
const db = await openPostgres(url, jobs + 1);
await step('migrations (src/db/migrate.ts)', () => migrate(db));

const pool = new pg.Pool({ connectionString: url, max: jobs });
/** One transaction on its own connection, audited as the bench actor (what withActor does). */
async function tx(sqlText: string, params?: unknown[]): Promise<pg.QueryResult> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(`select set_config('app.actor', $1, true)`, [ACTOR]);
    // sort/hash space for the big INSERT … SELECTs and the index builds: settings of this
    // transaction only, the server's stay as they are
    await c.query(`SET LOCAL work_mem = '64MB'`);
    await c.query(`SET LOCAL maintenance_work_mem = '256MB'`);
    // generate_series rows are estimated at 1,000 a credit: JIT would spend seconds compiling for nothing
    await c.query(`SET LOCAL jit = off`);
    const r = await c.query(sqlText, params);
    await c.query('COMMIT');
    return r;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}
/** The same statement in `jobs` transactions at once, each on the credits k ≡ j (mod jobs). */
const parallel = (sqlText: string, params: unknown[]) =>
  Promise.all(Array.from({ length: jobs }, (_, j) => tx(sqlText, [...params, jobs, j])));

const bid = await step('business, 20 branches, 8 plans', async () => {
  const r = await tx(
    `WITH b AS (INSERT INTO businesses (name, timezone) VALUES ($1, $2) RETURNING id),
          s AS (INSERT INTO business_sequences (business_id) SELECT id FROM b),
          -- a book loaded from elsewhere: its late installments are not news to the feed (as migrations 012 and 025)
          e AS (INSERT INTO overdue_announcements (business_id, through) SELECT id, (now() AT TIME ZONE $2)::date - 1 FROM b),
          br AS (INSERT INTO branches (business_id, name, address, phone)
                 SELECT b.id, 'Sucursal ' || lpad(g::text, 2, '0'), 'Av. Rivadavia ' || (1000 + 150 * g), '+54 11 4' || lpad((g * 731)::text, 3, '0') || '-' || lpad(g::text, 4, '0')
                   FROM b, generate_series(1, $3::int) g),
          p AS (INSERT INTO credit_configs (business_id, name, installments_count, cut_type, days_until_first_payment, payment_day, interest_rate,
                                            daily_punitory_rate, punitory_mode, grace_days, max_punitory_days, punitory_cap_pct, write_off_days)
                SELECT b.id, p.* FROM b, json_to_recordset($4::json) AS p(name text, n int, cut text, dfp int, pday int, interest numeric, daily numeric,
                                                                        mode text, grace int, maxd int, cap numeric, wo int))
     SELECT id FROM b`,
    [
      BOOK_BUSINESS,
      TIMEZONE,
      BRANCHES,
      JSON.stringify(
        PLANS.map(([name, n, cut, dfp, pday, interest, daily, mode, grace, maxd, cap, wo]) => ({
          name,
          n,
          cut,
          dfp,
          pday,
          interest,
          daily,
          mode,
          grace,
          maxd,
          cap,
          wo,
        })),
      ),
    ],
  );
  return r.rows[0].id as string;
});
const readKey = await createApiKey(db.kysely, { businessId: bid, scope: 'read', name: 'bench read' });
const fullKey = await createApiKey(db.kysely, { businessId: bid, scope: 'full', name: 'bench full' });

// ---- the plan: unlogged tables saying what every row will be (no WAL, no trigger, no audit)
await step('plan tables (bench_build)', async () => {
  let lo = 0;
  const shares = PLANS.map(([name, , , , , , , , , , , , share]) => ({ name, lo, hi: (lo += share) }));
  shares[shares.length - 1]!.hi = 1.000001;
  await tx(`DROP SCHEMA IF EXISTS bench_build CASCADE; CREATE SCHEMA bench_build`);
  await tx(
    `CREATE UNLOGGED TABLE bench_build.plans AS
       SELECT c.*, s.lo, s.hi FROM credit_configs c JOIN json_to_recordset($2::json) AS s(name text, lo float8, hi float8) ON s.name = c.name
        WHERE c.business_id = $1`,
    [bid, JSON.stringify(shares)],
  );
  await tx(
    `CREATE UNLOGGED TABLE bench_build.branches AS SELECT row_number() OVER (ORDER BY name)::int AS k, id FROM branches WHERE business_id = $1`,
    [bid],
  );
  await tx(
    `CREATE UNLOGGED TABLE bench_build.clients AS SELECT g AS k, gen_random_uuid() AS id FROM generate_series(1, $1::int) g`,
    [CLIENTS],
  );
  await tx(`ALTER TABLE bench_build.clients ADD PRIMARY KEY (k)`);
  // each credit: client, branch, plan, amount, start date, behaviour; then its first due date (schedule.ts
  // firstDueDate) and, for one that stopped paying, the day it was written off (if its plan does that)
  await tx(
    `CREATE UNLOGGED TABLE bench_build.credits AS
     WITH r AS MATERIALIZED (
       SELECT g AS k, random() AS u_plan, random() AS u_beh, random() AS u_age, random() AS u_amt, random() AS u_late,
              random() AS u_def, random() AS u_part, random() AS u_time,
              1 + floor(random() * $2::int)::int AS client_k, 1 + floor(random() * $3::int)::int AS branch_k
         FROM generate_series(1, $1::int) g),
     c AS (
       SELECT r.k, gen_random_uuid() AS id, cl.id AS client_id, b.id AS branch_id, p.id AS plan_id,
              p.installments_count AS n, p.days_until_first_payment AS dfp, p.cut_type, p.payment_day, p.interest_rate,
              p.daily_punitory_rate AS rate, p.grace_days AS grace, p.punitory_mode AS mode, p.max_punitory_days AS max_days,
              p.punitory_cap_pct AS cap, p.write_off_days AS wo_days,
              (1000 + 500 * floor(r.u_amt ^ 2 * 99))::numeric(14, 2) AS amount,
              $4::date - 1 - floor(730 * r.u_age ^ $6::float8)::int AS start_date,
              CASE WHEN r.u_beh < 0.665 THEN 'good' WHEN r.u_beh < 0.815 THEN 'late' WHEN r.u_beh < 0.985 THEN 'default' ELSE 'cancelled' END AS behaviour,
              3 + floor(r.u_late * 40)::int AS late_days,
              1 + floor(r.u_def * p.installments_count)::int AS default_at,
              round((0.2 + 0.6 * r.u_part)::numeric, 2) AS part,
              r.u_time
         FROM r
         JOIN bench_build.plans p ON r.u_plan >= p.lo AND r.u_plan < p.hi
         JOIN bench_build.clients cl ON cl.k = r.client_k
         JOIN bench_build.branches b ON b.k = r.branch_k),
     f AS (
       SELECT c.*, round(c.amount * (1 + c.interest_rate), 2) AS total,
              ((c.start_date + time '09:00' + c.u_time * interval '9 hours') AT TIME ZONE $5) AS created_at,
              CASE WHEN c.cut_type = 'fixed' THEN c.start_date + c.dfp
                   WHEN extract(day FROM c.start_date + c.dfp) <= c.payment_day
                     THEN make_date(extract(year FROM c.start_date + c.dfp)::int, extract(month FROM c.start_date + c.dfp)::int, c.payment_day)
                   ELSE (make_date(extract(year FROM c.start_date + c.dfp)::int, extract(month FROM c.start_date + c.dfp)::int, c.payment_day)
                         + interval '1 month')::date
              END AS first_due
         FROM c),
     w AS (
       SELECT f.*, round(f.total / f.n, 2) AS each,
              CASE WHEN f.behaviour = 'default' AND f.wo_days > 0
                    AND (f.first_due + (f.default_at - 1) * interval '1 month')::date + f.wo_days < $4::date
                   THEN (f.first_due + (f.default_at - 1) * interval '1 month')::date + f.wo_days END AS wo_date
         FROM f)
     SELECT w.*, coalesce(w.wo_date, $4::date - 1) AS through FROM w`,
    [CREDITS, CLIENTS, BRANCHES, today, TIMEZONE, AGE_SKEW],
  );
  await tx(`ALTER TABLE bench_build.credits ADD PRIMARY KEY (k)`);
  // each installment: amount and due date (schedule.ts), then what happened to it. pay_on: the day of
  // its one payment (a partial one for the installment where a credit stopped paying); punitory: the
  // punitory.ts figure as of the day it was settled, or as of `through` while it is unpaid
  await tx(
    `CREATE UNLOGGED TABLE bench_build.inst AS
     WITH s AS (
       SELECT c.k, c.id AS credit_id, c.branch_id, c.start_date, c.created_at, c.behaviour, c.through, c.mode, c.rate, c.grace,
              c.max_days, c.cap, c.default_at, c.part, c.late_days, g.number,
              CASE WHEN g.number < c.n THEN c.each ELSE c.total - c.each * (c.n - 1) END AS amount,
              -- flat: the interest spread like the amount, the remainder on the last (schedule.ts)
              CASE WHEN g.number < c.n THEN round((c.total - c.amount) / c.n, 2)
                   ELSE (c.total - c.amount) - round((c.total - c.amount) / c.n, 2) * (c.n - 1) END AS interest,
              (c.first_due + (g.number - 1) * interval '1 month')::date AS due_date
         FROM bench_build.credits c, generate_series(1, c.n) g(number)),
     o AS (
       SELECT s.*,
              CASE WHEN behaviour = 'cancelled' THEN NULL
                   WHEN behaviour = 'late' THEN due_date + greatest(1, late_days + floor(random() * 11)::int - 5)
                   WHEN behaviour = 'default' AND number > default_at THEN NULL
                   WHEN behaviour = 'default' AND number = default_at THEN CASE WHEN due_date < $1::date THEN due_date END
                   ELSE greatest(due_date - floor(random() * 4)::int, start_date)
              END AS pay_on
         FROM s),
     p AS (
       SELECT o.*,
              CASE WHEN pay_on IS NULL OR pay_on >= $1::date THEN 0
                   WHEN behaviour = 'default' AND number = default_at THEN round(amount * part, 2)
                   ELSE amount END AS principal_paid
         FROM o),
     d AS (  -- the day punitory is figured as of, and how many days it counts (grace, maximum days)
       SELECT p.*,
              CASE WHEN behaviour = 'cancelled' THEN NULL
                   WHEN principal_paid >= amount THEN pay_on
                   WHEN due_date < through THEN through END AS pun_on
         FROM p),
     e AS (
       SELECT d.*,
              CASE WHEN pun_on IS NULL OR pun_on - due_date <= grace THEN 0
                   WHEN max_days > 0 THEN least(pun_on - due_date, max_days)
                   ELSE pun_on - due_date END AS days,
              -- the part of the amount unpaid while it was late: a settling payment counts from the next day
              CASE WHEN principal_paid >= amount THEN amount ELSE amount - principal_paid END AS base
         FROM d),
     q AS (
       SELECT e.*,
              CASE WHEN days = 0 THEN 0
                   WHEN mode = 'full_amount' THEN round(rate * amount * days, 2)
                   WHEN mode = 'simple_outstanding' THEN round(rate * base * days, 2)
                   ELSE round(base * ((1 + rate) ^ days - 1), 2) END AS raw_punitory
         FROM e)
     SELECT q.k, gen_random_uuid() AS id, q.credit_id, q.branch_id, q.start_date, q.created_at, q.number, q.amount, q.interest,
            q.due_date, q.pay_on, q.principal_paid, q.pun_on,
            -- the payment's id (payments.id, the slice's payment_id) and the interest inside it: the
            -- amount's VAT (none here), then its interest, then principal (allocation.ts)
            CASE WHEN q.principal_paid > 0 THEN gen_random_uuid() END AS payment_id,
            least(q.principal_paid, q.interest) AS interest_paid,
            CASE WHEN q.cap > 0 THEN least(q.raw_punitory, round(q.cap / 100 * q.amount, 2)) ELSE q.raw_punitory END AS punitory,
            CASE WHEN q.principal_paid >= q.amount THEN 'paid' WHEN q.principal_paid > 0 THEN 'partial' ELSE 'pending' END AS status
       FROM q`,
    [today],
  );
  await tx(
    `CREATE UNLOGGED TABLE bench_build.credit_state AS
       SELECT k, bool_and(status = 'paid') AS all_paid, max(pay_on) FILTER (WHERE principal_paid > 0) AS last_pay,
              bool_or(status <> 'paid' AND due_date < $1::date) AS has_overdue
         FROM bench_build.inst GROUP BY k`,
    [today],
  );
  await tx(`ALTER TABLE bench_build.credit_state ADD PRIMARY KEY (k)`);
  await tx(
    `ANALYZE bench_build.credits; ANALYZE bench_build.inst; ANALYZE bench_build.credit_state; ANALYZE bench_build.clients`,
  );
});

// ---- the book, through the real tables and their triggers. Their indexes that no foreign key
// needs are set aside while it loads and built again after (one sort each instead of millions of
// random insertions), from their own definitions: the schema ends exactly as the migrations made it.
const LOADED = ['audit_log', 'ledger', 'payments', 'installments', 'credits', 'clients'];
const aside = await step('set aside the indexes no foreign key uses', async () => {
  const r = await tx(
    `SELECT t.relname AS table, i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def, c.contype AS constraint
       FROM pg_index i
       JOIN pg_class t ON t.oid = i.indrelid
       LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = t.oid AND c.contype IN ('p', 'u')
      WHERE t.relnamespace = 'public'::regnamespace AND t.relname = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.conindid = i.indexrelid)
      ORDER BY array_position($1, t.relname::text), i.indexrelid`,
    [LOADED],
  );
  const list = r.rows as { table: string; name: string; def: string; constraint: 'p' | 'u' | null }[];
  await tx(
    list
      .map((x) => (x.constraint ? `ALTER TABLE ${x.table} DROP CONSTRAINT ${x.name}` : `DROP INDEX ${x.name}`))
      .join(';\n'),
  );
  return list;
});

await step(`clients (${CLIENTS})`, () =>
  tx(
    `WITH n AS (SELECT ARRAY['María','José','Juan','Ana','Luis','Carlos','Laura','Jorge','Sofía','Martín','Lucía','Diego','Valentina','Pablo',
                             'Camila','Andrés','Florencia','Miguel','Gabriela','Fernando'] AS first,
                       ARRAY['González','Rodríguez','Gómez','Fernández','López','Díaz','Martínez','Pérez','García','Sánchez','Romero','Sosa',
                             'Álvarez','Torres','Ruiz','Ramírez','Flores','Benítez','Acosta','Medina','Herrera','Aguirre','Giménez'] AS last,
                       ARRAY['Buenos Aires','Córdoba','Rosario','Mendoza','La Plata','Mar del Plata','San Miguel de Tucumán','Salta'] AS city,
                       ARRAY['CABA','Córdoba','Santa Fe','Mendoza','Buenos Aires','Buenos Aires','Tucumán','Salta'] AS state,
                       ARRAY['Belgrano','San Martín','Mitre','Sarmiento','Moreno','Rivadavia','Urquiza','Lavalle','Alem','Güemes'] AS street),
          since AS (SELECT c.client_id, min(c.created_at) AS first FROM bench_build.credits c GROUP BY c.client_id)
     INSERT INTO clients (business_id, id, first_name, last_name, dni, sex, street, street_number, city, state, country, zip_code, phone, email,
                          created_at, updated_at)
     SELECT $1, c.id, n.first[1 + c.k % 20], n.last[1 + (c.k * 7) % 23], (20000000 + c.k * 3)::text,
            CASE WHEN c.k % 20 IN (0, 3, 5, 8, 10, 12, 14, 18) THEN 'f' ELSE 'm' END,
            n.street[1 + c.k % 10], (1 + (c.k * 37) % 4000)::text, n.city[1 + (c.k * 3) % 8], n.state[1 + (c.k * 3) % 8], 'AR',
            (1000 + (c.k * 13) % 8000)::text, '+54 9 11 ' || lpad(((c.k::bigint * 7919) % 100000000)::text, 8, '0'),
            'cliente' || c.k || '@example.com', t.at, t.at
       FROM bench_build.clients c CROSS JOIN n
       LEFT JOIN since s ON s.client_id = c.id
       CROSS JOIN LATERAL (SELECT coalesce(s.first - interval '2 hours', now() - interval '400 days' * random()) AS at) t`,
    [bid],
  ),
);

await step(`credits (${CREDITS})`, async () => {
  await tx(
    `INSERT INTO credits (business_id, id, client_id, credit_config_id, amount, total, status, created_by, branch_id, sequential_id, start_date,
                          installments_count, days_until_first_payment, cut_type, payment_day, interest_rate, daily_punitory_rate, grace_days,
                          punitory_mode, max_punitory_days, punitory_cap_pct, write_off_days, created_at, updated_at, written_off_at, write_off_reason)
     SELECT $1, c.id, c.client_id, c.plan_id, c.amount, c.total, v.status, $2, c.branch_id, row_number() OVER (ORDER BY c.created_at, c.k),
            c.start_date, c.n, c.dfp, c.cut_type, c.payment_day, c.interest_rate, c.rate, c.grace, c.mode, c.max_days, c.cap, c.wo_days,
            c.created_at,
            CASE v.status WHEN 'closed' THEN (s.last_pay + time '12:00:01') AT TIME ZONE $3
                          WHEN 'written_off' THEN v.wo_at ELSE c.created_at END,
            v.wo_at,
            CASE WHEN v.status = 'written_off' THEN 'automatic: an installment reached ' || c.wo_days || ' days late (write_off_days)' END
       FROM bench_build.credits c
       JOIN bench_build.credit_state s USING (k)
       CROSS JOIN LATERAL (
         SELECT CASE WHEN c.behaviour = 'cancelled' THEN 'inactive' WHEN c.wo_date IS NOT NULL THEN 'written_off'
                     WHEN s.all_paid THEN 'closed' ELSE 'active' END AS status,
                CASE WHEN c.behaviour <> 'cancelled' AND c.wo_date IS NOT NULL THEN (c.wo_date + time '03:15') AT TIME ZONE $3 END AS wo_at) v`,
    [bid, ACTOR, TIMEZONE],
  );
  await tx(
    `UPDATE business_sequences SET last_credit_seq = (SELECT count(*) FROM credits WHERE business_id = $1) WHERE business_id = $1`,
    [bid],
  );
});

await step(`installments (${jobs} jobs)`, () =>
  parallel(
    `INSERT INTO installments (business_id, id, credit_id, number, amount, principal, interest, vat, due_date, status, paid_date,
                               created_at, updated_at)
     SELECT $1, i.id, i.credit_id, i.number, i.amount, i.amount - i.interest, i.interest, 0, i.due_date, i.status,
            CASE WHEN i.status = 'paid' THEN i.pay_on END, i.created_at,
            CASE WHEN i.principal_paid > 0 THEN (i.pay_on + time '12:00:01') AT TIME ZONE $2 ELSE i.created_at END
       FROM bench_build.inst i WHERE i.k % $3 = $4`,
    [bid, TIMEZONE],
  ),
);

// each payment request, one an installment paid (its slices below carry its id): amount + the
// punitory it settles
await step(`payments (${jobs} jobs)`, () =>
  parallel(
    `INSERT INTO payments (business_id, id, credit_id, amount, paid_on, branch_id, created_by, created_at)
     SELECT $1::uuid, i.payment_id, i.credit_id, i.principal_paid + CASE WHEN i.status = 'paid' THEN i.punitory ELSE 0 END, i.pay_on,
            i.branch_id, $2::text, (i.pay_on + time '12:00:01') AT TIME ZONE $3::text
       FROM bench_build.inst i WHERE i.principal_paid > 0 AND i.k % $4 = $5`,
    [bid, ACTOR, TIMEZONE],
  ),
);

// installment entries when the credit was created; a settling payment posts its punitory, then pays
// punitory first; an unpaid installment's punitory is posted as of `through`
await step(`ledger (${jobs} jobs)`, () =>
  parallel(
    `INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, punitory_part, vat_part, interest_part,
                         effective_date, payment_id, branch_id, created_by, created_at)
     SELECT $1::uuid, i.credit_id, i.id, 'installment', 'schedule', i.amount, 0, 0, 0, i.start_date, NULL::uuid, i.branch_id, $2::text,
            i.created_at
       FROM bench_build.inst i WHERE i.k % $4 = $5
     UNION ALL
     SELECT $1::uuid, i.credit_id, i.id, 'punitory', 'accrual', i.punitory, 0, 0, 0, i.pun_on, NULL, i.branch_id, $2::text,
            (i.pun_on + time '12:00') AT TIME ZONE $3::text
       FROM bench_build.inst i WHERE i.punitory > 0 AND i.k % $4 = $5
     UNION ALL
     SELECT $1::uuid, i.credit_id, i.id, 'payment', 'payment', i.principal_paid + v.pun, v.pun, 0, i.interest_paid, i.pay_on, i.payment_id,
            i.branch_id, $2::text, (i.pay_on + time '12:00:01') AT TIME ZONE $3::text
       FROM bench_build.inst i
       CROSS JOIN LATERAL (SELECT CASE WHEN i.status = 'paid' THEN i.punitory ELSE 0 END AS pun) v
      WHERE i.principal_paid > 0 AND i.k % $4 = $5`,
    [bid, ACTOR, TIMEZONE],
  ),
);

await step('credit_accruals (how far punitory is posted)', () =>
  tx(
    `INSERT INTO credit_accruals (business_id, credit_id, posted_through)
     SELECT $1, c.id, greatest(s.last_pay, CASE WHEN s.has_overdue THEN c.through END)
       FROM bench_build.credits c JOIN bench_build.credit_state s USING (k)
      WHERE c.behaviour <> 'cancelled' AND greatest(s.last_pay, CASE WHEN s.has_overdue THEN c.through END) IS NOT NULL`,
    [bid],
  ),
);
await step(`indexes built again (${aside.length}, ${jobs} jobs)`, async () => {
  const queue = [...aside];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let x = queue.shift(); x; x = queue.shift()) await tx(x.def);
    }),
  );
  const constraints = aside.filter((x) => x.constraint);
  await tx(
    constraints
      .map(
        (x) =>
          `ALTER TABLE ${x.table} ADD CONSTRAINT ${x.name} ${x.constraint === 'p' ? 'PRIMARY KEY' : 'UNIQUE'} USING INDEX ${x.name}`,
      )
      .join(';\n'),
  );
});
// what a grant stores (migration 045), filled as `lending backfill-cost` fills old credits: the
// payments' answers read it, as the service's own credits do
await step('disclosed cost (as lending backfill-cost)', () =>
  backfillCosts(db, { businessId: bid, batch: 1000, actor: 'bench' }),
);
await step('drop bench_build', () => tx('DROP SCHEMA bench_build CASCADE'));
await pool.end();
await db.close();

await step('VACUUM ANALYZE (what autovacuum would have done)', () =>
  withClient(url, (c) =>
    c.query(
      'VACUUM (ANALYZE) clients, credits, installments, ledger, payments, audit_log, credit_accruals, branches, credit_configs, api_keys, installment_balances, credit_balances',
    ),
  ),
);

const counts = await step('row counts', () =>
  withClient(url, async (c) => {
    const r = await c.query<{ name: string; n: string }>(
      `SELECT 'clients' AS name, count(*) AS n FROM clients WHERE business_id = $1
       UNION ALL SELECT 'credits', count(*) FROM credits WHERE business_id = $1
       UNION ALL SELECT 'credits_' || status, count(*) FROM credits WHERE business_id = $1 GROUP BY status
       UNION ALL SELECT 'installments', count(*) FROM installments WHERE business_id = $1
       UNION ALL SELECT 'installments_' || status, count(*) FROM installments WHERE business_id = $1 GROUP BY status
       UNION ALL SELECT 'installments_overdue', count(*) FROM installments i JOIN credits c ON c.business_id = i.business_id AND c.id = i.credit_id
                  WHERE i.business_id = $1 AND i.status <> 'paid' AND i.due_date < $2::date AND c.status IN ('active', 'written_off')
       UNION ALL SELECT 'ledger', count(*) FROM ledger WHERE business_id = $1
       UNION ALL SELECT 'ledger_' || type, count(*) FROM ledger WHERE business_id = $1 GROUP BY type
       UNION ALL SELECT 'payments', count(*) FROM payments WHERE business_id = $1
       UNION ALL SELECT 'audit_log', count(*) FROM audit_log WHERE business_id = $1
       UNION ALL SELECT 'credit_accruals', count(*) FROM credit_accruals WHERE business_id = $1`,
      [bid, today],
    );
    return Object.fromEntries(r.rows.map((x) => [x.name, Number(x.n)]));
  }),
);

const buildSeconds = Math.round((performance.now() - started) / 100) / 10;
const info: BookInfo = {
  business_id: bid,
  timezone: TIMEZONE,
  keys: { read: readKey.key, full: fullKey.key },
  scale,
  built_for: today,
  built_at: new Date().toISOString(),
  build_seconds: buildSeconds,
  counts,
};
await withClient(url, async (c) => {
  // bench-only: the keys' secrets, so the HTTP benches can authenticate (never do this with a real key)
  await c.query(`CREATE TABLE IF NOT EXISTS bench_meta (key text PRIMARY KEY, value jsonb NOT NULL)`);
  await c.query(
    `INSERT INTO bench_meta (key, value) VALUES ('book', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [JSON.stringify(info)],
  );
});
console.log(`\nbench book built in ${buildSeconds} s (business ${bid}, today ${today} in ${TIMEZONE})`);
for (const [name, n] of Object.entries(counts))
  console.log(`  ${name.padEnd(28)} ${n.toLocaleString('en').padStart(12)}`);
