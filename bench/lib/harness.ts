// One HTTP bench, the same way for every route: draw targets from the bench book into a table,
// start the real server, drive it with autocannon, stop it, then run the database's ceiling for
// the same statements with pgbench on the same targets, and print both side by side.
//
// Options every bench takes: --duration S (measured seconds, default 15), --warmup S (default 3),
// --connections N (default 16), --targets N (how many targets to draw, default 10000), --json
// (one JSON line after the table).
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { benchUrl, databaseName, requireBook, withClient, type BookInfo } from './db.ts';
import { drive, probe, type HttpTarget, type LoadResult } from './load.ts';
import { pgbench, tpcb, type CeilingResult, type Script } from './pgbench.ts';
import { startBare, startServer } from './server.ts';

export interface Ceiling {
  label: string;
  scripts: Script[];
}

export interface BenchContext {
  url: string;
  book: BookInfo;
  c: pg.Client;
  /** when the load started (database clock) */
  since: string;
  /** 2xx answers during warm-up and measurement */
  okAnswers: number;
  connections: number;
}

export interface Bench<T> {
  name: string;
  /** what is measured, e.g. 'GET /api/clients/:id' */
  work: string;
  key: 'read' | 'full';
  /** SELECT giving the targets ($1 business id, $2 how many), with a column k numbering them from 1 */
  targets: string;
  /** extra key columns of the targets table (e.g. a script number), before k */
  targetKey?: string[];
  request: (t: T, book: BookInfo) => HttpTarget;
  /** the database-only runs, on the same targets (pgbench reads them from the targets table) */
  ceilings: (book: BookInfo, targets: T[]) => Ceiling[];
  /**
   * a read served by bench/lib/barePostgres.ts: also measure that bare HTTP route around the same
   * statement (same targets, same load), the ceiling of an HTTP route on this machine
   */
  bare?: boolean;
  /** optional: compare the app's answer for a target with a ceiling statement's result (same document?) */
  sameDocument?: (c: pg.Client, book: BookInfo, t: T, appBody: unknown) => Promise<string>;
  /** a write: also measure pgbench's built-in TPC-B (scale 10) in a scratch database, same connections and duration */
  tpcb?: boolean;
  /** checks after the load and again after the ceilings: name → figure; a bad_… figure other than 0 fails the run */
  check?: (ctx: BenchContext) => Promise<Record<string, number | string>>;
}

interface Row {
  label: string;
  rps: number;
  p50: number;
  p99: number;
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

export async function runBench<T extends Record<string, unknown>>(bench: Bench<T>): Promise<void> {
  const { values: o } = parseArgs({
    args: process.argv.slice(2),
    options: {
      duration: { type: 'string', default: '15' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '16' },
      targets: { type: 'string', default: '10000' },
      json: { type: 'boolean', default: false },
    },
  });
  const seconds = Number(o.duration);
  const warmup = Number(o.warmup);
  const connections = Number(o.connections);
  const howMany = Number(o.targets);
  if (!(seconds >= 1) || !(warmup >= 0) || !(connections >= 1) || !(howMany >= 1)) {
    console.error('--duration and --connections must be >= 1, --warmup >= 0, --targets >= 1');
    process.exit(2);
  }
  const url = benchUrl();
  const book = await requireBook(url);
  const load = loadavg()[0]!;
  console.log(
    `bench ${bench.name}: ${bench.work} on ${databaseName(url)} (scale ${book.scale}), ${connections} connections, ${seconds} s (+${warmup} s warm-up); load average ${load.toFixed(2)}`,
  );

  await withClient(url, async (c) => {
    // ---- targets, in a table pgbench reads too
    const table = `bench_targets_${bench.name}`;
    await c.query(`DROP TABLE IF EXISTS ${table}`);
    await c.query(`CREATE UNLOGGED TABLE ${table} AS ${bench.targets}`, [book.business_id, howMany]);
    const keyCols = [...(bench.targetKey ?? []), 'k'].join(', ');
    await c.query(`ALTER TABLE ${table} ADD PRIMARY KEY (${keyCols})`);
    await c.query(`ANALYZE ${table}`);
    const targets = (await c.query<T>(`SELECT * FROM ${table} ORDER BY ${keyCols}`)).rows;
    if (targets.length === 0) throw new Error('the book gave no targets for this bench');
    const pick = () => bench.request(targets[Math.floor(Math.random() * targets.length)]!, book);
    console.log(`  ${targets.length} targets drawn from the book`);

    // ---- the app
    const key = book.keys[bench.key];
    const server = await startServer(url);
    let app: LoadResult;
    let warm: LoadResult | null = null;
    // the server's CPU time during the measured load (seconds)
    let serverCpu = Number.NaN;
    const since = (await c.query<{ now: string }>(`SELECT now()::text AS now`)).rows[0]!.now;
    const notes: string[] = [];
    try {
      const first = targets[0]!;
      const body = await probe(server.baseUrl, key, bench.request(first, book));
      if (bench.sameDocument) notes.push(await bench.sameDocument(c, book, first, body));
      if (warmup > 0) warm = await drive({ baseUrl: server.baseUrl, key, next: pick, connections, seconds: warmup });
      server.resetPeak();
      const cpuBefore = server.cpuSeconds();
      app = await drive({ baseUrl: server.baseUrl, key, next: pick, connections, seconds });
      serverCpu = server.cpuSeconds() - cpuBefore;
    } finally {
      await server.stop();
    }
    const rss = server.peakRssMiB();

    // ---- a bare HTTP route around the same statement, same targets and load
    let bare: LoadResult | null = null;
    if (bench.bare) {
      const b = await startBare(['bench/lib/barePostgres.ts', url, book.business_id, book.timezone]);
      try {
        if (warmup > 0) await drive({ baseUrl: b.baseUrl, key, next: pick, connections, seconds: warmup });
        bare = await drive({ baseUrl: b.baseUrl, key, next: pick, connections, seconds });
      } finally {
        await b.stop();
      }
    }
    const ctx: BenchContext = { url, book, c, since, okAnswers: app.ok + (warm?.ok ?? 0) + 1, connections };
    const afterApp = bench.check ? await bench.check(ctx) : {};

    // ---- the database alone, same statements, same targets
    const vars = { bid: book.business_id, keyhash: createHash('sha256').update(key).digest('hex') };
    const ceilings: (Row & { failed: number; transactions: number })[] = [];
    for (const ceiling of bench.ceilings(book, targets)) {
      const args = { url, scripts: ceiling.scripts, vars, clients: connections };
      if (warmup > 0) await pgbench({ ...args, seconds: Math.ceil(warmup) });
      const r: CeilingResult = await pgbench({ ...args, seconds: Math.ceil(seconds) });
      ceilings.push({
        label: ceiling.label,
        rps: r.tps,
        p50: r.p50,
        p99: r.p99,
        failed: r.failed,
        transactions: r.transactions,
      });
    }
    const afterCeilings = bench.check ? await bench.check(ctx) : {};
    if (bench.tpcb) {
      const r = await tpcb({ url, clients: connections, seconds: Math.ceil(seconds) });
      ceilings.push({
        label: 'pgbench TPC-B, scale 10',
        rps: r.tps,
        p50: r.p50,
        p99: r.p99,
        failed: r.failed,
        transactions: r.transactions,
      });
    }

    // ---- report
    console.log('');
    console.log(
      `${'work'.padEnd(34)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}   ${'app/ceiling'.padStart(11)}`,
    );
    console.log(
      `${`app: ${bench.work}`.padEnd(34)} ${app.rps.toFixed(1).padStart(9)} ${ms(app.p50).padStart(8)} ${ms(app.p99).padStart(8)}`,
    );
    if (bare) {
      const ratio = `${((100 * app.rps) / bare.rps).toFixed(1)} %`;
      console.log(
        `${'http: bare Fastify + pg, same statement'.padEnd(34)} ${bare.rps.toFixed(1).padStart(9)} ${ms(bare.p50).padStart(8)} ${ms(bare.p99).padStart(8)}   ${ratio.padStart(11)}`,
      );
    }
    for (const x of ceilings) {
      const ratio = `${((100 * app.rps) / x.rps).toFixed(1)} %`;
      console.log(
        `${`db: ${x.label}`.padEnd(34)} ${x.rps.toFixed(1).padStart(9)} ${ms(x.p50).padStart(8)} ${ms(x.p99).padStart(8)}   ${ratio.padStart(11)}`,
      );
    }
    console.log('');
    console.log(
      `app: ${app.requests} requests, ${app.ok} 2xx, ${app.non2xx} non-2xx ${JSON.stringify(app.codes)}, ${app.errors} errors, ${app.timeouts} timeouts; server peak RSS ${rss.toFixed(0)} MiB`,
    );
    // what bounds the app when the server process is short of CPU: its CPU a request, and the
    // share of one core it got (on a shared machine, less than it would use)
    console.log(
      `server CPU during the load: ${serverCpu.toFixed(2)} s in ${seconds} s (${((100 * serverCpu) / seconds).toFixed(0)} % of one core), ${((1000 * serverCpu) / Math.max(1, app.requests)).toFixed(2)} ms a request`,
    );
    for (const n of notes) console.log(n);
    if (bench.check) {
      console.log(`checks after the app: ${JSON.stringify(afterApp)}`);
      console.log(`checks after the ceilings: ${JSON.stringify(afterCeilings)}`);
    }
    if (o.json) {
      console.log(
        JSON.stringify({
          bench: bench.name,
          work: bench.work,
          database: databaseName(url),
          scale: book.scale,
          connections,
          seconds,
          load_average: round(load, 2),
          app: {
            rps: round(app.rps),
            p50_ms: round(app.p50),
            p99_ms: round(app.p99),
            requests: app.requests,
            non2xx: app.non2xx,
            errors: app.errors,
            rss_mib: round(rss, 0),
            server_cpu_s: round(serverCpu, 2),
            server_cpu_ms_per_request: round((1000 * serverCpu) / Math.max(1, app.requests), 3),
          },
          ...(bare
            ? {
                bare_http: {
                  rps: round(bare.rps),
                  p50_ms: round(bare.p50),
                  p99_ms: round(bare.p99),
                  ratio: round(app.rps / bare.rps, 3),
                },
              }
            : {}),
          ceilings: ceilings.map((x) => ({
            label: x.label,
            rps: round(x.rps),
            p50_ms: round(x.p50),
            p99_ms: round(x.p99),
            failed: x.failed,
            transactions: x.transactions,
            ratio: round(app.rps / x.rps, 3),
          })),
          ...(bench.check ? { checks: { after_app: afterApp, after_ceilings: afterCeilings } } : {}),
        }),
      );
    }
    const bad = app.non2xx + app.errors > 0.01 * app.requests;
    const failedChecks = [...Object.entries(afterApp), ...Object.entries(afterCeilings)].filter(
      ([k, v]) => k.startsWith('bad_') && v !== 0,
    );
    if (bad || failedChecks.length) {
      console.error(
        bad
          ? 'more than 1 % of the requests failed'
          : `check failed: ${JSON.stringify(Object.fromEntries(failedChecks))}`,
      );
      process.exitCode = 1;
    }
  });
}
