// Payment imports (≥ 2,000 lines/s on the bench book): a collection network's CSV of N lines paying
// small amounts (1.00 to 5.00) on random active credits of the book, by sequential id or uuid, with
// a few bad lines (no such credit, three decimals, a date in the future) and a few lines repeated
// (the same channel and reference again: duplicates), uploaded through the real server
// (POST /api/payment-imports, text/csv, the full key) and waited for until the import is done.
// Then the database's ceiling: the same locks, book reads and writes through a bare client (below).
// Then the same payments (the file's first --one-by-one good lines) posted one by one through the
// API (POST /api/credits/:id/payments, one request at a time), for the ratio.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- import [--lines 100000] [--one-by-one 2000] [--keep] [--json]
//
// Needs the bench book (npm run bench -- book). Both runs write, so each runs on a copy of the
// book of its own (CREATE DATABASE <book>_import / <book>_one TEMPLATE <book>; nothing may be
// connected to the book meanwhile), dropped at the end unless --keep. Checked after the import:
// the counts of accepted, rejected and duplicate lines are the file's, one payment a good line, no
// installment over-allocated, every ledger and payments row written has its audit row.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchUrl, databaseName, requireBook, withClient } from './lib/db.ts';
import { startServer } from './lib/server.ts';
import { CREDIT_BOOKS } from '../src/db/repositories/creditBook.ts';
import { MANY_CREDIT_CHANGES } from '../src/db/repositories/creditChanges.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: {
    lines: { type: 'string', default: '100000' },
    'one-by-one': { type: 'string', default: '2000' },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const N = Number(o.lines);
const ONE = Number(o['one-by-one']);
if (!Number.isInteger(N) || N < 100 || N > 100_000 || !Number.isInteger(ONE) || ONE < 0 || ONE > N) {
  console.error('--lines must be a whole number from 100 to 100000, --one-by-one from 0 to --lines');
  process.exit(2);
}
const url = benchUrl();
const book = await requireBook(url);
const source = databaseName(url);
const ident = (n: string) => `"${n.replace(/"/g, '""')}"`;
const urlOf = (name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};
const maintenance = urlOf('postgres');
const copies = { import: `${source}_import`, one: `${source}_one` };
const log = (s: string) => {
  if (!o.json) console.log(s);
};
const loads: number[][] = [];
const sampleLoad = () => loads.push(loadavg().map((x) => Math.round(x * 100) / 100));

async function copyBook(name: string) {
  await withClient(maintenance, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${ident(name)} TEMPLATE ${ident(source)}`).catch((err: Error) => {
      throw new Error(`cannot copy ${source} (is something connected to it?): ${err.message}`);
    });
  });
}
async function dropCopy(name: string) {
  await withClient(maintenance, (c) => c.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`));
}

// ---------------------------------------------------------------- the file
sampleLoad();
let t = performance.now();
await copyBook(copies.import);
if (ONE > 0) await copyBook(copies.one);
log(`copies of ${source}: ${((performance.now() - t) / 1000).toFixed(1)} s`);

interface Target {
  id: string;
  sequential_id: number;
}
// active credits that owe at least 600 more (their installments left): N small payments spread
// over them never come near what any one owes
const targets = await withClient(
  urlOf(copies.import),
  async (c) =>
    (
      await c.query<Target>(
        `SELECT c.id, c.sequential_id::int AS sequential_id FROM credits c
          WHERE c.business_id = $1 AND c.status = 'active'
            AND (SELECT sum(i.amount) FROM installments i WHERE i.business_id = $1 AND i.credit_id = c.id AND i.status <> 'paid') >= 600
          ORDER BY random() LIMIT 20000`,
        [book.business_id],
      )
    ).rows,
);
if (targets.length === 0) throw new Error('no active credit in the book');

type Kind = 'good' | 'bad' | 'repeat';
interface Line {
  kind: Kind;
  credit: string;
  creditId: string | null;
  amount: string;
  paidOn: string;
  reference: string;
}
const run = Date.now().toString(36);
const lines: Line[] = [];
const good: Line[] = [];
for (let k = 0; lines.length < N; k++) {
  const r = Math.random();
  if (r < 0.005 && good.length > 0) {
    lines.push({ ...good[Math.floor(Math.random() * good.length)]!, kind: 'repeat' });
    continue;
  }
  if (r < 0.01) {
    const which = k % 3;
    const tg = targets[k % targets.length]!;
    lines.push({
      kind: 'bad',
      credit: which === 0 ? '999999999' : String(tg.sequential_id),
      creditId: null,
      amount: which === 1 ? '1.005' : '1.00',
      paidOn: which === 2 ? '2999-01-01' : '',
      reference: `B${run}-${k}`,
    });
    continue;
  }
  const tg = targets[Math.floor(Math.random() * targets.length)]!;
  const l: Line = {
    kind: 'good',
    credit: k % 2 ? String(tg.sequential_id) : tg.id,
    creditId: tg.id,
    amount: ((100 + Math.floor(Math.random() * 401)) / 100).toFixed(2),
    paidOn: '',
    reference: `B${run}-${k}`,
  };
  lines.push(l);
  good.push(l);
}
const csv = `credit,amount,paid_on,method,channel,external_reference\n${lines
  .map((l) => `${l.credit},${l.amount},${l.paidOn},collection_network,Rapipago,${l.reference}`)
  .join('\n')}\n`;
const expected = {
  accepted: lines.filter((l) => l.kind === 'good').length,
  rejected: lines.filter((l) => l.kind === 'bad').length,
  duplicates: lines.filter((l) => l.kind === 'repeat').length,
};
const credits = new Set(good.map((l) => l.creditId)).size;
log(
  `file: ${N} lines (${expected.accepted} good on ${credits} credits, ${expected.rejected} bad, ${expected.duplicates} repeated), ${(csv.length / 1024 / 1024).toFixed(1)} MiB`,
);

// ---------------------------------------------------------------- the import
const results: Record<string, unknown> = {
  lines: N,
  credits,
  ...Object.fromEntries(Object.entries(expected).map(([k, v]) => [`expected_${k}`, v])),
};
const headers = { authorization: `Bearer ${book.keys.full}` };
{
  const since = await withClient(urlOf(copies.import), async (c) => (await c.query('SELECT now() AS n')).rows[0].n);
  const server = await startServer(urlOf(copies.import));
  try {
    sampleLoad();
    t = performance.now();
    const res = await fetch(`${server.baseUrl}/api/payment-imports`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/csv', 'idempotency-key': `bench-import-${run}` },
      body: csv,
    });
    if (res.status !== 202) throw new Error(`POST /api/payment-imports: ${res.status} ${await res.text()}`);
    const accepted202 = performance.now() - t;
    const id = ((await res.json()) as { id: string }).id;
    let imp: Record<string, unknown>;
    for (;;) {
      imp = (await (await fetch(`${server.baseUrl}/api/payment-imports/${id}`, { headers })).json()) as Record<
        string,
        unknown
      >;
      if (imp.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ms = performance.now() - t;
    sampleLoad();
    results.upload_ms = Math.round(accepted202);
    results.import_ms = Math.round(ms);
    results.import_lines_per_s = Math.round(N / (ms / 1000));
    results.server_peak_rss_mib = Math.round(server.peakRssMiB());
    for (const k of ['status', 'accepted', 'rejected', 'duplicates']) results[k] = imp[k];
    log(
      `import: ${N} lines in ${(ms / 1000).toFixed(1)} s (202 after ${(accepted202 / 1000).toFixed(1)} s): ${results.import_lines_per_s} lines/s; ` +
        `${imp.status}, ${imp.accepted} accepted, ${imp.rejected} rejected, ${imp.duplicates} duplicates`,
    );
  } finally {
    await server.stop();
  }
  // the checks
  const check = await withClient(urlOf(copies.import), async (c: pg.Client) => {
    const over = await c.query<Record<string, string>>(
      `WITH per AS (
         SELECT l.installment_id,
                coalesce(sum(l.amount) FILTER (WHERE l.type = 'payment'), 0) AS paid,
                coalesce(sum(l.amount - l.punitory_part) FILTER (WHERE l.type = 'payment'), 0) AS principal,
                coalesce(sum(l.punitory_part) FILTER (WHERE l.type = 'payment'), 0) AS punitory_paid,
                coalesce(sum(l.amount) FILTER (WHERE l.type = 'punitory'), 0) AS punitory
           FROM ledger l
          WHERE l.business_id = $1 AND l.credit_id = ANY($2::uuid[])
          GROUP BY l.installment_id)
       SELECT count(*) FILTER (WHERE p.paid > i.amount + p.punitory) AS bad_over_allocated,
              count(*) FILTER (WHERE p.principal > i.amount) AS bad_over_principal,
              count(*) FILTER (WHERE p.punitory_paid > p.punitory) AS bad_over_punitory
         FROM per p JOIN installments i ON i.business_id = $1 AND i.id = p.installment_id`,
      [book.business_id, [...new Set(good.map((l) => l.creditId))]],
    );
    const rows = await c.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM payments WHERE business_id = $1 AND created_at >= $2) AS payments,
              (SELECT count(*) FROM audit_log WHERE business_id = $1 AND table_name = 'payments' AND action = 'INSERT' AND changed_at >= $2) AS payments_audited,
              (SELECT count(*) FROM ledger WHERE business_id = $1 AND created_at >= $2) AS ledger_rows,
              (SELECT count(*) FROM audit_log WHERE business_id = $1 AND table_name = 'ledger' AND action = 'INSERT' AND changed_at >= $2) AS ledger_audited`,
      [book.business_id, since],
    );
    return { ...over.rows[0]!, ...rows.rows[0]! };
  });
  const n = (v: unknown) => Number(v ?? 0);
  results.payments = n(check.payments);
  results.ledger_rows = n(check.ledger_rows);
  const bad: Record<string, number> = {
    bad_over_allocated: n(check.bad_over_allocated),
    bad_over_principal: n(check.bad_over_principal),
    bad_over_punitory: n(check.bad_over_punitory),
    bad_unaudited_payments: n(check.payments) - n(check.payments_audited),
    bad_unaudited_ledger_rows: n(check.ledger_rows) - n(check.ledger_audited),
    bad_payments_not_one_a_good_line: n(check.payments) - expected.accepted,
    bad_counts:
      Number(results.accepted !== expected.accepted) +
      Number(results.rejected !== expected.rejected) +
      Number(results.duplicates !== expected.duplicates) +
      Number(results.status !== 'done'),
  };
  Object.assign(results, bad);
  log(
    `checked: ${results.payments} payments, ${results.ledger_rows} ledger rows; ${Object.entries(bad)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
}

// ---------------------------------------------------------------- the ceiling
// The database's own ceiling for the same work, through a bare client (pg) on the import's copy,
// no app: the file's good lines in batches of the import's size, each batch one transaction with
// the statements the import sends for its money (src/services/paymentImports.ts payBatch): the
// batch's credits locked in id order, their books read (the very CREDIT_BOOKS text), then every
// payment and its ledger slice written in one statement (the very MANY_CREDIT_CHANGES text, the
// audit triggers firing). What it leaves out is the app's own work: parsing the lines, the
// allocation engine (each payment here is one slice of principal on the credit's first unpaid
// installment), the outcomes and the events.
const CEILING_BATCH = 500;
{
  const goodLines = lines.filter((l) => l.kind === 'good');
  const client = new pg.Client({ connectionString: urlOf(copies.import) });
  await client.connect();
  try {
    sampleLoad();
    t = performance.now();
    for (let k = 0; k < goodLines.length; k += CEILING_BATCH) {
      const batch = goodLines.slice(k, k + CEILING_BATCH);
      const ids = [...new Set(batch.map((l) => l.creditId!))].sort();
      await client.query('BEGIN');
      await client.query(`SELECT set_config('app.actor', 'bench:ceiling', true)`);
      await client.query(
        'SELECT * FROM credits WHERE business_id = $1 AND id = ANY($2::uuid[]) ORDER BY id FOR UPDATE',
        [book.business_id, ids],
      );
      // the installments come as arrays [credit_id, id, number, amount, due_date, status, …], by credit and number
      const books = await client.query<{ installments: [string, string, number, string, string, string][] }>(
        CREDIT_BOOKS,
        [book.business_id, ids],
      );
      // each credit's first unpaid installment, else its first
      const first = new Map<string, string>();
      const firstUnpaid = new Map<string, string>();
      for (const [creditId, id, , , , status] of books.rows[0]!.installments ?? []) {
        if (!first.has(creditId)) first.set(creditId, id);
        if (status !== 'paid' && !firstUnpaid.has(creditId)) firstUnpaid.set(creditId, id);
      }
      for (const [creditId, id] of first) if (!firstUnpaid.has(creditId)) firstUnpaid.set(creditId, id);
      const payments = batch.map((l, j) => ({
        ord: j,
        id: crypto.randomUUID(),
        credit_id: l.creditId,
        amount: l.amount,
        paid_on: null,
        branch_id: null,
        created_by: 'bench:ceiling',
        method: 'collection_network',
        channel: 'Rapipago',
        external_reference: `C${run}-${k + j}`,
      }));
      const entries = batch.map((l, j) => ({
        ord: j,
        id: crypto.randomUUID(),
        credit_id: l.creditId,
        installment_id: firstUnpaid.get(l.creditId!),
        type: 'payment',
        origin: 'payment',
        amount: l.amount,
        punitory_part: '0',
        vat_part: '0',
        interest_part: '0',
        charge_part: '0',
        fees_part: '0',
        insurance_part: '0',
        effective_date: null,
        payment_id: payments[j]!.id,
        branch_id: null,
        created_by: 'bench:ceiling',
      }));
      const today = (await client.query<{ d: string }>(`SELECT (now() AT TIME ZONE 'UTC')::date::text AS d`)).rows[0]!
        .d;
      for (const p of payments) p.paid_on = today as never;
      for (const e of entries) e.effective_date = today as never;
      await client.query(MANY_CREDIT_CHANGES, [
        book.business_id,
        JSON.stringify(payments),
        JSON.stringify(entries),
        '[]',
        '[]',
        '[]',
      ]);
      await client.query('COMMIT');
    }
    const ms = performance.now() - t;
    sampleLoad();
    results.ceiling_lines = goodLines.length;
    results.ceiling_lines_per_s = Math.round(goodLines.length / (ms / 1000));
    results.ratio_import_to_ceiling =
      Math.round((Number(results.import_lines_per_s) / Number(results.ceiling_lines_per_s)) * 100) / 100;
    log(
      `ceiling (bare client, the same locks, book reads and writes, no app): ${goodLines.length} payments in ${(ms / 1000).toFixed(1)} s: ` +
        `${results.ceiling_lines_per_s}/s; the import is ${results.ratio_import_to_ceiling} × that`,
    );
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- one by one
if (ONE > 0) {
  const server = await startServer(urlOf(copies.one));
  try {
    const some = good.slice(0, ONE);
    sampleLoad();
    t = performance.now();
    let ok = 0;
    for (const [k, l] of some.entries()) {
      const res = await fetch(`${server.baseUrl}/api/credits/${l.creditId}/payments`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `bench-one-${run}-${k}` },
        body: JSON.stringify({
          amount: Number(l.amount),
          method: 'collection_network',
          channel: 'Rapipago',
          external_reference: l.reference,
        }),
      });
      await res.arrayBuffer();
      if (res.status === 201) ok++;
    }
    const ms = performance.now() - t;
    sampleLoad();
    results.one_by_one_payments = some.length;
    results.one_by_one_ok = ok;
    results.one_by_one_per_s = Math.round(some.length / (ms / 1000));
    results.ratio_import_to_one_by_one =
      Math.round((Number(results.import_lines_per_s) / Number(results.one_by_one_per_s)) * 10) / 10;
    log(
      `one by one: ${some.length} payments (${ok} answered 201) in ${(ms / 1000).toFixed(1)} s: ${results.one_by_one_per_s}/s; ` +
        `the import is ${results.ratio_import_to_one_by_one} × that`,
    );
  } finally {
    await server.stop();
  }
}

results.load_averages = loads;
log(
  `summary: import ${results.import_lines_per_s} lines/s; ${results.ratio_import_to_one_by_one ?? '-'} × one by one through the API; ` +
    `${results.ratio_import_to_ceiling} × the bare-client ceiling (${results.ceiling_lines_per_s}/s)`,
);
log(
  `load averages (1, 5, 15 min) at the start, before and after each run: ${loads.map((l) => l.join(' ')).join(' | ')}`,
);
if (!o.keep) for (const name of Object.values(copies)) await dropCopy(name);
else log(`kept ${Object.values(copies).join(', ')}`);
if (o.json) console.log(JSON.stringify(results));
const failed = Object.entries(results).filter(([k, v]) => k.startsWith('bad_') && v !== 0);
if (failed.length) {
  console.error(`FAILED checks: ${failed.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  process.exitCode = 1;
}
