// The database's own ceiling for a route: pgbench running the route's statements from as many
// connections as the app has requests in flight, prepared (parsed and planned once a connection:
// the database's best case). One pgbench "transaction" is one request's worth of statements; its
// latency comes from pgbench's per-transaction log.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, ensureDatabase } from './db.ts';

export interface Script {
  name: string;
  /** pgbench script: \set / \gset meta-commands and SQL ending in ; (variables as :name) */
  text: string;
  weight?: number;
}

export interface CeilingResult {
  tps: number;
  p50: number;
  p99: number;
  transactions: number;
  failed: number;
}

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pgbench', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', (e) =>
      reject(new Error(`pgbench could not start (${e.message}): install the PostgreSQL client tools`)),
    );
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`pgbench exited ${code}:\n${err}${out}`)),
    );
  });
}

/** Each transaction's latency in ms, sorted, from pgbench's logs (-l) in dir. */
function latencies(dir: string): number[] {
  // log lines: client_id transaction_no latency_us script_no epoch_s epoch_us
  const lat: number[] = [];
  for (const f of readdirSync(dir).filter((n) => n.startsWith('log'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      const us = Number(line.split(' ')[2]);
      if (Number.isFinite(us) && line) lat.push(us / 1000);
    }
  }
  return lat.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;

export async function pgbench(o: {
  url: string;
  scripts: Script[];
  vars: Record<string, string>;
  clients: number;
  seconds: number;
}): Promise<CeilingResult> {
  const dir = mkdtempSync(join(tmpdir(), 'lending-pgbench-'));
  try {
    const files = o.scripts.map((s) => {
      const file = join(dir, `${s.name}.sql`);
      writeFileSync(file, s.text);
      return ['-f', `${file}@${s.weight ?? 1}`];
    });
    const out = await run([
      '-n', // no vacuum of pgbench's own tables: there are none
      '-M',
      // prepared, as the app's reads are; PGBENCH_PROTOCOL=extended parses and plans every statement
      // again, as Kysely's statements in a transaction are (docs/benchmarks.md, Payments)
      process.env.PGBENCH_PROTOCOL ?? 'prepared',
      '-c',
      String(o.clients),
      '-j',
      String(Math.min(2, o.clients)),
      '-T',
      String(o.seconds),
      '-l',
      '--log-prefix',
      join(dir, 'log'),
      ...Object.entries(o.vars).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
      ...files.flat(),
      o.url,
    ]);
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
    if (!tps) throw new Error(`no tps in pgbench's output:\n${out}`);
    const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
    const lat = latencies(dir);
    return {
      tps: Number(tps[1]),
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      transactions: lat.length,
      failed,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL's own write ceiling on this machine: pgbench's built-in TPC-B (5 statements, 3
 * updates and an insert a transaction), scale 10, in a scratch database next to the book
 * (`<book>_tpcb`, initialised afresh each run with `pgbench -i -s 10`, dropped after), at the
 * bench's connections and duration. The payment's ratio to it says how far the app is from what
 * the server does with a simple write transaction, whatever the machine's load at the time.
 */
export async function tpcb(o: {
  url: string;
  clients: number;
  seconds: number;
  scale?: number;
}): Promise<CeilingResult> {
  const u = new URL(o.url);
  u.pathname = `${u.pathname}_tpcb`;
  const scratch = u.toString();
  await ensureDatabase(scratch);
  try {
    await run(['-i', '-q', '-s', String(o.scale ?? 10), scratch]);
    const dir = mkdtempSync(join(tmpdir(), 'lending-tpcb-'));
    try {
      const out = await run([
        '-c',
        String(o.clients),
        '-j',
        String(Math.min(2, o.clients)),
        '-T',
        String(o.seconds),
        '-l',
        '--log-prefix',
        join(dir, 'log'),
        scratch,
      ]);
      const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
      if (!tps) throw new Error(`no tps in pgbench's output:\n${out}`);
      const lat = latencies(dir);
      return {
        tps: Number(tps[1]),
        p50: percentile(lat, 50),
        p99: percentile(lat, 99),
        transactions: lat.length,
        failed: Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0),
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await dropDatabase(scratch);
  }
}
