// Bad input never gets a 500: malformed JSON, wrong types (no coercion), unknown fields, huge
// numbers, nested garbage, NUL bytes, very long strings, arrays for objects, odd unicode; bodies
// over 1 MiB are 413; every refusal is the Error body and changes nothing. The last test throws
// the same garbage at every JSON route the app declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, type Harness } from '../helpers/app.ts';
import {
  apiRoutes,
  assertErrorBody,
  createFixtures,
  fixtureFor,
  isWrite,
  randomParam,
  sample,
} from '../helpers/security.ts';

const raw = (h: Harness, method: string, url: string, payload: string | Buffer, contentType = 'application/json') =>
  h.req({ method: method as 'POST', url, payload, headers: { 'content-type': contentType } });

async function counts(h: Harness) {
  return {
    clients: json(await h.get('/api/clients?limit=1')).total as number,
    plans: (json(await h.get('/api/credit-configs')) as unknown[]).length,
    branches: (json(await h.get('/api/branches')) as unknown[]).length,
    audit: json(await h.get('/api/logs?limit=1')).total as number,
  };
}

test('a body over 1 MiB is 413 payload_too_large; just under is read', async (t) => {
  const h = await build(t);
  const plan = json(await h.post('/api/credit-configs', { name: 'P' }));
  const before = await counts(h);
  const big = JSON.stringify({ dni: '1', first_name: 'x'.repeat(1024 * 1024) });
  for (const [method, url] of [
    ['POST', '/api/clients'],
    ['PUT', `/api/credit-configs/${plan.id}`],
    ['POST', '/api/branches'],
  ]) {
    assertErrorBody(await raw(h, method!, url!, big), 413, 'payload_too_large', `${method} ${url}`);
  }
  // a large body under the limit is parsed, then refused for what it says
  const under = JSON.stringify({ dni: '1', first_name: 'x'.repeat(1024 * 1024 - 100) });
  assert.ok(Buffer.byteLength(under) <= 1024 * 1024, 'holds: Buffer.byteLength(under) <= 1024 * 1024');
  assertErrorBody(await raw(h, 'POST', '/api/clients', under), 400, 'validation_failed', 'long first_name');
  assert.deepEqual(await counts(h), before);
});

test('malformed JSON, non-JSON content types and non-object bodies are refused', async (t) => {
  const h = await build(t);
  const before = await counts(h);
  for (const payload of [
    '{',
    '{"dni": ',
    '{"dni":"1",}',
    "{'dni':'1'}",
    '{"dni":"1"} trailing',
    'nul',
    'NaN',
    '{"dni":"1"',
    '\u0000',
    '\uFEFF{"dni":"1"}x',
    '{"dni":1e}',
  ]) {
    const res = await raw(h, 'POST', '/api/clients', payload);
    assertErrorBody(res, 400, 'validation_failed', `malformed ${JSON.stringify(payload)}`);
    // validation errors add details (API.md, conventions): a body that is not JSON points at its root
    assert.deepEqual(
      json(res).details?.map((d: { path: string }) => d.path),
      ['/'],
      `details of malformed ${JSON.stringify(payload)}: ${res.body}`,
    );
  }
  for (const payload of ['[]', '[{"dni":"1"}]', '"dni"', '5', 'true', 'null']) {
    assertErrorBody(await raw(h, 'POST', '/api/clients', payload), 400, 'validation_failed', `body ${payload}`);
  }
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'image/png']) {
    assertErrorBody(await raw(h, 'POST', '/api/clients', '{"dni":"1"}', ct), 415, 'unsupported_media_type', ct);
  }
  // deeply nested garbage
  const deep = '{"dni":"x","a":' + '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_001);
  assertErrorBody(await raw(h, 'POST', '/api/clients', deep), 400, 'validation_failed', 'deep object');
  const deepArr = '['.repeat(50_000) + ']'.repeat(50_000);
  assertErrorBody(await raw(h, 'POST', '/api/clients', deepArr), 400, 'validation_failed', 'deep array');
  // prototype keys are unknown fields, and pollute nothing
  for (const payload of [
    '{"__proto__":{"polluted":1},"dni":"p"}',
    '{"constructor":{"prototype":{"polluted":1}},"dni":"p"}',
  ]) {
    assertErrorBody(await raw(h, 'POST', '/api/clients', payload), 400, 'validation_failed', payload);
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(await counts(h), before);
});

test('no coercion: a string for a number, a number for a string, 1 for true are 400', async (t) => {
  const h = await build(t);
  const plan = json(await h.post('/api/credit-configs', { name: 'P' }));
  const branch = json(await h.post('/api/branches', { name: 'B' }));
  const client = json(await h.post('/api/clients', { dni: '9' }));
  const before = await counts(h);
  const cases: [string, string, unknown][] = [
    ['POST', '/api/credit-configs', { name: 'x', installments_count: '3' }],
    ['POST', '/api/credit-configs', { name: 'x', interest_rate: '0.3' }],
    ['POST', '/api/credit-configs', { name: 'x', is_active: 'false' }],
    ['POST', '/api/credit-configs', { name: 'x', is_active: 0 }],
    ['POST', '/api/credit-configs', { name: 123 }],
    ['PUT', `/api/credit-configs/${plan.id}`, { payment_day: '10' }],
    ['PUT', `/api/credit-configs/${plan.id}`, { grace_days: [1] }],
    ['POST', '/api/clients', { dni: 30111222 }],
    ['POST', '/api/clients', { dni: '1', first_name: 5 }],
    ['POST', '/api/clients', { dni: '1', first_name: true }],
    ['POST', '/api/clients', { dni: ['1'] }],
    ['PUT', `/api/clients/${client.id}`, { phone: 1234 }],
    ['PUT', `/api/clients/${client.id}`, { sex: 'M' }],
    ['POST', '/api/branches', { name: 42 }],
    ['PUT', `/api/branches/${branch.id}`, { address: false }],
  ];
  for (const [method, url, body] of cases) {
    const res = await raw(h, method, url, JSON.stringify(body));
    assertErrorBody(res, 400, 'validation_failed', `${method} ${url} ${JSON.stringify(body)}`);
    assert.ok(Array.isArray(json(res).details), res.body);
  }
  assert.deepEqual(await counts(h), before);
  assert.equal(json(await h.get(`/api/credit-configs/${plan.id}`)).payment_day, 10);
});

test('NUL bytes, very long strings, huge numbers and odd unicode: 4xx or stored exactly, never 500', async (t) => {
  const h = await build(t);
  const client = json(await h.post('/api/clients', { dni: 'u1' }));
  const before = await counts(h);
  const refused: [string, string, string][] = [
    ['POST', '/api/clients', JSON.stringify({ dni: 'a\u0000b' })],
    ['POST', '/api/clients', JSON.stringify({ dni: 'n1', first_name: 'x\u0000' })],
    ['PUT', `/api/clients/${client.id}`, JSON.stringify({ city: '\u0000' })],
    ['POST', '/api/credit-configs', JSON.stringify({ name: 'p\u0000' })],
    ['POST', '/api/branches', JSON.stringify({ name: 'b', address: 'a\u0000' })],
    ['POST', '/api/clients', JSON.stringify({ dni: 'x'.repeat(33) })],
    ['POST', '/api/clients', JSON.stringify({ dni: 'l1', last_name: 'x'.repeat(100_000) })],
    ['POST', '/api/clients', JSON.stringify({ dni: 'l2', email: `${'a'.repeat(300)}@example.com` })],
    ['POST', '/api/credit-configs', '{"name":"x","installments_count":1e400}'],
    ['POST', '/api/credit-configs', '{"name":"x","interest_rate":-1e400}'],
    ['POST', '/api/credit-configs', '{"name":"x","grace_days":123456789012345678901234567890}'],
    ['POST', '/api/credit-configs', '{"name":"x","daily_punitory_rate":0.0000001}'],
    ['POST', '/api/credit-configs', '{"name":"x","punitory_cap_pct":1e308}'],
  ];
  for (const [method, url, payload] of refused) {
    const res = await raw(h, method, url, payload);
    assert.ok(
      res.statusCode >= 400 && res.statusCode < 500,
      `${method} ${url} ${payload.slice(0, 80)}: ${res.statusCode} ${res.body.slice(0, 200)}`,
    );
    assertErrorBody(res, res.statusCode, 'validation_failed', `${method} ${url} ${payload.slice(0, 60)}`);
  }
  for (const url of [
    '/api/clients?q=%00',
    '/api/logs?table_name=%00',
    `/api/clients?q=${'z'.repeat(101)}`,
    '/api/clients?q=%E0%A4%A',
    '/api/logs?limit=99999999999999999999',
  ]) {
    const res = await h.get(url);
    assert.ok(res.statusCode < 500, `${url}: ${res.body}`);
    if (res.statusCode >= 400) assertErrorBody(res, res.statusCode, undefined, url);
  }
  assert.deepEqual(await counts(h), before);

  // text outside the basic plane, combining marks and bidi controls are stored and read back exactly
  const names = [
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀',
    'Ñandú Güemes',
    'e\u0301\u0301',
    '\u202Eevil',
    '中文名字',
    "O'Brien; DROP TABLE clients;--",
  ];
  for (const [i, first_name] of names.entries()) {
    const res = await h.post('/api/clients', { dni: `u-${i}-😀`, first_name, city: first_name });
    assert.equal(res.statusCode, 201, res.body);
    const back = json(await h.get(`/api/clients/${json(res).id}`)).client;
    assert.equal(back.first_name, first_name);
    assert.equal(back.dni, `u-${i}-😀`);
  }
  // a lone surrogate cannot be stored as it is: accepted as the replacement character or refused, never a 500
  const lone = await raw(h, 'POST', '/api/clients', '{"dni":"lone","first_name":"\\ud800"}');
  assert.ok([201, 400].includes(lone.statusCode), lone.body);
  assert.equal(json(await h.get('/api/clients?q=ñandú')).total, 1);
});

test('every JSON route of the app survives garbage in every field (never a 5xx, always the Error body)', async (t) => {
  const h = await build(t);
  const f = await createFixtures(h, h.tenant.businessId, h.tenant.fullKey, 'fuzz');
  const GARBAGE: unknown[] = [
    null,
    '3',
    '',
    'a\u0000b',
    'x'.repeat(70_000),
    '😀\u202E\uFFFF',
    -1,
    1.5,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    [],
    [1, 'a', null],
    {},
    { nested: { deeper: [{ x: '\u0000' }] } },
    '9999-99-99',
    '2024-02-30',
    '00000000-0000-0000-0000-000000000000',
    "'; DROP TABLE ledger; --",
  ];
  const routes = apiRoutes(h.app).filter((r) => isWrite(r.method) && r.body && r.body !== 'multipart');
  assert.ok(routes.length >= 6, 'the JSON write routes are enumerated');
  for (const route of routes) {
    const schema = route.body as Record<string, any>;
    const values = Object.fromEntries(
      route.params.map((p) => [p.name, fixtureFor(route.path, p.name, f) ?? randomParam(p)]),
    );
    const url = route.path.replace(/\{([^}]+)\}/g, (_m, n: string) => values[n]!);
    const base = (sample(schema, '', f) ?? {}) as Record<string, unknown>;
    const fields = Object.keys(schema.properties ?? {});
    const bodies: unknown[] = [[], [base], 'text', 12, null, { ...base, __extra__: 1 }];
    for (const field of fields) for (const g of GARBAGE) bodies.push({ ...base, [field]: g });
    for (const body of bodies) {
      const res = await raw(h, route.method, url, JSON.stringify(body));
      const what = `${route.method} ${route.path} ${JSON.stringify(body).slice(0, 120)}`;
      assert.ok(res.statusCode < 500, `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      if (res.statusCode >= 400) assertErrorBody(res, res.statusCode, undefined, what);
    }
  }
});
