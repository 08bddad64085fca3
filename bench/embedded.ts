// Embedded mode (docs/benchmarks.md): the real server on a PGlite data directory with the
// demo book, client reads (GET /api/clients/:id) at 16 connections alone, then while a large export
// streams and while the daily run runs (no read may starve behind them), and against a bare
// Fastify + PGlite route serving the same statement (bench/lib/bareEmbedded.ts).
//
//   npm run bench -- embedded [--duration 15] [--connections 16] [--audit-rows 300000] [--json]
//
// The data directory is a fresh temporary one: `lending serve` creates the demo business on it;
// then, with the server stopped, --audit-rows audit entries are added to the demo business in one
// INSERT … SELECT (the export's rows); the server is started again for the measured phases.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { drive, type LoadResult } from './lib/load.ts';
import { startBare, startServer } from './lib/server.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: {
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '16' },
    'audit-rows': { type: 'string', default: '300000' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(o.duration);
const connections = Number(o.connections);
const auditRows = Number(o['audit-rows']);
if (!(seconds >= 1) || !(connections >= 1) || !(Number.isInteger(auditRows) && auditRows >= 0)) {
  console.error('--duration and --connections must be >= 1, --audit-rows a whole number >= 0');
  process.exit(2);
}
const withoutDatabaseUrl = () => {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return rest;
};
const root = fileURLToPath(new URL('..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'lending-bench-embedded-'));
const env = { DATA_DIR: dataDir };

try {
  // ---- the demo book, its read key and clients
  let server = await startServer(null, env);
  const key = /read: (lk_\S+)/.exec(server.output())?.[1];
  if (!key) throw new Error(`no demo key in the server's output:\n${server.output()}`);
  const clients: string[] = (
    (await (
      await fetch(`${server.baseUrl}/api/clients?limit=100`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as {
      items: { id: string }[];
    }
  ).items.map((c) => c.id);
  const size = (
    await (
      await fetch(`${server.baseUrl}/api/clients/${clients[0]}`, { headers: { authorization: `Bearer ${key}` } })
    ).text()
  ).length;
  await server.stop();

  // ---- the export's rows
  if (auditRows > 0) {
    const db = await PGlite.create({ dataDir: `${dataDir}/pgdata` });
    await db.query(
      `INSERT INTO audit_log (business_id, table_name, action, record_id, new_data, actor, changed_at)
       SELECT b.id, 'ledger', 'INSERT', gen_random_uuid(), jsonb_build_object('n', g, 'amount', 100.25), 'bench',
              now() - make_interval(secs => g)
       FROM businesses b, generate_series(1, $1::int) g`,
      [auditRows],
    );
    await db.close();
  }

  const next = () => ({
    method: 'GET' as const,
    path: `/api/clients/${clients[Math.floor(Math.random() * clients.length)]}`,
  });
  const reads = (baseUrl: string, s = seconds) => drive({ baseUrl, key, next, connections, seconds: s });

  // ---- the real server: reads alone, during an export, during the daily run
  server = await startServer(null, env);
  const rows: { label: string; r: LoadResult; note?: string }[] = [];
  let peakRss = 0;
  try {
    await reads(server.baseUrl, 3); // warm-up
    server.resetPeak();
    rows.push({ label: 'app: reads alone', r: await reads(server.baseUrl) });

    const exportRun = (async () => {
      const t0 = performance.now();
      const res = await fetch(`${server.baseUrl}/api/reports/exports/logs.csv`, {
        headers: { authorization: `Bearer ${key}` },
      });
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        for (const b of chunk) if (b === 10) lines++;
      }
      return { status: res.status, rows: lines - 1, seconds: (performance.now() - t0) / 1000, bytes };
    })();
    const during = await reads(server.baseUrl, Math.max(seconds, 5));
    const exp = await exportRun;
    rows.push({
      label: 'app: reads during an export',
      r: during,
      note: `export of ${exp.rows} audit rows (${(exp.bytes / 2 ** 20).toFixed(1)} MiB): ${exp.seconds.toFixed(1)} s, ${Math.round(exp.rows / exp.seconds)} rows/s, status ${exp.status}`,
    });

    const daily = spawn(process.execPath, ['bin/lending.js', 'accrue', '--json'], {
      cwd: root,
      env: { ...withoutDatabaseUrl(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const dailyDone = new Promise<number | null>((resolve) => daily.on('exit', resolve));
    const t0 = performance.now();
    const duringDaily = await reads(server.baseUrl, Math.max(seconds / 3, 3));
    const code = await dailyDone;
    rows.push({
      label: 'app: reads during the daily run',
      r: duringDaily,
      note: `daily run (forwarded to the server) exit ${code}, ${((performance.now() - t0) / 1000).toFixed(1)} s incl. the reads`,
    });
    peakRss = server.peakRssMiB();
  } finally {
    await server.stop();
  }

  // ---- the ceiling: a bare Fastify + PGlite route, the same statement
  const bare = await startBare(['bench/lib/bareEmbedded.ts', dataDir]);
  let ceiling: LoadResult;
  try {
    await reads(bare.baseUrl, 3);
    ceiling = await reads(bare.baseUrl);
  } finally {
    await bare.stop();
  }

  const ms = (v: number) => v.toFixed(1);
  console.log(
    `bench embedded: GET /api/clients/:id on the demo book (${clients.length} clients, ${size} bytes each), ${connections} connections, ${seconds} s; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  console.log(
    `\n${'work'.padEnd(36)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}  app/ceiling`,
  );
  for (const { label, r } of [...rows, { label: 'ceiling: bare Fastify + PGlite', r: ceiling }])
    console.log(
      `${label.padEnd(36)}${r.rps.toFixed(1).padStart(9)}${ms(r.p50).padStart(9)}${ms(r.p99).padStart(9)}${ms(r.max).padStart(9)}  ${
        label.startsWith('app') ? `${((r.rps / ceiling.rps) * 100).toFixed(1)} %` : ''
      }`,
    );
  console.log('');
  for (const { label, r, note } of rows)
    console.log(
      `${label}: ${r.requests} requests, ${r.ok} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors${note ? `; ${note}` : ''}`,
    );
  console.log(`server peak RSS under load: ${peakRss.toFixed(0)} MiB`);
  if (o.json)
    console.log(
      JSON.stringify({ bench: 'embedded', rows: rows.map(({ label, r }) => ({ label, ...r })), ceiling, peakRss }),
    );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
