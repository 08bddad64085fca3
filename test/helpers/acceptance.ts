// Shared steps of the acceptance tests, written from the documentation only (docs/api.md,
// docs/domain.md): everything goes through the HTTP app of build(t) (or the
// command line the spec names), external services are local servers started here.
import assert from 'node:assert/strict';
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { JOBS } from '../../src/jobs/index.ts';
import { deliverDue, dispatch } from '../../src/services/webhooks.ts';
import { json, type Harness } from './app.ts';
import { cliJson } from './cli.ts';

export { json };

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a truthy value (returned), failing with `what` after `ms`. */
export async function eventually<T>(what: string, probe: () => Promise<T> | T, ms = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      assert.fail(`${what}: not within ${ms / 1000} s${last ? ` (last error: ${String(last).slice(0, 500)})` : ''}`);
    await sleep(100);
  }
}

/** Asserts the status, showing the body when it differs. */
export function status(res: LightMyRequestResponse, expected: number | number[], what = ''): void {
  const ok = Array.isArray(expected) ? expected.includes(res.statusCode) : res.statusCode === expected;
  assert.ok(ok, `${what ? `${what}: ` : ''}expected ${expected}, got ${res.statusCode}: ${res.body.slice(0, 500)}`);
}

/** Asserts an Error body with the given status and machine code. */
export function error(res: LightMyRequestResponse, expected: number, code: string, what = ''): any {
  status(res, expected, what);
  const body = json(res);
  assert.equal(typeof body.error, 'string', `${what}: error body ${res.body}`);
  assert.equal(body.code, code, `${what}: ${res.body}`);
  return body;
}

/** The records of a JSON array or of a page's `items`. */
export function rows(doc: any, what = 'list'): any[] {
  const items = Array.isArray(doc) ? doc : doc?.items;
  assert.ok(Array.isArray(items), `${what}: an array or a page of items: ${JSON.stringify(doc)?.slice(0, 300)}`);
  return items;
}

/** The records of a list answer, after asserting it is a 200. */
export function itemsOf(res: LightMyRequestResponse, what = 'list'): any[] {
  status(res, 200, what);
  return rows(json(res), what);
}

// ---------------------------------------------------------------------------------------------
// Plans, clients, credits through the API

export async function plan(h: Harness, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await h.post('/api/credit-configs', { name: 'plan', ...fields });
  status(res, 201, 'plan');
  return json(res);
}

export async function client(h: Harness, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await h.post('/api/clients', {
    dni: String(randomInt(10_000_000, 99_999_999)),
    first_name: 'Test',
    ...fields,
  });
  status(res, 201, 'client');
  return json(res);
}

export async function credit(h: Harness, clientId: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.post(`/api/clients/${clientId}/credits`, body);
  status(res, 201, 'credit');
  return json(res);
}

export async function pay(h: Harness, creditId: string, body: Record<string, unknown>): Promise<any> {
  const res = await h.post(`/api/credits/${creditId}/payments`, body);
  status(res, 201, 'payment');
  return json(res);
}

/** A valid CUIT (11 digits, mod-11 check digit), random. */
export function validCuit(prefix = '20'): string {
  const weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  for (;;) {
    const body = prefix + String(randomInt(10_000_000, 99_999_999));
    const sum = [...body].reduce((s, d, i) => s + Number(d) * weights[i]!, 0);
    const r = 11 - (sum % 11);
    const check = r === 11 ? 0 : r;
    if (check === 10) continue;
    return body + String(check);
  }
}

// ---------------------------------------------------------------------------------------------
// The command line, in process, on the test database and the app's clock

/** `lending … --json` in process, stdout parsed. */
export const cli = cliJson;

/** `lending accrue` (the daily run) as of the app's today. */
export async function dailyRun(h: Harness, ...args: string[]): Promise<any> {
  // the test's own business: a run over every business would, at this test's clock, announce
  // the installments of the other tests sharing the database (and theirs this test's)
  const r = await cli(
    h,
    'accrue',
    ...(args.includes('--business') ? args : ['--business', h.tenant.businessId, ...args]),
  );
  assert.equal(r.code, 0, `lending accrue: ${r.err}`);
  return r.out;
}

/**
 * The set-password link a command or a response printed: the value of a `set_password_url` field,
 * else the first string that looks like a set-password link or URL, anywhere in the document.
 */
export function findSetPasswordUrl(doc: unknown): string {
  const strings: [string, string][] = [];
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') strings.push([key, v]);
    else if (Array.isArray(v)) for (const x of v) walk(x, key);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(doc, '');
  const found =
    strings.find(([k]) => k === 'set_password_url') ??
    strings.find(([, v]) => /set[-_]?password/i.test(v)) ??
    strings.find(([k, v]) => /url|link/i.test(k) && /token|\/[A-Za-z0-9_-]{16,}/.test(v));
  assert.ok(found, `no set-password link in ${JSON.stringify(doc).slice(0, 500)}`);
  return found[1];
}

/**
 * The token of a set-password link.
 * ASSUMPTION: docs/api.md does not fix the link's form; the token is the `token` query parameter, else
 * the `token` of the fragment (or the whole fragment), else the link's last path segment.
 */
export function tokenOf(link: string): string {
  const u = new URL(link, 'http://localhost');
  const q = u.searchParams.get('token');
  if (q) return q;
  if (u.hash.length > 1) {
    const frag = u.hash.slice(1);
    return new URLSearchParams(frag).get('token') ?? frag;
  }
  const last = u.pathname.split('/').filter(Boolean).pop();
  assert.ok(last, `no token in ${link}`);
  return decodeURIComponent(last);
}

export const PASSWORD = 'correct horse battery staple';

/** POST /auth/set-password with the link's token. */
export async function setPassword(h: Harness, link: string, password = PASSWORD): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'POST', url: '/auth/set-password', payload: { token: tokenOf(link), password } });
}

/** `lending users create`, then the password set through the link it printed: the user's email. */
export async function cliUser(h: Harness, role: 'admin' | 'employee' | 'viewer', businessId = h.tenant.businessId) {
  const email = `${role}-${randomInt(1e9)}@example.test`;
  const r = await cli(h, 'users', 'create', '--business', businessId, '--email', email, '--role', role);
  assert.equal(r.code, 0, `lending users create: ${r.err}`);
  const link = findSetPasswordUrl(r.out);
  status(await setPassword(h, link), [200, 201, 204], 'set-password with the link of lending users create');
  return { email, password: PASSWORD };
}

/** `lending operators create`, then the password set through the link it printed. */
export async function cliOperator(h: Harness) {
  const email = `operator-${randomInt(1e9)}@example.test`;
  const r = await cli(h, 'operators', 'create', '--email', email);
  assert.equal(r.code, 0, `lending operators create: ${r.err}`);
  status(await setPassword(h, findSetPasswordUrl(r.out)), [200, 201, 204], 'operator set-password');
  return { email, password: PASSWORD };
}

// ---------------------------------------------------------------------------------------------
// A browser: a cookie jar, the CSRF header on writes, no API key

export interface Cookie {
  name: string;
  value: string;
  attributes: string[];
}

export function setCookies(res: LightMyRequestResponse): Cookie[] {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  return lines.map((line) => {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    return { name: pair!.slice(0, eq), value: pair!.slice(eq + 1), attributes: attrs };
  });
}

export const hasAttr = (c: Cookie, attr: string) => c.attributes.some((a) => a.toLowerCase() === attr.toLowerCase());
export const attr = (c: Cookie, name: string) =>
  c.attributes
    .find((a) => a.toLowerCase().startsWith(`${name.toLowerCase()}=`))
    ?.split('=')[1]
    ?.trim();

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class Browser {
  readonly jar = new Map<string, string>();
  private readonly h: Harness;
  readonly remoteAddress: string;
  constructor(h: Harness, remoteAddress = '127.0.0.1') {
    this.h = h;
    this.remoteAddress = remoteAddress;
  }

  absorb(res: LightMyRequestResponse) {
    for (const c of setCookies(res)) {
      const maxAge = attr(c, 'Max-Age');
      const expires = attr(c, 'Expires');
      const gone = c.value === '' || maxAge === '0' || (expires !== undefined && Date.parse(expires) < Date.now());
      if (gone) this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
  }

  get csrf(): string | undefined {
    return this.jar.get('csrf');
  }

  /** Sends the jar's cookies and, on writes, X-CSRF-Token = the csrf cookie (unless csrf: false or a value). */
  async req(
    method: string,
    url: string,
    body?: unknown,
    opts: { csrf?: boolean | string; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (this.jar.size) headers.cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = typeof opts.csrf === 'string' ? opts.csrf : opts.csrf === false ? undefined : this.csrf;
    if (WRITES.has(method) && csrf !== undefined) headers['x-csrf-token'] = csrf;
    const o: InjectOptions = {
      method: method as InjectOptions['method'],
      url,
      headers,
      remoteAddress: this.remoteAddress,
    };
    if (body !== undefined) o.payload = body as object;
    const res = await this.h.app.inject(o);
    this.absorb(res);
    return res;
  }

  get = (url: string) => this.req('GET', url);
  /** POST with a JSON body, or with none when body is undefined (routes that take no body) */
  post = (url: string, body?: unknown) => this.req('POST', url, body);
  put = (url: string, body?: unknown) => this.req('PUT', url, body);
  del = (url: string) => this.req('DELETE', url);

  async login(email: string, password: string): Promise<LightMyRequestResponse> {
    return this.req('POST', '/auth/login', { email, password });
  }
}

/** A browser signed in as that user (asserts the login succeeded). */
export async function signIn(h: Harness, who: { email: string; password: string }, address?: string): Promise<Browser> {
  const b = new Browser(h, address);
  const res = await b.login(who.email, who.password);
  status(res, 200, `login of ${who.email}`);
  return b;
}

/** The user of `GET /auth/me`. */
export async function me(b: Browser): Promise<any> {
  const res = await b.get('/auth/me');
  status(res, 200, 'GET /auth/me');
  return json(res);
}

// ---------------------------------------------------------------------------------------------
// The event feed

export const seq = (e: any) => Number(e.sequence);

/** Every event after `after`, following next_after until a page comes back empty. */
export async function feed(h: Harness, opts: { after?: number; types?: string; key?: string } = {}): Promise<any[]> {
  let after = opts.after ?? 0;
  const out: any[] = [];
  for (;;) {
    const q = new URLSearchParams({ after: String(after), limit: '100' });
    if (opts.types) q.set('types', opts.types);
    const res = await h.get(`/api/events?${q}`, opts.key);
    status(res, 200, 'GET /api/events');
    const page = json(res);
    assert.ok(Array.isArray(page.items), `items: ${res.body.slice(0, 300)}`);
    if (page.items.length === 0) return out;
    out.push(...page.items);
    assert.ok(Number(page.next_after) > after, `next_after moves on: ${page.next_after} after ${after}`);
    after = Number(page.next_after);
  }
}

/** The sequence of the newest event of the tenant so far (0 when none). */
export async function lastSequence(h: Harness): Promise<number> {
  const all = await feed(h);
  return all.length ? seq(all[all.length - 1]) : 0;
}

/**
 * The id of the resource an event carries.
 * ASSUMPTION: `object` is "the resource as its own read returns it": for a client or a credit, whose
 * reads answer ClientDetail / CreditDetail, either the record itself or the detail wrapping it.
 */
export function objectOf(e: any, kind?: 'client' | 'credit'): any {
  const o = e?.data?.object;
  if (kind && o && typeof o === 'object' && o[kind] && typeof o[kind] === 'object') return o[kind];
  return o;
}

// ---------------------------------------------------------------------------------------------
// Local HTTP servers: a webhook receiver, a fake registry

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  /** what the receiver answered */
  status: number;
}

export interface LocalServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that records each request (raw body included) and answers with what
 * `respond` says: a status (empty body), or `{status, body, headers}`, or never (a promise that
 * never settles: the socket is cut when the server closes).
 */
export async function localServer(
  t: TestContext,
  respond: (
    r: Omit<Received, 'status'>,
  ) =>
    | number
    | { status: number; body?: unknown; headers?: Record<string, string> }
    | Promise<number | { status: number; body?: unknown; headers?: Record<string, string> }>,
): Promise<LocalServer> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, body };
      let answer: Awaited<ReturnType<typeof respond>>;
      try {
        answer = await respond(r);
      } catch {
        answer = 500;
      }
      const a = typeof answer === 'number' ? { status: answer } : answer;
      received.push({ ...r, status: a.status });
      if (res.destroyed) return;
      const text = a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status, {
        ...(a.body !== undefined && typeof a.body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...(a.headers ?? {}),
      });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  t.after(close);
  return { url: `http://127.0.0.1:${port}`, received, close };
}

/**
 * Runs what the server's webhook delivery job does (src/jobs/webhooks.ts: dispatch, then deliver
 * what is due), every 100 ms on the harness's database and clock, for the test's business only:
 * build(t) starts no job (WEBHOOKS=off), because test files share the PostgreSQL database and a
 * job would deliver other tests' events. The job itself is checked by test/webhooks and
 * test/cli/wiring. Stopped after the test (or by the function returned).
 */
export function startDelivery(t: TestContext, h: Harness): () => void {
  assert.ok(
    JOBS.some((j) => /webhook/i.test(j.name)),
    `no webhook delivery job in src/jobs/index.ts (jobs: ${JOBS.map((j) => j.name)})`,
  );
  const deps = { db: h.db, config: h.config, clock: h.clock };
  const scope = { businessId: h.tenant.businessId };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await dispatch(deps, scope).catch(() => {});
      await deliverDue(deps, { ...scope, stop: () => stopped }).catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const stop = () => {
    stopped = true;
    return loop;
  };
  t.after(() => stop());
  return () => void stop();
}

/** Verifies `Lending-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function verifySignature(secret: string, header: string | string[] | undefined, raw: string): number {
  assert.equal(typeof header, 'string', 'one Lending-Signature header');
  const parts = new Map<string, string[]>();
  for (const kv of String(header).split(',')) {
    const i = kv.indexOf('=');
    const k = kv.slice(0, i).trim();
    parts.set(k, [...(parts.get(k) ?? []), kv.slice(i + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  assert.ok(t && /^\d+$/.test(t), `t= is unix seconds: ${header}`);
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  const v1 = parts.get('v1') ?? [];
  assert.ok(v1.length > 0, `a v1= signature: ${header}`);
  assert.ok(
    v1.some((sig) => /^[0-9a-f]{64}$/.test(sig) && timingSafeEqual(Buffer.from(sig, 'hex'), expected)),
    `v1 is HMAC-SHA256(secret, "<t>.<raw body>") in hex: ${header}`,
  );
  return Number(t);
}

/** Creates a webhook endpoint; returns `{endpoint, secret}`. */
export async function endpoint(
  h: Harness,
  url: string,
  events: string[] = ['*'],
): Promise<{ endpoint: any; secret: string }> {
  const res = await h.post('/api/webhook-endpoints', { url, events });
  status(res, 201, `POST /api/webhook-endpoints ${url}`);
  const body = json(res);
  assert.match(body.secret, /^whsec_/);
  assert.match(body.endpoint.id, UUID);
  return body;
}

/** Every delivery of an endpoint (all pages). */
export async function deliveries(h: Harness, endpointId: string): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await h.get(`/api/webhook-endpoints/${endpointId}/deliveries?limit=100&offset=${offset}`);
    status(res, 200, 'deliveries');
    const page = json(res);
    out.push(...page.items);
    if (page.items.length < 100) return out;
  }
}

/** Every audit log entry of the tenant (offset pages, newest first). */
export async function auditLog(h: Harness, query = ''): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await h.get(`/api/logs?limit=100&offset=${offset}${query ? `&${query}` : ''}`);
    status(res, 200, 'GET /api/logs');
    const page = json(res);
    out.push(...page.items);
    if (page.items.length < 100) return out;
  }
}
