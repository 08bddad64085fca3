// The shared security suite's machinery: it reads the routes from the app itself (the OpenAPI
// document, cross-checked against the router), fills path parameters with real resources of a
// tenant, and builds a valid request body from each route's own schema. A route added later is
// covered without editing anything here, as long as it declares its schemas.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { App } from '../../src/http/types.ts';
import { createApiKey } from '../../src/db/repositories/apiKeys.ts';
import type { Harness } from './app.ts';

type Schema = Record<string, any>;

export interface RouteParam {
  name: string;
  schema: Schema;
}

export interface ApiRoute {
  method: string;
  /** OpenAPI form: /api/clients/{id} */
  path: string;
  params: RouteParam[];
  query: { name: string; required: boolean; schema: Schema }[];
  /** the JSON body schema, or 'multipart' for uploads; undefined when the route takes no body */
  body?: Schema | 'multipart';
  bodyRequired: boolean;
  /** the least role a session needs (the operation's x-required-role) */
  role: 'viewer' | 'employee' | 'admin';
  /** only sessions may call it (its security names the session alone): an API key is 403 */
  sessionsOnly: boolean;
  /** refused to an operator acting as a user (x-not-while-impersonating): it would outlive the impersonation */
  notWhileImpersonating: boolean;
}

const ROLE_ORDER = ['viewer', 'employee', 'admin'] as const;
/** Whether a user of `role` may call the route. */
export const roleAllows = (role: ApiRoute['role'], route: ApiRoute) =>
  ROLE_ORDER.indexOf(role) >= ROLE_ORDER.indexOf(route.role);

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export const isWrite = (method: string) => WRITE.has(method);

/** Routes as the router knows them: "METHOD /path/{}" with parameter names blanked. */
export function routerRoutes(app: App): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    if (m[3]) for (const method of m[3].split(', ')) out.add(`${method} ${normalizePath(stack.join(''))}`);
  }
  return out;
}

export function normalizePath(p: string): string {
  return p.replace(/:[A-Za-z0-9_]+(?:\|:[A-Za-z0-9_]+)*/g, '{}').replace(/\{[^}]*\}/g, '{}');
}

/** Every /api route of the app, from its OpenAPI document. */
export function apiRoutes(app: App): ApiRoute[] {
  const doc = app.swagger() as Schema;
  const routes: ApiRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Schema>)) {
    if (!path.startsWith('/api/')) continue;
    for (const [m, op] of Object.entries(item)) {
      const method = m.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
      const parameters = (op.parameters ?? []) as Schema[];
      const content = op.requestBody?.content as Schema | undefined;
      let body: ApiRoute['body'];
      if (content?.['application/json']) body = resolveRefs(doc, content['application/json'].schema ?? {});
      else if (content?.['multipart/form-data']) body = 'multipart';
      else if (content) body = resolveRefs(doc, (Object.values(content)[0] as Schema).schema ?? {});
      routes.push({
        method,
        path,
        params: parameters
          .filter((p) => p.in === 'path')
          .map((p) => ({ name: p.name, schema: resolveRefs(doc, p.schema ?? {}) })),
        query: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: Boolean(p.required), schema: resolveRefs(doc, p.schema ?? {}) })),
        body,
        bodyRequired: Boolean(op.requestBody?.required),
        role: op['x-required-role'] ?? (method === 'GET' ? 'viewer' : 'admin'),
        sessionsOnly:
          Array.isArray(op.security) &&
          op.security.length > 0 &&
          op.security.every((s: Schema) => Object.keys(s).join() === 'session'),
        notWhileImpersonating: op['x-not-while-impersonating'] === true,
      });
    }
  }
  return routes.sort((a, b) => (a.path + a.method).localeCompare(b.path + b.method));
}

function resolveRefs(doc: Schema, s: Schema, depth = 0): Schema {
  if (depth > 20 || s === null || typeof s !== 'object') return s;
  if (Array.isArray(s)) return s.map((x) => resolveRefs(doc, x, depth + 1)) as never;
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace(/^#\/components\/schemas\//, '').replace(/#$/, '');
    const target = doc.components?.schemas?.[name];
    return target ? resolveRefs(doc, target, depth + 1) : {};
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) out[k] = typeof v === 'object' ? resolveRefs(doc, v, depth + 1) : v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Resources of one tenant to put in paths

export interface Fixtures {
  businessId: string;
  client: { id: string };
  plan: { id: string };
  branch: { id: string };
  credit?: { id: string };
  installment?: { id: string };
  ledgerEntry?: { id: string };
  file?: { id: string; file_name: string };
  session?: { id: string };
  holiday?: { date: string };
  user?: { id: string };
  apiKey?: { id: string };
  lead?: { id: string };
  /** every id of this tenant a response to another tenant must never show */
  ids: string[];
}

// A 1x1 PNG: uploads are checked by content, so it must be a real image.
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export function multipart(field: string, filename: string, contentType: string, data: Buffer) {
  const boundary = `----lendingtest${randomUUID().replace(/-/g, '')}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const j = (res: LightMyRequestResponse) => JSON.parse(res.body) as any;

/**
 * Creates a client, a plan and a branch through the API with the given key, and, where the
 * routes exist, a credit (with its installments and ledger), a file and an upload link. Routes
 * another engineer has not added yet are simply skipped.
 */
export async function createFixtures(h: Harness, businessId: string, key: string, tag: string): Promise<Fixtures> {
  const post = async (url: string, body: unknown) => {
    const res = await h.req({ method: 'POST', url, key, payload: body as object });
    return res.statusCode === 201 ? j(res) : undefined;
  };
  const client = await post('/api/clients', {
    dni: `sec-${tag}-${randomUUID().slice(0, 8)}`,
    first_name: 'Sec',
    last_name: tag,
  });
  const plan = await post('/api/credit-configs', { name: `plan ${tag}`, installments_count: 3 });
  const branch = await post('/api/branches', { name: `branch ${tag}` });
  assert.ok(client && plan && branch, 'the fixtures need client, plan and branch creation to work');
  const f: Fixtures = { businessId, client, plan, branch, ids: [businessId, client.id, plan.id, branch.id] };

  const credit = await post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 1000,
    branch_id: branch.id,
  });
  if (credit) {
    const c = credit.credit ?? credit;
    f.credit = { id: c.id };
    f.ids.push(c.id);
    const detail = await h.req({ method: 'GET', url: `/api/clients/${client.id}`, key });
    const d = j(detail);
    if (d.installments?.[0]) f.installment = d.installments[0];
    if (d.ledgerEntries?.[0]) f.ledgerEntry = d.ledgerEntries[0];
    for (const x of [...(d.installments ?? []), ...(d.ledgerEntries ?? [])]) f.ids.push(x.id);
  }
  const mp = multipart('file', `doc-${tag}.png`, 'image/png', PNG);
  const up = await h.req({
    method: 'POST',
    url: `/api/clients/${client.id}/files`,
    key,
    payload: mp.payload,
    headers: mp.headers,
  });
  if (up.statusCode === 201) {
    f.file = j(up);
    f.ids.push(f.file!.id);
  }
  const session = await post(`/api/clients/${client.id}/upload-sessions`, {});
  if (session) {
    f.session = session.session ?? session;
    f.ids.push(f.session!.id);
  }
  // a holiday on a date of the tenant's own (by its tag), so another tenant's request names a
  // date it has no holiday on
  const holiday = await post('/api/holidays', {
    date: `2031-07-${String(10 + (tag.charCodeAt(0) % 18)).padStart(2, '0')}`,
    name: `holiday ${tag}`,
  });
  if (holiday) f.holiday = holiday;
  // a user (invited with the key) and an API key of the tenant's own
  const invited = await post('/api/users', {
    email: `fixture-${tag}-${randomUUID().slice(0, 8)}@test.example`,
    role: 'viewer',
  });
  if (invited) {
    f.user = { id: invited.id };
    f.ids.push(invited.id);
  }
  const apiKey = await createApiKey(h.db.kysely, { businessId, scope: 'read', name: `fixture ${tag}` });
  f.apiKey = { id: apiKey.record.id };
  f.ids.push(apiKey.record.id);
  // a lead through the business's public form (no key), where the form exists
  const business = await h.db.kysely
    .selectFrom('businesses')
    .selectAll()
    .where('id', '=', businessId)
    .executeTakeFirst();
  const slug = (business as { slug?: string } | undefined)?.slug;
  if (slug) {
    const res = await h.app.inject({
      method: 'POST',
      url: `/public/${slug}/leads`,
      payload: {
        first_name: 'Sec',
        last_name: tag,
        dni: `lead-${tag}-${randomUUID().slice(0, 8)}`,
        email: 'sec@example.com',
      },
    });
    if (res.statusCode === 201) {
      f.lead = j(res);
      f.ids.push(f.lead!.id);
    }
  }
  return f;
}

const BY_NAME: Record<string, (f: Fixtures) => string | undefined> = {
  clientId: (f) => f.client.id,
  fileId: (f) => f.file?.id,
  sessionId: (f) => f.session?.id,
  uploadSessionId: (f) => f.session?.id,
  creditId: (f) => f.credit?.id,
  installmentId: (f) => f.installment?.id,
  branchId: (f) => f.branch.id,
  planId: (f) => f.plan.id,
  configId: (f) => f.plan.id,
  creditConfigId: (f) => f.plan.id,
  filename: (f) => (f.file ? encodeURIComponent(f.file.file_name) : undefined),
  fileName: (f) => (f.file ? encodeURIComponent(f.file.file_name) : undefined),
};

const BY_COLLECTION: Record<string, (f: Fixtures) => string | undefined> = {
  clients: (f) => f.client.id,
  'credit-configs': (f) => f.plan.id,
  branches: (f) => f.branch.id,
  credits: (f) => f.credit?.id,
  installments: (f) => f.installment?.id,
  ledger: (f) => f.ledgerEntry?.id,
  files: (f) => f.file?.id,
  'upload-sessions': (f) => f.session?.id,
  holidays: (f) => f.holiday?.date,
  users: (f) => f.user?.id,
  keys: (f) => f.apiKey?.id,
  leads: (f) => f.lead?.id,
};

/** The tenant's resource a path parameter names, when the suite can tell. */
export function fixtureFor(path: string, param: string, f: Fixtures): string | undefined {
  if (BY_NAME[param]) return BY_NAME[param]!(f);
  const segs = path.split('/');
  const i = segs.findIndex((s) => s.includes(`{${param}}`));
  const prev = i > 0 ? segs[i - 1]! : '';
  return BY_COLLECTION[prev]?.(f);
}

export const isUuidParam = (p: RouteParam) => p.schema?.format === 'uuid';

/** A value of the right shape that names nothing. */
export function randomParam(p: RouteParam): string {
  if (isUuidParam(p)) return randomUUID();
  const e = enumOf(p.schema);
  // an enum parameter (a dataset name) is not a resource: a random value is still "not found"
  if (e) return `nope${randomUUID().slice(0, 8)}`;
  return `nope-${randomUUID()}`;
}

/**
 * Path values for a tenant, once per allowed value of each enumerated parameter (a dataset name),
 * so every variant of a route is read.
 */
export function pathVariants(route: ApiRoute, f: Fixtures): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const p of route.params) {
    const e = enumOf(p.schema);
    const choices = e ? e.map(String) : [fixtureFor(route.path, p.name, f) ?? randomParam(p)];
    out = out.flatMap((v) => choices.map((c) => ({ ...v, [p.name]: c })));
  }
  return out.slice(0, 50);
}

export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? 'missing');
}

// ---------------------------------------------------------------------------------------------
// A valid value for a JSON schema: required properties only, the smallest allowed values.

export function enumOf(s: Schema): unknown[] | undefined {
  if (!s) return undefined;
  if (Array.isArray(s.enum)) return s.enum;
  if ('const' in s) return [s.const];
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (alts) {
    const vals = alts.flatMap((a) => enumOf(a) ?? []);
    return vals.length ? vals : undefined;
  }
  return undefined;
}

export function sample(s: Schema, name: string, f: Fixtures | null): unknown {
  if (!s || typeof s !== 'object') return null;
  if ('default' in s) return s.default;
  const e = enumOf(s);
  if (e && e.length) return e.find((v) => v !== null) ?? e[0];
  const alts = (s.anyOf ?? s.oneOf ?? s.allOf) as Schema[] | undefined;
  if (alts) {
    const nonNull = alts.find((a) => a.type !== 'null') ?? alts[0]!;
    return sample(nonNull, name, f);
  }
  const type = Array.isArray(s.type) ? (s.type.find((t: string) => t !== 'null') ?? s.type[0]) : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const r of (s.required ?? []) as string[]) out[r] = sample(s.properties?.[r] ?? {}, r, f);
      return out;
    }
    case 'array': {
      const n = s.minItems ?? 0;
      return Array.from({ length: n }, () => sample(s.items ?? {}, name, f));
    }
    case 'integer':
    case 'number': {
      let v = 1;
      if (typeof s.minimum === 'number') v = Math.max(v, s.minimum);
      if (typeof s.exclusiveMinimum === 'number') v = Math.max(v, Math.floor(s.exclusiveMinimum) + 1);
      if (typeof s.maximum === 'number') v = Math.min(v, s.maximum);
      return v;
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
    default: {
      if (s.format === 'uuid') {
        if (f && /config|plan/.test(name)) return f.plan.id;
        if (f && /branch/.test(name)) return f.branch.id;
        if (f && /client/.test(name)) return f.client.id;
        if (f && /credit/.test(name)) return f.credit?.id ?? randomUUID();
        return randomUUID();
      }
      if (s.format === 'date') return new Date().toISOString().slice(0, 10);
      if (s.format === 'date-time') return new Date().toISOString();
      if (s.format === 'email') return 'sec@example.com';
      const len = Math.max(1, s.minLength ?? 1);
      return 'x'.repeat(len);
    }
  }
}

export interface Call {
  url: string;
  payload?: string | Buffer;
  headers: Record<string, string>;
}

/**
 * A request to a route with the given path values and a body its schema accepts (built for
 * tenant f), or a deliberately invalid body when valid is false.
 */
export function requestFor(
  route: ApiRoute,
  values: Record<string, string>,
  f: Fixtures | null,
  opts: { valid?: boolean } = {},
): Call {
  let url = fillPath(route.path, values);
  const qs = route.query
    .filter((q) => q.required)
    .map((q) => `${q.name}=${encodeURIComponent(String(sample(q.schema, q.name, f)))}`);
  if (qs.length) url += `?${qs.join('&')}`;
  if (!route.body) return { url, headers: {} };
  if (route.body === 'multipart') {
    const mp = multipart('file', 'sec.png', 'image/png', PNG);
    return { url, payload: mp.payload, headers: mp.headers };
  }
  const body = opts.valid === false ? { __not_a_field__: 1 } : sample(route.body, '', f);
  return { url, payload: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json' } };
}

/** The Error body of the contract and docs/api.md: {error, code}, JSON. */
export function assertErrorBody(res: LightMyRequestResponse, status: number, code: string | undefined, what: string) {
  assert.equal(res.statusCode, status, `${what}: expected ${status}, got ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.raw.req.method === 'HEAD') return;
  assert.match(String(res.headers['content-type']), /^application\/json/, `${what}: content type`);
  const b = JSON.parse(res.body) as Record<string, unknown>;
  assert.equal(typeof b.error, 'string', `${what}: error must be a string: ${res.body}`);
  assert.ok((b.error as string).length > 0, `${what}: empty error`);
  assert.equal(typeof b.code, 'string', `${what}: code must be a string: ${res.body}`);
  if (code) assert.equal(b.code, code, `${what}: code`);
  assert.ok(
    !/\n\s+at |node_modules|\bselect\b.+\bfrom\b|\binsert into\b/i.test(res.body),
    `${what}: leaks internals: ${res.body}`,
  );
}
