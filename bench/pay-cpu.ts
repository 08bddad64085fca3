// Payments one at a time through the real server (one connection, no ceiling): the server's CPU
// a payment (user + system time from /proc, the sockets' writes included), which moves far less
// with the machine's load than a rate does. Small amounts on active credits no run has paid, as `pay`.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- pay-cpu [300]
import { requireBook, withClient, benchUrl } from './lib/db.ts';
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
  const cpu0 = server.cpuSeconds();
  const t0 = performance.now();
  for (const id of credits.slice(20)) await pay(id);
  const wall = (performance.now() - t0) / 1000;
  const cpu = server.cpuSeconds() - cpu0;
  console.log(
    `${credits.length - 20} payments one at a time in ${wall.toFixed(1)} s: server CPU ${cpu.toFixed(2)} s, ${((1000 * cpu) / (credits.length - 20)).toFixed(2)} ms a payment`,
  );
} finally {
  await server.stop();
}
