// `npm run figures -- snapshot --url URL --out FILE [--as-of DATE] [--concurrency N]` reads every
// figure a running server shows of one business's book through its HTTP API, and writes them to
// FILE (one JSON line each); `npm run figures -- diff OLD NEW` compares two snapshots figure by
// figure. Used to check an upgrade on a copy of the real book (docs/deployment.md, "Checking a
// migration on a real book"): a snapshot from the version running now, the database copied, the
// new version started on the copy (it runs its migrations), a snapshot from it, the diff.
//
// The API key (any scope that reads credits and reports) comes from LENDING_API_KEY, or --key.
// Read per credit: GET /api/credits/{id} (the credit, its installments with their balances, status
// and days late, the credit's balance, the cost, the ledger entries), GET /api/credits/{id}/payoff
// at the as-of date, GET /api/credits/{id}/ledger. For the business: the portfolio summary at the
// as-of date, the collections report of the as-of month, and the CSV exports of clients, credits,
// installments, ledger and payments. A credit read answers as of the server's today, so a snapshot
// records that day (read before and after; a snapshot that crossed midnight fails) and the diff
// refuses two snapshots of different days.
//
// The diff: every field the old snapshot holds must be in the new one with the same value (numbers
// exactly, to the cent as the API gives them). A field only the new one has (a figure the new
// version added, such as insurance, fees or charges) must be zero, null, false, empty or an object
// of such: it is counted, and listed with the values it took. Exit 0 when nothing differs, 1 when
// something does (each difference printed with its path), 2 on a usage error. --ignore REGEX
// leaves out the fields and records whose path matches, ids as * and indexes as [] (e.g. the id
// and created_at of ledger entries each copy wrote on its own, after running the same job on
// both). Only node: itself (and scripts/csv.ts, as dependency-free), it runs against any version of
// the server (the older one included).
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { parseCsv } from './csv.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Line {
  /** credit:<id> or business:<what> */
  key: string;
  value: Json;
}

const EXPORTS = ['clients', 'credits', 'installments', 'ledger', 'payments'] as const;

function usage(msg?: string): never {
  if (msg) console.error(msg);
  console.error(
    'usage: npm run figures -- snapshot --url URL --out FILE [--key KEY] [--as-of YYYY-MM-DD] [--concurrency N]\n' +
      '       npm run figures -- diff OLD.jsonl NEW.jsonl [--show N] [--ignore REGEX]',
  );
  process.exit(2);
}

// ---------------------------------------------------------------------------------------- snapshot

async function snapshot(argv: string[]) {
  const { values: o } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      out: { type: 'string' },
      'as-of': { type: 'string' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  const base = (o.url ?? usage('--url is required')).replace(/\/+$/, '');
  const key = o.key ?? process.env.LENDING_API_KEY ?? usage('LENDING_API_KEY (or --key) is required');
  const outFile = o.out ?? usage('--out is required');
  const concurrency = Number(o.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) usage('--concurrency: 1 to 64');
  if (o['as-of'] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(o['as-of'])) usage('--as-of: YYYY-MM-DD');

  async function get(path: string, accept = 'application/json'): Promise<{ status: number; body: string }> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}`, accept } });
      const body = await res.text();
      // a production server limits requests a minute: wait for the next window, as it says
      if (res.status === 429 && attempt < 20) {
        const wait = Number(res.headers.get('retry-after') ?? res.headers.get('x-ratelimit-reset') ?? 5);
        await new Promise((r) => setTimeout(r, Math.max(1, wait) * 1000));
        continue;
      }
      if (res.status >= 500 || res.status === 401 || res.status === 403 || res.status === 429)
        throw new Error(`GET ${path}: ${res.status} ${body.slice(0, 300)}`);
      return { status: res.status, body };
    }
  }
  const getJson = async (path: string): Promise<Json> => {
    const r = await get(path);
    const body = JSON.parse(r.body) as Json;
    // a 4xx is a figure too (a payoff of a closed credit is refused): kept with its status and code
    return r.status === 200 ? body : { status: r.status, code: (body as { code?: Json })?.code ?? null };
  };
  /** the business's today, as the server sees it: the summary's default date */
  const serverToday = async () => String(((await getJson('/api/reports/summary')) as { as_of: string }).as_of);

  const today = await serverToday();
  const asOf = o['as-of'] ?? today;
  const t0 = performance.now();
  const out = createWriteStream(outFile);
  const write = (line: Line) => out.write(`${JSON.stringify(line)}\n`);
  write({ key: 'meta', value: { url: base, today, as_of: asOf, taken_at: new Date().toISOString() } });

  // every credit's id, by offset pages
  const ids: string[] = [];
  let total = 0;
  for (let offset = 0; ; ) {
    const page = (await getJson(`/api/credits?limit=100&offset=${offset}`)) as {
      items: { id: string }[];
      total: number;
    };
    total = page.total;
    for (const c of page.items) ids.push(c.id);
    offset += page.items.length;
    if (page.items.length === 0 || offset >= total) break;
  }
  const unique = [...new Set(ids)].sort();
  if (unique.length !== total)
    throw new Error(`listed ${unique.length} distinct credits of ${total}: did the book change?`);

  let next = 0;
  let done = 0;
  let installments = 0;
  const worker = async () => {
    while (next < unique.length) {
      const id = unique[next++]!;
      const read = await getJson(`/api/credits/${id}`);
      const payoff = await getJson(`/api/credits/${id}/payoff?as_of=${asOf}`);
      const ledger = await getJson(`/api/credits/${id}/ledger`);
      installments += ((read as { installments?: unknown[] }).installments ?? []).length;
      write({ key: `credit:${id}`, value: { read, payoff, ledger } });
      if (++done % 1000 === 0) console.error(`${done} / ${unique.length} credits`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));

  write({ key: 'business:summary', value: await getJson(`/api/reports/summary?as_of=${asOf}`) });
  for (const group of ['day', 'method', 'channel', 'branch']) {
    const from = `${asOf.slice(0, 8)}01`;
    write({
      key: `business:collections:${group}`,
      value: await getJson(`/api/reports/collections?from=${from}&to=${asOf}&group_by=${group}`),
    });
  }
  for (const dataset of EXPORTS) {
    const r = await get(`/api/reports/exports/${dataset}.csv`, 'text/csv');
    if (r.status !== 200) throw new Error(`export ${dataset}: ${r.status} ${r.body.slice(0, 300)}`);
    const rows = parseCsv(r.body);
    const header = rows.shift() ?? [];
    const idAt = header.indexOf('id');
    for (const [n, row] of rows.entries()) {
      const rec: Record<string, Json> = {};
      header.forEach((h, i) => {
        rec[h] = row[i] ?? null;
      });
      write({ key: `export:${dataset}:${idAt >= 0 ? row[idAt] : n}`, value: rec });
    }
  }
  const after = await serverToday();
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  if (after !== today) {
    console.error(`the server's today went from ${today} to ${after} during the snapshot: take it again`);
    process.exitCode = 1;
    return;
  }
  console.log(
    `${outFile}: ${unique.length} credits, ${installments} installments, as of ${asOf} (server today ${today}), ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

// -------------------------------------------------------------------------------------------- diff

async function readLines(file: string, each: (line: Line) => void) {
  const rl = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const text of rl) if (text.trim()) each(JSON.parse(text) as Line);
}

/** Nothing in it: what a field the old version did not have must be on an old credit. */
function isZero(v: Json): boolean {
  if (v === null || v === false || v === 0 || v === '' || v === '0' || v === '0.00') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v).every(isZero);
  return false;
}

async function diff(argv: string[]) {
  const { values: o, positionals } = parseArgs({
    args: argv,
    options: { show: { type: 'string', default: '50' }, ignore: { type: 'string' } },
    allowPositionals: true,
  });
  if (positionals.length !== 2) usage('diff needs two snapshot files');
  const [oldFile, newFile] = positionals as [string, string];
  const show = Number(o.show);
  // fields (or whole records) not compared, by their path with ids and indexes as * and []
  const ignore = o.ignore === undefined ? null : new RegExp(o.ignore);
  let ignored = 0;

  const old = new Map<string, Json>();
  await readLines(oldFile, (l) => old.set(l.key, l.value));
  const differences: string[] = [];
  const added = new Map<string, { count: number; values: Set<string> }>();
  let figures = 0;
  let fields = 0;
  let seen = 0;
  const counts = { credits: 0, installments: 0, ledger: 0, exportRows: 0 };
  const shape = (path: string) => path.replace(/\[\d+\]/g, '[]').replace(/^(credit|export:\w+):[^.]+/, '$1:*');

  const compare = (a: Json, b: Json, path: string) => {
    if (ignore?.test(shape(path))) {
      ignored++;
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) differences.push(`${path}: ${a.length} items before, ${b.length} after`);
      for (let i = 0; i < Math.min(a.length, b.length); i++) compare(a[i]!, b[i]!, `${path}[${i}]`);
      return;
    }
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      for (const k of Object.keys(a)) {
        if (!(k in b)) differences.push(`${path}.${k}: ${JSON.stringify(a[k])} before, missing after`);
        else compare(a[k]!, b[k]!, `${path}.${k}`);
      }
      for (const k of Object.keys(b)) {
        if (k in a) continue;
        const p = shape(`${path}.${k}`);
        if (ignore?.test(p)) {
          ignored++;
          continue;
        }
        const entry = added.get(p) ?? { count: 0, values: new Set<string>() };
        entry.count++;
        if (entry.values.size < 5) entry.values.add(JSON.stringify(b[k]));
        added.set(p, entry);
        if (!isZero(b[k]!)) differences.push(`${path}.${k}: new field, ${JSON.stringify(b[k])} (must be zero)`);
      }
      return;
    }
    fields++;
    if (typeof a === 'number' || (typeof a === 'string' && /^-?\d+(\.\d+)?$/.test(a))) figures++;
    if (a !== b) differences.push(`${path}: ${JSON.stringify(a)} before, ${JSON.stringify(b)} after`);
  };

  let metaOld: { today?: string; as_of?: string } = {};
  let metaNew: { today?: string; as_of?: string } = {};
  await readLines(newFile, (l) => {
    if (l.key === 'meta') {
      metaNew = l.value as typeof metaNew;
      return;
    }
    seen++;
    if (ignore?.test(shape(l.key))) {
      ignored++;
      old.delete(l.key);
      return;
    }
    const a = old.get(l.key);
    if (a === undefined) {
      differences.push(`${l.key}: only after`);
      return;
    }
    old.delete(l.key);
    if (l.key.startsWith('credit:')) {
      counts.credits++;
      counts.installments += ((a as { read?: { installments?: unknown[] } }).read?.installments ?? []).length;
      counts.ledger += ((a as { ledger?: unknown[] }).ledger ?? []).length;
    } else if (l.key.startsWith('export:')) counts.exportRows++;
    compare(a, l.value, l.key);
  });
  metaOld = (old.get('meta') ?? {}) as typeof metaOld;
  old.delete('meta');
  if (metaOld.today !== metaNew.today || metaOld.as_of !== metaNew.as_of) {
    console.error(
      `the snapshots are of different days (before: today ${metaOld.today}, as of ${metaOld.as_of}; after: ` +
        `today ${metaNew.today}, as of ${metaNew.as_of}): take both the same day`,
    );
    process.exitCode = 2;
    return;
  }
  for (const k of old.keys()) {
    if (ignore?.test(shape(k))) ignored++;
    else differences.push(`${k}: only before`);
  }

  console.log(
    `compared ${counts.credits} credits, ${counts.installments} installments, ${counts.ledger} ledger entries, ` +
      `${counts.exportRows} export rows, ${seen} records in all, as of ${metaNew.as_of}: ` +
      `${fields} fields (${figures} of them figures), ${differences.length} differences` +
      (ignore ? ` (${ignored} fields or records left out by --ignore)` : ''),
  );
  if (added.size > 0) {
    console.log('fields only after (must be zero on the old book):');
    for (const [p, e] of [...added].sort()) console.log(`  ${p}  ×${e.count}  values ${[...e.values].join(' ')}`);
  }
  for (const d of differences.slice(0, show)) console.log(`DIFF ${d}`);
  if (differences.length > show) console.log(`... and ${differences.length - show} more (--show N)`);
  // exitCode, not exit(): a long list piped to another program is written out whole first
  process.exitCode = differences.length > 0 ? 1 : 0;
}

// `diff ... | head`: the reader left, nothing more to say
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'snapshot') await snapshot(rest);
  else if (command === 'diff') await diff(rest);
  else usage();
} catch (err) {
  if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) usage((err as Error).message);
  throw err;
}
