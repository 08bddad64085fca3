// Time and peak memory of exporting a large ledger (default 1,000,000 rows) on PostgreSQL, through
// the command line and through the HTTP API, each in a process of its own.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_h_reports npm run bench -- export [rows]
//
// The ledger is seeded with one INSERT … SELECT generate_series into a schema of its own (fresh
// tables, dropped at the end unless BENCH_KEEP=1), so the database's real data is never touched.
// The audit trigger is switched off for the seed only: the bench measures reading the ledger.
// Then:
//   1. `lending export ledger --business ID` as a child process, its stdout counted and thrown
//      away: wall time, and its RSS sampled from /proc every 50 ms (highest value and VmHWM);
//   2. `lending serve` as a child process and GET /api/reports/exports/ledger.csv read to the end:
//      wall time of the request, the server's RSS idle before it and sampled during it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sql } from 'kysely';
import { openPostgres } from '../src/db/connection.ts';
import { migrate } from '../src/db/migrate.ts';
import { createBusiness } from '../src/db/repositories/businesses.ts';
import { createApiKey } from '../src/db/repositories/apiKeys.ts';
import { insertCreditConfig } from '../src/db/repositories/creditConfigs.ts';
import { todayIn } from '../src/domain/index.ts';

const base = process.env.DATABASE_URL;
if (!base) {
  console.error('set DATABASE_URL to a PostgreSQL database (the bench seeds a schema of its own and drops it)');
  process.exit(2);
}
const ROWS = Number(process.argv[2] ?? process.env.BENCH_ROWS ?? 1_000_000);
if (!Number.isSafeInteger(ROWS) || ROWS < 1) {
  console.error('rows must be a positive whole number');
  process.exit(2);
}
const SCHEMA = `bench_export_${process.pid}`;
const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${SCHEMA},public`)}`;
const root = fileURLToPath(new URL('..', import.meta.url));
const MiB = (kb: number) => `${(kb / 1024).toFixed(1)} MiB`;
const secs = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(2)} s`;

/** Counts bytes and records (CRLF-terminated lines) of a CSV stream, keeping nothing. */
function counter() {
  const c = { bytes: 0, lines: 0 };
  return Object.assign(c, {
    add(chunk: Buffer) {
      c.bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) c.lines++;
    },
  });
}

function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/** Samples a process's RSS every 50 ms: the highest RSS seen and its high-water mark (VmHWM). */
function sampler(pid: number) {
  const r = { maxRss: 0, hwm: 0 };
  const tick = () => {
    try {
      // an exited, unreaped process has no Vm lines (NaN)
      r.maxRss = Math.max(r.maxRss, status(pid, 'VmRSS') || 0);
      r.hwm = Math.max(r.hwm, status(pid, 'VmHWM') || 0);
    } catch {
      // the process has exited
    }
  };
  tick();
  const timer = setInterval(tick, 50);
  return Object.assign(r, { stop: () => (tick(), clearInterval(timer)) });
}

const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`CREATE SCHEMA ${SCHEMA}`);
let server: ReturnType<typeof spawn> | null = null;

try {
  const db = await openPostgres(url);
  let t0 = performance.now();
  await migrate(db);
  const business = await createBusiness(db.kysely, { name: 'Bench export', timezone: 'UTC' });
  const bid = business.id;
  const key = (await createApiKey(db.kysely, { businessId: bid, scope: 'read', name: 'bench' })).key;
  const plan = await insertCreditConfig(db.kysely, bid, { name: 'bench', installments_count: 1 });
  const today = todayIn('UTC');
  const client = await db.kysely
    .insertInto('clients')
    .values({ business_id: bid, dni: 'bench', first_name: 'Bench' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const credit = await sql<{ id: string }>`
    INSERT INTO credits (business_id, client_id, credit_config_id, amount, total, created_by, sequential_id, start_date,
                         installments_count, days_until_first_payment, cut_type, payment_day, interest_rate, daily_punitory_rate,
                         grace_days, punitory_mode, max_punitory_days, punitory_cap_pct, write_off_days)
    VALUES (${bid}, ${client.id}, ${plan.id}, 1000, 1000, 'bench', 1, ${today}::date, 1, 30, 'fixed', 10, 0, 0, 0,
            'simple_outstanding', 0, 0, 0)
    RETURNING id`.execute(db.kysely);
  const creditId = credit.rows[0]!.id;
  const inst = await sql<{ id: string }>`
    INSERT INTO installments (business_id, credit_id, number, amount, principal, interest, vat, due_date)
    VALUES (${bid}, ${creditId}, 1, 1000, 1000, 0, 0, ${today}::date + 30) RETURNING id`.execute(db.kysely);
  await sql`ALTER TABLE ledger DISABLE TRIGGER audit_insert`.execute(db.kysely);
  await sql`
    INSERT INTO ledger (business_id, credit_id, installment_id, type, origin, amount, effective_date, payment_id, branch_id,
                        created_by)
    SELECT ${bid}::uuid, ${creditId}::uuid, ${inst.rows[0]!.id}::uuid,
           CASE WHEN g % 3 = 0 THEN 'payment' ELSE 'punitory' END, CASE WHEN g % 3 = 0 THEN 'payment' ELSE 'accrual' END,
           (g % 10000) / 100.0 + 0.01,
           ${today}::date - (g % 365), CASE WHEN g % 3 = 0 THEN gen_random_uuid() END, NULL, 'api_key:' || gen_random_uuid()
      FROM generate_series(1, ${ROWS}::int) g`.execute(db.kysely);
  await sql`ALTER TABLE ledger ENABLE TRIGGER audit_insert`.execute(db.kysely);
  await sql`ANALYZE ledger`.execute(db.kysely);
  console.log(`seeded ${ROWS.toLocaleString('en')} ledger rows in schema ${SCHEMA}: ${secs(t0)}`);
  await db.close();
  const env = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', ACCRUAL_SCHEDULE: 'off' };

  // 1. the command line, stdout into a pipe that counts and discards
  {
    const args = ['bin/lending.js', 'export', 'ledger', '--business', bid];
    console.log(`\n$ DATABASE_URL=… node ${args.join(' ')} > /dev/null`);
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const mem = sampler(child.pid!);
    const c = counter();
    let err = '';
    t0 = performance.now();
    child.stdout!.on('data', (b: Buffer) => c.add(b));
    child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout!.once('data', () =>
      console.log(`  first bytes after ${secs(t0)}; process RSS then ${MiB(mem.maxRss)}`),
    );
    const code = await new Promise<number | null>((r) => child.on('close', r));
    const wall = secs(t0);
    mem.stop();
    if (code !== 0) throw new Error(`lending export failed (${code}): ${err}`);
    if (c.lines !== ROWS + 1) throw new Error(`expected ${ROWS + 1} lines, got ${c.lines}`);
    console.log(
      `  ${c.lines - 1} rows, ${MiB(c.bytes / 1024)} of CSV in ${wall} (${((c.lines - 1) / ((performance.now() - t0) / 1000)).toFixed(0)} rows/s)`,
    );
    console.log(
      `  process peak RSS: ${MiB(mem.hwm)} (VmHWM, start-up included); highest RSS sampled every 50 ms: ${MiB(mem.maxRss)}`,
    );
  }

  // 2. the HTTP API, served by `lending serve` in its own process
  {
    server = spawn(process.execPath, ['bin/lending.js', 'serve'], {
      cwd: root,
      env: { ...env, PORT: '0', HOST: '127.0.0.1' },
      // the banner (with the address) is on stderr, the JSON log lines on stdout
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const baseUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      server!.stderr!.on('data', (b: Buffer) => {
        process.stderr.write(b);
        out += b.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server!.on('exit', (code) => reject(new Error(`lending serve exited (${code})`)));
    });
    const pid = server.pid!;
    const idle = status(pid, 'VmRSS');
    console.log(
      `\n$ curl -H "Authorization: Bearer …" ${baseUrl}/api/reports/exports/ledger.csv > /dev/null   (server: node bin/lending.js serve)`,
    );
    const mem = sampler(pid);
    const c = counter();
    t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      get(`${baseUrl}/api/reports/exports/ledger.csv`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
        res.on('data', (b: Buffer) => c.add(b));
        res.on('end', resolve);
        res.on('error', reject);
      }).on('error', reject);
    });
    const wall = secs(t0);
    mem.stop();
    if (c.lines !== ROWS + 1) throw new Error(`expected ${ROWS + 1} lines, got ${c.lines}`);
    console.log(
      `  ${c.lines - 1} rows, ${MiB(c.bytes / 1024)} of CSV in ${wall} (${((c.lines - 1) / ((performance.now() - t0) / 1000)).toFixed(0)} rows/s)`,
    );
    console.log(
      `  server RSS: ${MiB(idle)} idle before the export, highest sampled during it ${MiB(mem.maxRss)}; peak ${MiB(mem.hwm)} (VmHWM, start-up included)`,
    );
  }
} finally {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.on('exit', r));
  }
  if (process.env.BENCH_KEEP !== '1') await admin.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
  else console.log(`kept schema ${SCHEMA}`);
  await admin.end();
}
