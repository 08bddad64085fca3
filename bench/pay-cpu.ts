// Payments one at a time through the real server (one connection, no ceiling): the server's CPU
// a payment (user + system time from /proc, the sockets' writes included), which moves far less
// with the machine's load than a rate does. Small amounts on active credits no run has paid, as `pay`.
// With the database on this machine, also the CPU its backends of the bench database spent (the
// server's pool and its jobs': the statements, their triggers, the commits), read from /proc the
// same way: what a payment costs PostgreSQL, which the server's CPU does not show.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- pay-cpu [300]
import { requireBook, withClient, benchUrl } from './lib/db.ts';
import { readFileSync } from 'node:fs';
import { startServer } from './lib/server.ts';
const n = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 300);
const url = benchUrl();
const book = await requireBook(url);
const credits = await withClient(url, async (c) =>
  (
    await c.query<{ id: string }>(
      `SELECT id FROM credits k WHERE business_id = $1 AND status = 'active' AND branch_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.business_id = $1 AND p.credit_id = k.id
                          AND p.created_at > (SELECT (value->>'built_at')::timestamptz FROM bench_meta WHERE key = 'book'))
     ORDER BY random() LIMIT $2`,
      [book.business_id, n + 20],
    )
  ).rows.map((r) => r.id),
);
const server = await startServer(url);

/** user + system CPU seconds of a process (/proc: 10 ms ticks), NaN when gone or not on this machine */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}
/** the bench database's client backends but this one, pid → CPU seconds so far */
const backends = (c: import('pg').Client) =>
  c
    .query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    )
    .then((r) => new Map(r.rows.map(({ pid }) => [pid, cpuOf(pid)] as const)));
const pay = async (id: string) => {
  const r = await fetch(`${server.baseUrl}/api/credits/${id}/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${book.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: (100 + Math.floor(Math.random() * 401)) / 100 }),
  });
  if (r.status !== 201) throw new Error(`${r.status} ${await r.text()}`);
  await r.arrayBuffer();
};
try {
  for (const id of credits.slice(0, 20)) await pay(id); // warm-up
  const { cpu, wall, db } = await withClient(url, async (c) => {
    const db0 = await backends(c);
    const cpu0 = server.cpuSeconds();
    const t0 = performance.now();
    for (const id of credits.slice(20)) await pay(id);
    const wall = (performance.now() - t0) / 1000;
    const cpu = server.cpuSeconds() - cpu0;
    // a backend that started during the run counts from 0; one that ended is lost (the pool keeps its own)
    let db = 0;
    for (const [pid, now] of await backends(c)) db += now - (db0.get(pid) ?? 0);
    return { cpu, wall, db };
  });
  const paid = credits.length - 20;
  console.log(
    `${paid} payments one at a time in ${wall.toFixed(1)} s: server CPU ${cpu.toFixed(2)} s, ${((1000 * cpu) / paid).toFixed(2)} ms a payment; ` +
      `database backends' CPU ${Number.isNaN(db) ? 'not readable (not on this machine)' : `${db.toFixed(2)} s, ${((1000 * db) / paid).toFixed(2)} ms a payment`}`,
  );
} finally {
  await server.stop();
}
