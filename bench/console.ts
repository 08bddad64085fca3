// The staff console in a real browser on the bench book: for each page, the time from navigation to
// the page's main content in place (its own element there, nothing in <main> aria-busy), p50 over
// --loads loads, in three ways:
//   cold: a full load of the page's address with the browser's HTTP cache emptied first (the HTML,
//         the script, /auth/me and the page's own calls, one after the other as the browser does);
//   warm: the same full load with the browser's cache kept (the script from the cache);
//   in-app: a click away inside the running console (from Planes, already loaded: no script, no
//         /auth/me, only the page's own calls), what a person moving through the menu waits for.
// The clients search and the worklist's filters are a navigation and then what a person does: type a
// common surname, set two filters; their time runs from the navigation to the filtered list in place.
// Beside each page, its slowest API call (p50 of its time in the browser, request sent to last byte).
// Chromium (/usr/bin/chromium, driven by playwright-core) with a fresh profile, signed in as a staff
// admin of the bench book (console-bench@bench.example, made on the book the first time, its password
// set again each run through a one-time link, as `lending users create` and the set-password page do).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- console [--loads 5] [--shots DIR] [--only home,credit] [--timeout 60] [--waterfall] [--json]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { chromium, type Page } from 'playwright-core';
import { systemClock } from '../src/domain/dates.ts';
import { openPostgres } from '../src/db/connection.ts';
import { actorContext } from '../src/services/context.ts';
import { setPasswordWithLink } from '../src/services/sessions.ts';
import { createUserFor, newPasswordLink } from '../src/services/users.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/helpers/browser.ts';
import { benchUrl, requireBook } from './lib/db.ts';
import { startServer } from './lib/server.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: {
    loads: { type: 'string', default: '5' },
    shots: { type: 'string' },
    only: { type: 'string' },
    timeout: { type: 'string', default: '60' },
    waterfall: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const LOADS = Number(o.loads);
if (!Number.isInteger(LOADS) || LOADS < 1 || LOADS > 50) {
  console.error('--loads must be a whole number from 1 to 50');
  process.exit(2);
}
const TIMEOUT = Number(o.timeout) * 1000;
const EMAIL = 'console-bench@bench.example';
const PASSWORD = 'console bench password 2026';
const url = benchUrl();
const book = await requireBook(url);
const businessId = book.business_id;

// ---- the staff user and the records the pages show
const db = await openPostgres(url, 2);
const pool = new pg.Pool({ connectionString: url, max: 1 });
const ctx = actorContext({ businessId, timezone: book.timezone }, 'cli', systemClock);
const existing = (
  await pool.query<{ id: string }>(`SELECT id FROM users WHERE business_id = $1 AND email = $2`, [businessId, EMAIL])
).rows[0];
const { link } = existing
  ? await newPasswordLink(db, ctx, existing.id)
  : await createUserFor(db, businessId, { email: EMAIL, role: 'admin', name: 'Console bench' }, (b) =>
      actorContext(b, 'cli', systemClock),
    );
await setPasswordWithLink(db, link.token, PASSWORD, new Date());
await db.close();
// the credit with the longest history (most ledger entries), and a client with several credits
const credit = (
  await pool.query<{ id: string; n: string }>(
    `SELECT credit_id AS id, count(*) AS n FROM ledger WHERE business_id = $1 GROUP BY credit_id ORDER BY 2 DESC LIMIT 1`,
    [businessId],
  )
).rows[0]!;
const client = (
  await pool.query<{ id: string; n: string }>(
    `SELECT client_id AS id, count(*) AS n FROM credits WHERE business_id = $1 GROUP BY client_id ORDER BY 2 DESC, 1 LIMIT 1`,
    [businessId],
  )
).rows[0]!;
const SURNAME = 'gonzalez';
await pool.end();

// ---- the pages: where, what shows the content is there, and what a person then does
interface PageSpec {
  name: string;
  label: string;
  path: string;
  /** CSS of the element that is the page's main content */
  ready: string;
  /** what a person does once the page is there, as fields and the values they type or choose (the time runs on until the content is ready again) */
  act?: Record<string, string>;
  /** the text every row of the list must show once the action took effect */
  rowsContain?: string;
}
const PAGES: PageSpec[] = [
  { name: 'home', label: 'Inicio (summary)', path: '/', ready: 'main .cards' },
  {
    name: 'clients',
    label: `Clientes, search "${SURNAME}"`,
    path: '/clients',
    ready: 'main table tbody tr',
    act: { 'input[name="q"]': SURNAME },
    rowsContain: 'gonz',
  },
  {
    name: 'client',
    label: `client page (${client.n} credits)`,
    path: `/clients/${client.id}`,
    ready: 'main section[aria-labelledby="credits"] table tbody tr',
  },
  {
    name: 'credit',
    label: `credit page (${credit.n} ledger entries)`,
    path: `/credits/${credit.id}`,
    ready: 'main table tbody tr',
  },
  {
    name: 'collections',
    label: 'Cobranzas, filtered (30+ days late, no promise)',
    path: '/collections',
    ready: 'main table tbody tr',
    act: { 'input[name="min_days_late"]': '30', 'select[name="promise"]': 'none' },
  },
  { name: 'audit', label: 'Auditoría', path: '/audit', ready: 'main table tbody tr' },
  {
    name: 'imports',
    label: 'Importar pagos',
    path: '/imports',
    ready: 'main section[aria-labelledby="recent-imports"] :is(table, .empty)',
  },
  { name: 'plans', label: 'Planes', path: '/plans', ready: 'main table tbody tr' },
  { name: 'users', label: 'Usuarios', path: '/users', ready: 'main table tbody tr' },
  { name: 'reports', label: 'Reporte de cobranzas', path: '/reports/collections', ready: 'main .cards' },
];
const only = o.only?.split(',');
const pages = only ? PAGES.filter((p) => only.includes(p.name)) : PAGES;

/** In the page: resolves with performance.now() (ms since the navigation started) once the content is in place. */
async function readyAt(page: Page, spec: PageSpec, acted: boolean): Promise<number> {
  const h = await page.waitForFunction(
    ({ sel, contain }) => {
      // runs in the page (this file is compiled without the DOM's types)
      const document = (globalThis as any).document;
      const main = document.querySelector('main');
      if (!main || main.querySelector('[aria-busy="true"]')) return false;
      const el = document.querySelector(sel);
      if (!el?.offsetParent) return false;
      if (contain) {
        const rows: any[] = [...main.querySelectorAll('table tbody tr')];
        if (rows.length === 0) return false;
        // inline: a named function here would be renamed by the TypeScript loader with a helper the page lacks
        if (
          !rows.every((r) =>
            String(r.textContent ?? '')
              .normalize('NFD')
              .replace(/\p{M}/gu, '')
              .toLowerCase()
              .includes(contain),
          )
        )
          return false;
      }
      return performance.now();
    },
    { sel: spec.ready, contain: acted ? (spec.rowsContain ?? null) : null },
    { polling: 'raf', timeout: TIMEOUT },
  );
  return (await h.jsonValue()) as number;
}

/** `fn`'s time, or Infinity when the content did not come within TIMEOUT (the screen then kept as NAME-timeout.png). */
async function timed(spec: PageSpec, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if ((err as Error).name !== 'TimeoutError') throw err;
    await page.screenshot({ path: join(shots, `${spec.name}-timeout.png`) });
    return Number.POSITIVE_INFINITY;
  }
}

interface Call {
  path: string;
  ms: number;
  /** when it was sent (ms since the epoch) */
  at: number;
}
/** The page's API calls while `fn` runs: path (ids as {id}) and time from sending to the last byte. */
async function withCalls<T>(page: Page, fn: () => Promise<T>): Promise<{ value: T; calls: Call[] }> {
  const calls: Call[] = [];
  const on = (r: import('playwright-core').Request) => {
    const u = new URL(r.url());
    const api = u.pathname.startsWith('/api/') || u.pathname.startsWith('/auth/');
    if (!api && !o.waterfall) return;
    const t = r.timing();
    calls.push({
      path: (api ? '' : '(page) ') + u.pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}') + (u.search ? '?…' : ''),
      ms: t.responseEnd - Math.max(0, t.requestStart),
      at: t.startTime,
    });
  };
  page.on('requestfinished', on);
  try {
    const value = await fn();
    // the calls that finished with the content are reported a moment later
    await page.waitForTimeout(50);
    return { value, calls };
  } finally {
    page.off('requestfinished', on);
  }
}

const server = await startServer(url);
const base = `${server.baseUrl}/app`;
const profile = mkdtempSync(join(tmpdir(), 'lending-bench-chromium-'));
const shots = o.shots ?? mkdtempSync(join(tmpdir(), 'lending-bench-console-'));
mkdirSync(shots, { recursive: true });
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  args: [...CHROMIUM_ARGS, '--lang=es-AR'],
  locale: 'es-AR',
  viewport: { width: 1366, height: 768 },
  timeout: TIMEOUT,
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(TIMEOUT);
const errors: string[] = [];
page.on('pageerror', (e) => errors.push(e.message));
const cdp = await context.newCDPSession(page);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

/**
 * The person's action, done in the page as the browser would on typing or choosing (the value set,
 * then the input or change event React listens to), all in one step: no CDP round trips of
 * Playwright's own between the values. Resolves with performance.now() when it was done.
 */
function act(spec: PageSpec): Promise<number> {
  return page.evaluate((fields) => {
    const w = globalThis as any;
    const t = w.performance.now();
    for (const [sel, value] of Object.entries(fields)) {
      const el = w.document.querySelector(sel);
      const proto = el.tagName === 'SELECT' ? w.HTMLSelectElement.prototype : w.HTMLInputElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
      el.dispatchEvent(new w.Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
    }
    return t;
  }, spec.act!);
}

/** ms from the person's action to the content again, on the full loads of the page being measured */
let actions: number[] = [];

/** A full load of the page's address; ms from the navigation to the content. */
async function fullLoad(spec: PageSpec): Promise<number> {
  await page.goto(`${base}${spec.path}`, { waitUntil: 'commit' });
  if (!spec.act) return readyAt(page, spec, false);
  await readyAt(page, spec, false);
  const t = await act(spec);
  const done = await readyAt(page, spec, true);
  actions.push(done - t);
  return done;
}

/** From Planes, loaded, a click away (the console's own router, as its menu does); ms from the click to the content. */
async function inApp(spec: PageSpec): Promise<number> {
  await page.goto(`${base}/plans`, { waitUntil: 'commit' });
  await readyAt(page, PAGES.find((p) => p.name === 'plans')!, false);
  const t0 = await page.evaluate((path) => {
    const w = globalThis as any;
    const t = performance.now();
    w.history.pushState(null, '', `/app${path}`);
    w.dispatchEvent(new w.PopStateEvent('popstate'));
    return t;
  }, spec.path);
  if (spec.act) {
    await readyAt(page, spec, false);
    await act(spec);
  }
  return (await readyAt(page, spec, !!spec.act)) - t0;
}

/** --waterfall: a load's requests on stderr, each when it was sent (from the page's own) and how long it took. */
function waterfall(what: string, load: { value: number; calls: Call[] }) {
  const t0 = Math.min(...load.calls.map((c) => c.at));
  console.error(`${what}: content at ${load.value.toFixed(0)} ms`);
  for (const c of [...load.calls].sort((a, b) => a.at - b.at))
    console.error(`  ${(c.at - t0).toFixed(0).padStart(6)} ms  +${c.ms.toFixed(0).padStart(5)} ms  ${c.path}`);
}

interface Line {
  name: string;
  label: string;
  first: number;
  cold: number;
  warm: number;
  warm_max: number;
  in_app: number;
  /** pages with an action: ms from it to the content, p50 of the full loads */
  action: number | null;
  slowest_call: string;
  slowest_call_ms: number;
  calls: number;
}
const lines: Line[] = [];
const loadAtStart = loadavg();
try {
  // signing in, as a person does
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Ingresar' }).waitFor();
  await page.getByLabel('Correo electrónico').fill(EMAIL);
  await page.getByLabel('Contraseña').fill(PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.locator('nav#nav').waitFor();
  for (const spec of pages) {
    const cold: number[] = [];
    const warm: number[] = [];
    const app: number[] = [];
    const slow: Call[] = [];
    let calls = 0;
    let first = 0;
    actions = [];
    for (let i = 0; i < LOADS; i++) {
      await cdp.send('Network.clearBrowserCache');
      const c = await withCalls(page, () => timed(spec, () => fullLoad(spec)));
      if (o.waterfall && i === 0) waterfall(`${spec.name}, a cold load`, c);
      if (i === 0) first = c.value;
      cold.push(c.value);
      const w = await withCalls(page, () => timed(spec, () => fullLoad(spec)));
      warm.push(w.value);
      calls = Math.max(calls, w.calls.filter((c) => !c.path.startsWith('(page)')).length);
      const apiCalls = w.calls.filter((c) => !c.path.startsWith('(page)'));
      const top = apiCalls.reduce((a, b) => (b.ms > a.ms ? b : a), { path: '–', ms: 0, at: 0 });
      if (o.waterfall && i === 0) waterfall(`${spec.name}, a warm load`, w);
      slow.push(top);
      if (i === 0) await page.screenshot({ path: join(shots, `${spec.name}.png`) });
      app.push(await timed(spec, () => inApp(spec)));
    }
    const slowMs = pct(
      slow.map((s) => s.ms),
      50,
    );
    const slowPath = slow.find((s) => s.ms === slowMs)?.path ?? '–';
    const line: Line = {
      name: spec.name,
      label: spec.label,
      first,
      cold: pct(cold, 50),
      warm: pct(warm, 50),
      warm_max: Math.max(...warm),
      in_app: pct(app, 50),
      action: actions.length ? pct(actions, 50) : null,
      slowest_call: slowPath,
      slowest_call_ms: slowMs,
      calls,
    };
    lines.push(line);
    console.error(
      `${spec.name}: cold ${line.cold.toFixed(0)} ms, warm ${line.warm.toFixed(0)} ms, in-app ${line.in_app.toFixed(0)} ms`,
    );
  }
} finally {
  await context.close();
  await server.stop();
  rmSync(profile, { recursive: true, force: true });
}

const f = (v: number) => (Number.isFinite(v) ? (v / 1000).toFixed(2) : `> ${TIMEOUT / 1000}`);
const la = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
console.log(
  `\nthe console on the bench book (scale ${book.scale}), ${LOADS} loads a page, seconds from navigation to content`,
);
console.log(`load average (1, 5, 15 min): ${la(loadAtStart)} at the start, ${la(loadavg())} at the end`);
console.log(`screenshots: ${shots}\n`);
console.log(
  '| page | first load | cold p50 | warm p50 | warm max | in-app p50 | of which after typing or choosing (p50) | ≤ 1 s | slowest API call (warm, p50) | calls |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|:-:|---|---:|');
for (const l of lines)
  console.log(
    `| ${l.label} | ${f(l.first)} | ${f(l.cold)} | ${f(l.warm)} | ${f(l.warm_max)} | ${f(l.in_app)} | ${
      l.action === null ? '–' : f(l.action)
    } | ${
      Math.max(l.cold, l.warm, l.in_app) <= 1000 ? 'yes' : '**no**'
    } | \`${l.slowest_call}\` ${f(l.slowest_call_ms)} | ${l.calls} |`,
  );
if (errors.length) console.log(`\nscript errors on the pages: ${errors.join('; ')}`);
if (o.json) console.log(JSON.stringify({ scale: book.scale, loads: LOADS, lines }));
