// Conformance with the published contract (contract-1.0.0.md), written from the specifications
// (the contract, API.md's decisions, DOMAIN.md's rules and figures), not from the code: a black-box
// check of the 11 endpoints' status codes, field names and types, error bodies, authentication,
// tenancy, validation without coercion, pagination and the money rules the specifications give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { build, json, settableClock, type Harness } from '../helpers/app.ts';
import { newClient, upload } from '../helpers/files.ts';
import { png } from '../helpers/file-fixtures.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

type Kind =
  | 'uuid'
  | 'uuid?'
  | 'string'
  | 'string?'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'instant'
  | 'instant?'
  | 'date'
  | 'object?';

/** Every field the contract lists is present with its type (extensions may add fields). */
function shape(what: string, obj: any, fields: Record<string, Kind | string[]>) {
  assert.ok(obj && typeof obj === 'object' && !Array.isArray(obj), `${what} is an object`);
  for (const [f, kind] of Object.entries(fields)) {
    assert.ok(f in obj, `${what}.${f} is present`);
    const v = obj[f];
    const nullable = typeof kind === 'string' && kind.endsWith('?');
    if (nullable && v === null) continue;
    if (Array.isArray(kind)) {
      assert.ok(kind.includes(v), `${what}.${f} = ${JSON.stringify(v)} is one of ${kind.join(', ')}`);
      continue;
    }
    switch (kind.replace('?', '')) {
      case 'uuid':
        assert.ok(typeof v === 'string' && UUID.test(v), `${what}.${f} = ${JSON.stringify(v)} is a uuid`);
        break;
      case 'string':
        assert.equal(typeof v, 'string', `${what}.${f} is a string`);
        break;
      case 'number':
        assert.equal(typeof v, 'number', `${what}.${f} = ${JSON.stringify(v)} is a JSON number`);
        break;
      case 'integer':
        assert.ok(Number.isInteger(v), `${what}.${f} = ${JSON.stringify(v)} is an integer`);
        break;
      case 'boolean':
        assert.equal(typeof v, 'boolean', `${what}.${f} is a boolean`);
        break;
      case 'instant':
        assert.ok(
          typeof v === 'string' && INSTANT.test(v),
          `${what}.${f} = ${JSON.stringify(v)} is RFC 3339 with offset`,
        );
        break;
      case 'date':
        assert.ok(typeof v === 'string' && DATE.test(v), `${what}.${f} = ${JSON.stringify(v)} is YYYY-MM-DD`);
        break;
      case 'object':
        assert.equal(typeof v, 'object', `${what}.${f} is an object`);
        break;
    }
  }
}

/** Money: a JSON number with at most 2 decimals. */
function money(what: string, v: unknown) {
  assert.equal(typeof v, 'number', `${what} is a JSON number`);
  assert.ok(
    Math.abs((v as number) * 100 - Math.round((v as number) * 100)) < 1e-6,
    `${what} = ${v} has at most 2 decimals`,
  );
}

const CLIENT: Record<string, Kind | string[]> = {
  id: 'uuid',
  business_id: 'uuid',
  first_name: 'string?',
  last_name: 'string?',
  dni: 'string',
  sex: ['m', 'f', 'o', null] as any,
  street: 'string?',
  street_number: 'string?',
  floor: 'string?',
  apartment: 'string?',
  city: 'string?',
  state: 'string?',
  country: 'string?',
  zip_code: 'string?',
  phone: 'string?',
  alt_phone: 'string?',
  email: 'string?',
  created_at: 'instant',
  updated_at: 'instant',
};
const CREDIT: Record<string, Kind | string[]> = {
  id: 'uuid',
  client_id: 'uuid',
  credit_config_id: 'uuid',
  amount: 'number',
  status: ['active', 'refinanced', 'closed', 'written_off', 'inactive'],
  refinanced_from_id: 'uuid?',
  created_by: 'string',
  origin_transaction_reference: 'string?',
  branch_id: 'uuid?',
  sequential_id: 'integer',
  created_at: 'instant',
  updated_at: 'instant',
  written_off_at: 'instant?',
  write_off_reason: 'string?',
};
const INSTALLMENT: Record<string, Kind | string[]> = {
  id: 'uuid',
  credit_id: 'uuid',
  number: 'integer',
  amount: 'number',
  due_date: 'date',
  status: ['pending', 'partial', 'paid'],
  overdue: 'boolean',
  days_late: 'integer',
  created_at: 'instant',
  updated_at: 'instant',
};
const LEDGER: Record<string, Kind | string[]> = {
  id: 'uuid',
  installment_id: 'uuid',
  type: ['installment', 'punitory', 'payment'],
  amount: 'number',
  branch_id: 'uuid?',
  created_by: 'string',
  created_at: 'instant',
};
const FILE: Record<string, Kind | string[]> = {
  id: 'uuid',
  client_id: 'uuid',
  file_name: 'string',
  file_url: 'string',
  file_type: 'string',
  file_size: 'integer',
  created_at: 'instant',
};
const PLAN: Record<string, Kind | string[]> = {
  id: 'uuid',
  business_id: 'uuid',
  name: 'string',
  is_active: 'boolean',
  installments_count: 'integer',
  days_until_first_payment: 'integer',
  cut_type: ['fixed', 'monthly'],
  daily_punitory_rate: 'number',
  interest_rate: 'number',
  payment_day: 'integer',
  grace_days: 'integer',
  punitory_mode: ['simple_outstanding', 'compound', 'full_amount'],
  max_punitory_days: 'integer',
  punitory_cap_pct: 'number',
  write_off_days: 'integer',
  created_at: 'instant',
  updated_at: 'instant',
};
const AUDIT: Record<string, Kind | string[]> = {
  id: 'uuid',
  table_name: 'string',
  action: ['INSERT', 'UPDATE', 'DELETE'],
  record_id: 'uuid',
  old_data: 'object?',
  new_data: 'object?',
  business_id: 'uuid',
  branch_id: 'uuid?',
  changed_at: 'instant',
  impersonated_by: 'string?',
};
const BRANCH: Record<string, Kind | string[]> = {
  id: 'uuid',
  business_id: 'uuid',
  name: 'string',
  address: 'string?',
  phone: 'string?',
  created_at: 'instant',
  updated_at: 'instant',
  deleted_at: 'instant?',
};
const SESSION: Record<string, Kind | string[]> = {
  id: 'uuid',
  business_id: 'uuid',
  client_id: 'uuid',
  created_by: 'string',
  created_at: 'instant',
  expires_at: 'instant',
  revoked_at: 'instant?',
  last_used_at: 'instant?',
  upload_count: 'integer',
};

/** The Error body: `error` a sentence, `code` the machine code API.md gives. */
function errorBody(what: string, res: LightMyRequestResponse, status: number, code: string) {
  assert.equal(res.statusCode, status, `${what}: status ${status} (got ${res.statusCode}: ${res.body.slice(0, 300)})`);
  const b = json(res);
  assert.equal(typeof b.error, 'string', `${what}: error is a string`);
  assert.ok(b.error.length > 0, `${what}: error is not empty`);
  assert.equal(b.code, code, `${what}: code ${code}`);
  return b;
}

async function okJson(what: string, p: Promise<LightMyRequestResponse>, status = 200) {
  const res = await p;
  assert.equal(res.statusCode, status, `${what}: ${status} (got ${res.statusCode}: ${res.body.slice(0, 300)})`);
  return json(res);
}

/** A credit of the plan for the client (201): its creation answer (credit, installments). */
function newCredit(h: Harness, clientId: string, planId: string, fields: Record<string, unknown>) {
  return okJson('credit', h.post(`/api/clients/${clientId}/credits`, { credit_config_id: planId, ...fields }), 201);
}

/** A plan of these fields and a credit of it for the client (201 each): the credit's creation answer. */
async function planCredit(
  h: Harness,
  clientId: string,
  plan: Record<string, unknown>,
  credit: Record<string, unknown>,
) {
  const p = await okJson('plan', h.post('/api/credit-configs', plan), 201);
  return newCredit(h, clientId, p.id, credit);
}

/** A business with one of everything the 11 endpoints read. */
async function world(h: Harness) {
  const plan = await okJson(
    'plan',
    h.post('/api/credit-configs', { name: 'Plan A', installments_count: 3, interest_rate: 0.35 }),
    201,
  );
  const branch = await okJson(
    'branch',
    h.post('/api/branches', { name: 'Centro', address: 'Calle 1', phone: '123' }),
    201,
  );
  const client = await newClient(h);
  const detail = await newCredit(h, client.id, plan.id, { amount: 1000, branch_id: branch.id });
  const file = await okJson('file', upload(h, client.id, 'scan one.png', png()), 201);
  const session = await okJson('session', h.post(`/api/clients/${client.id}/upload-sessions`, {}), 201);
  return { plan, branch, client, credit: detail.credit, file, session: session.session };
}

test('every endpoint answers 401 with the Error body to a missing, malformed or unknown key, in either header', async (t) => {
  const h = await build(t);
  const w = await world(h);
  const endpoints: [string, string, unknown?][] = [
    ['GET', `/api/clients/${w.client.id}`],
    ['GET', `/api/clients/${w.client.id}/credits`],
    ['GET', `/api/credits/${w.credit.id}/ledger`],
    ['GET', '/api/credit-configs'],
    ['POST', '/api/credit-configs', { name: 'x' }],
    ['PUT', `/api/credit-configs/${w.plan.id}`, { name: 'x' }],
    ['GET', '/api/logs'],
    ['GET', '/api/branches'],
    ['DELETE', `/api/clients/${w.client.id}/files/${w.file.id}`],
    ['DELETE', `/api/clients/${w.client.id}/upload-sessions/${w.session.id}`],
    ['GET', w.file.file_url],
  ];
  const bad: [string, Record<string, string>][] = [
    ['no key', {}],
    ['Bearer without a key', { authorization: 'Bearer ' }],
    ['unknown Bearer key', { authorization: `Bearer ${h.tenant.fullKey}x` }],
    ['unknown X-API-Key', { 'x-api-key': 'lk_not_a_real_key_000000000000000000000000' }],
    ['Basic scheme', { authorization: `Basic ${Buffer.from(`u:${h.tenant.fullKey}`).toString('base64')}` }],
  ];
  for (const [method, url, payload] of endpoints) {
    for (const [label, headers] of bad) {
      const res = await h.app.inject({
        method: method as any,
        url,
        headers,
        ...(payload ? { payload: payload as object } : {}),
      });
      const b = errorBody(`${method} ${url} with ${label}`, res, 401, 'unauthorized');
      assert.ok(!res.body.includes(w.client.id) || url.includes(w.client.id), `${label}: no data in the 401 body`);
      assert.equal(b.dni, undefined, 'no record in the 401 body');
    }
  }
  // nothing was written by the refused writes
  const plan = await okJson('plan read', h.get(`/api/credit-configs/${w.plan.id}`));
  assert.equal(plan.name, 'Plan A', 'a refused PUT changed nothing');
  const files = await okJson('files', h.get(`/api/clients/${w.client.id}/files`));
  assert.equal(files.length, 1, 'a refused DELETE removed no file');
});

test('X-API-Key and Bearer are the same key; read scope may GET/HEAD but 403 on every write, with nothing changed', async (t) => {
  const h = await build(t);
  const w = await world(h);
  for (const url of [
    `/api/clients/${w.client.id}`,
    '/api/credit-configs',
    '/api/branches',
    '/api/logs',
    `/api/credits/${w.credit.id}/ledger`,
  ]) {
    const a = await h.app.inject({ method: 'GET', url, headers: { 'x-api-key': h.tenant.readKey } });
    assert.equal(a.statusCode, 200, `X-API-Key read key GET ${url}: ${a.body.slice(0, 200)}`);
    const head = await h.app.inject({ method: 'HEAD', url, headers: { authorization: `Bearer ${h.tenant.readKey}` } });
    assert.equal(head.statusCode, 200, `HEAD ${url} with a read key`);
  }
  const dl = await h.app.inject({ method: 'GET', url: w.file.file_url, headers: { 'x-api-key': h.tenant.readKey } });
  assert.equal(dl.statusCode, 200, 'a read key downloads a file');

  const writes: [string, string, unknown?][] = [
    ['POST', '/api/credit-configs', { name: 'by reader' }],
    ['PUT', `/api/credit-configs/${w.plan.id}`, { name: 'by reader' }],
    ['DELETE', `/api/clients/${w.client.id}/files/${w.file.id}`],
    ['DELETE', `/api/clients/${w.client.id}/upload-sessions/${w.session.id}`],
  ];
  for (const [method, url, payload] of writes) {
    for (const headers of [{ authorization: `Bearer ${h.tenant.readKey}` }, { 'x-api-key': h.tenant.readKey }]) {
      const res = await h.app.inject({
        method: method as any,
        url,
        headers,
        ...(payload ? { payload: payload as object } : {}),
      });
      errorBody(`${method} ${url} with a read key (${Object.keys(headers)[0]})`, res, 403, 'forbidden');
    }
  }
  const plans = await okJson('plans', h.get('/api/credit-configs'));
  assert.deepEqual(
    plans.map((p: any) => p.name),
    ['Plan A'],
    'no plan created or renamed by the read key',
  );
  const sessions = await okJson('sessions', h.get(`/api/clients/${w.client.id}/upload-sessions`));
  assert.equal(sessions[0].revoked_at, null, 'the session was not revoked by the read key');
  const dl2 = await h.get(w.file.file_url);
  assert.equal(dl2.statusCode, 200, 'the file was not deleted by the read key');
});

test("another business's key: 404 not_found on every id of this one, never its data; its lists hold none of it", async (t) => {
  const h = await build(t);
  const w = await world(h);
  const other = await h.newTenant();
  const probes: [string, string, unknown?][] = [
    ['GET', `/api/clients/${w.client.id}`],
    ['GET', `/api/clients/${w.client.id}/credits`],
    ['GET', `/api/credits/${w.credit.id}/ledger`],
    ['PUT', `/api/credit-configs/${w.plan.id}`, { name: 'stolen', is_active: false }],
    ['DELETE', `/api/clients/${w.client.id}/files/${w.file.id}`],
    ['DELETE', `/api/clients/${w.client.id}/upload-sessions/${w.session.id}`],
    ['GET', w.file.file_url],
  ];
  for (const [method, url, payload] of probes) {
    for (const key of [other.fullKey, other.readKey]) {
      const res = await h.req({ method: method as any, url, key, ...(payload ? { payload: payload as object } : {}) });
      if (key === other.readKey && method !== 'GET') {
        assert.ok([403, 404].includes(res.statusCode), `${method} ${url} with another read key: 403 or 404`);
        continue;
      }
      errorBody(`${method} ${url} with another business's key`, res, 404, 'not_found');
      assert.ok(!res.body.includes((w.client as unknown as { dni: string }).dni), 'no client data in the 404');
      assert.ok(!res.body.includes('PNG'), 'no file bytes in the 404');
    }
  }
  // the other business's lists are its own
  assert.deepEqual(
    await okJson('plans', h.get('/api/credit-configs', other.fullKey)),
    [],
    'no plan of the first business',
  );
  assert.deepEqual(
    await okJson('branches', h.get('/api/branches', other.fullKey)),
    [],
    'no branch of the first business',
  );
  const logs = await okJson('logs', h.get('/api/logs?limit=100', other.fullKey));
  assert.equal(logs.total, 0, 'no audit entry of the first business');
  assert.deepEqual(logs.items, [], 'no audit entry of the first business');
  // and nothing of the first one changed
  const plan = await okJson('plan', h.get(`/api/credit-configs/${w.plan.id}`));
  assert.equal(plan.name, 'Plan A', 'the plan was not renamed by another business');
  assert.equal(plan.is_active, true, 'the plan was not deactivated by another business');
  assert.equal((await h.get(w.file.file_url)).statusCode, 200, 'the file is still there');
});

test('1 client read: ClientDetail with every contract field and type; 404 for unknown, foreign or malformed ids', async (t) => {
  const h = await build(t);
  const w = await world(h);
  const d = await okJson('client read', h.get(`/api/clients/${w.client.id}`));
  for (const k of ['client', 'credits', 'installments', 'ledgerEntries', 'files'])
    assert.ok(k in d, `ClientDetail.${k}`);
  shape('client', d.client, CLIENT);
  assert.equal(d.client.business_id, h.tenant.businessId, 'the client belongs to the key’s business');
  assert.equal(d.credits.length, 1, 'one credit');
  shape('credit', d.credits[0], CREDIT);
  assert.equal(d.installments.length, 3, 'three installments');
  for (const i of d.installments) shape('installment', i, INSTALLMENT);
  assert.equal(d.ledgerEntries.length, 3, 'three installment entries');
  for (const e of d.ledgerEntries) shape('ledger entry', e, LEDGER);
  assert.equal(d.files.length, 1, 'one file');
  shape('file', d.files[0], FILE);
  assert.equal(d.files[0].file_size, png().length, 'file_size is in bytes');
  assert.equal(d.files[0].file_url, `/api/files/${w.client.id}/scan%20one.png`, 'file_url: the name percent-encoded');
  // no storage paths or tokens
  assert.ok(!/storage_path|token_hash|\/tmp\//.test(JSON.stringify(d)), 'no storage path or token in the read');

  errorBody('unknown client', await h.get(`/api/clients/${MISSING}`), 404, 'not_found');
  errorBody('malformed id', await h.get('/api/clients/not-a-uuid'), 404, 'not_found');
  errorBody('malformed id with read key', await h.get('/api/clients/1', h.tenant.readKey), 404, 'not_found');
});

test('2 and 3: client credits and credit ledger are arrays of Credit and LedgerEntry; 404 for unknown or malformed ids', async (t) => {
  const h = await build(t);
  const w = await world(h);
  const second = await newCredit(h, w.client.id, w.plan.id, { amount: 500 });
  const credits = await okJson('credits', h.get(`/api/clients/${w.client.id}/credits`, h.tenant.readKey));
  assert.ok(Array.isArray(credits), 'an array, not a page');
  assert.deepEqual(
    credits.map((c: any) => c.id).sort(),
    [w.credit.id, second.credit.id].sort(),
    'all credits of the client',
  );
  for (const c of credits) shape('credit', c, CREDIT);
  const seq = credits.map((c: any) => c.sequential_id).sort();
  assert.deepEqual(seq, [1, 2], 'sequential_id 1, 2 per business in creation order');
  for (const c of credits) {
    assert.equal(c.written_off_at, null, 'written_off_at null while not written off');
    assert.equal(c.write_off_reason, null, 'write_off_reason null while not written off');
  }
  await okJson('write off', h.post(`/api/credits/${second.credit.id}/write-off`, { reason: 'fraud' }));
  const wo = (await okJson('credits', h.get(`/api/clients/${w.client.id}/credits`))).find(
    (c: any) => c.id === second.credit.id,
  );
  shape('written-off credit', wo, CREDIT);
  assert.equal(wo.status, 'written_off', 'status written_off');
  assert.ok(typeof wo.written_off_at === 'string', 'written_off_at set');
  assert.equal(wo.write_off_reason, 'fraud', 'write_off_reason kept');
  const empty = await newClient(h);
  assert.deepEqual(
    await okJson('no credits', h.get(`/api/clients/${empty.id}/credits`)),
    [],
    'a client without credits: []',
  );

  const ledger = await okJson('ledger', h.get(`/api/credits/${w.credit.id}/ledger`, h.tenant.readKey));
  assert.ok(Array.isArray(ledger), 'an array');
  assert.equal(ledger.length, 3, 'one installment entry per installment');
  for (const e of ledger) {
    shape('ledger entry', e, LEDGER);
    assert.equal(e.type, 'installment', 'only installment entries yet');
    money('ledger amount', e.amount);
    assert.equal(e.branch_id, w.branch.id, 'the credit’s branch');
  }
  const sum = ledger.reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0);
  assert.equal(sum, 135000, '1000 at 35 % flat: total 1350');

  for (const url of [
    `/api/clients/${MISSING}/credits`,
    '/api/clients/x/credits',
    `/api/credits/${MISSING}/ledger`,
    '/api/credits/123/ledger',
  ]) {
    errorBody(`GET ${url}`, await h.get(url), 404, 'not_found');
  }
});

test('4 and 5: plan create with only name gives DOMAIN.md defaults, 201; the list holds the business’s plans', async (t) => {
  const h = await build(t);
  const res = await h.post('/api/credit-configs', { name: 'Only a name' });
  assert.equal(res.statusCode, 201, `201 on creation: ${res.body}`);
  const p = json(res);
  shape('plan', p, PLAN);
  assert.equal(p.business_id, h.tenant.businessId, 'the key’s business');
  const defaults = {
    name: 'Only a name',
    is_active: true,
    installments_count: 1,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    payment_day: 10,
    interest_rate: 0,
    daily_punitory_rate: 0,
    grace_days: 0,
    punitory_mode: 'simple_outstanding',
    max_punitory_days: 0,
    punitory_cap_pct: 0,
    write_off_days: 0,
  };
  for (const [k, v] of Object.entries(defaults)) assert.deepEqual(p[k], v, `default ${k} = ${v}`);

  const full = {
    name: 'Every field',
    is_active: false,
    installments_count: 12,
    days_until_first_payment: 0,
    cut_type: 'monthly',
    daily_punitory_rate: 0.005,
    interest_rate: 0.35,
    payment_day: 28,
    grace_days: 3,
    punitory_mode: 'compound',
    max_punitory_days: 90,
    punitory_cap_pct: 50.5,
    write_off_days: 180,
  };
  const q = await okJson('full plan', h.post('/api/credit-configs', full), 201);
  for (const [k, v] of Object.entries(full)) assert.deepEqual(q[k], v, `${k} kept as sent (${JSON.stringify(v)})`);
  const low = await okJson(
    'bounds',
    h.post('/api/credit-configs', { name: 'Low', installments_count: 1, payment_day: 1, punitory_mode: 'full_amount' }),
    201,
  );
  assert.equal(low.payment_day, 1, 'payment_day 1 accepted');

  const list = await okJson('list', h.get('/api/credit-configs', h.tenant.readKey));
  assert.ok(Array.isArray(list), 'an array');
  assert.deepEqual(list.map((x: any) => x.id).sort(), [p.id, q.id, low.id].sort(), 'the three plans of the business');
  for (const x of list) shape('plan', x, PLAN);
});

test('5 and 6: plan bodies are validated without coercion: 400 validation_failed with details', async (t) => {
  const h = await build(t);
  const plan = await okJson('plan', h.post('/api/credit-configs', { name: 'Base', installments_count: 3 }), 201);
  const bad: [string, Record<string, unknown>, string][] = [
    ['installments_count 0', { installments_count: 0 }, '/installments_count'],
    ['installments_count 13', { installments_count: 13 }, '/installments_count'],
    ['installments_count 1.5', { installments_count: 1.5 }, '/installments_count'],
    ['installments_count "3"', { installments_count: '3' }, '/installments_count'],
    ['payment_day 0', { payment_day: 0 }, '/payment_day'],
    ['payment_day 29', { payment_day: 29 }, '/payment_day'],
    ['days_until_first_payment -1', { days_until_first_payment: -1 }, '/days_until_first_payment'],
    ['days_until_first_payment 2.5', { days_until_first_payment: 2.5 }, '/days_until_first_payment'],
    ['grace_days -1', { grace_days: -1 }, '/grace_days'],
    ['grace_days "2"', { grace_days: '2' }, '/grace_days'],
    ['max_punitory_days 1.5', { max_punitory_days: 1.5 }, '/max_punitory_days'],
    ['write_off_days -5', { write_off_days: -5 }, '/write_off_days'],
    ['interest_rate -0.1', { interest_rate: -0.1 }, '/interest_rate'],
    ['interest_rate "0.3"', { interest_rate: '0.3' }, '/interest_rate'],
    ['daily_punitory_rate -0.001', { daily_punitory_rate: -0.001 }, '/daily_punitory_rate'],
    ['daily_punitory_rate "100"', { daily_punitory_rate: '100' }, '/daily_punitory_rate'],
    ['punitory_cap_pct -1', { punitory_cap_pct: -1 }, '/punitory_cap_pct'],
    ['cut_type weekly', { cut_type: 'weekly' }, '/cut_type'],
    ['punitory_mode daily', { punitory_mode: 'daily' }, '/punitory_mode'],
    ['is_active "false"', { is_active: 'false' }, '/is_active'],
    ['is_active 0', { is_active: 0 }, '/is_active'],
    ['name 5', { name: 5 }, '/name'],
    ['name null', { name: null }, '/name'],
    ['unknown field', { colour: 'red' }, ''],
  ];
  for (const [label, body, path] of bad) {
    for (const [method, url, payload] of [
      ['POST', '/api/credit-configs', { name: 'Bad', ...body }],
      ['PUT', `/api/credit-configs/${plan.id}`, body],
    ] as const) {
      const res = await h.req({ method, url, payload });
      const b = errorBody(`${method} ${label}`, res, 400, 'validation_failed');
      assert.ok(Array.isArray(b.details) && b.details.length > 0, `${method} ${label}: details listed`);
      for (const d of b.details) {
        assert.equal(typeof d.path, 'string', `${method} ${label}: details[].path`);
        assert.equal(typeof d.message, 'string', `${method} ${label}: details[].message`);
      }
      if (path)
        assert.ok(
          b.details.some((d: any) => d.path === path),
          `${method} ${label}: a detail at ${path} (${JSON.stringify(b.details)})`,
        );
    }
  }
  // name is required on creation; a body that is not a JSON object is refused
  const noName = errorBody(
    'POST without name',
    await h.post('/api/credit-configs', { installments_count: 2 }),
    400,
    'validation_failed',
  );
  assert.ok(Array.isArray(noName.details), 'details on a missing name');
  for (const payload of ['{"name": ', '[]', '"name"']) {
    const res = await h.req({
      method: 'POST',
      url: '/api/credit-configs',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    errorBody(`POST body ${payload}`, res, 400, 'validation_failed');
  }
  // a body that is not JSON: 415
  for (const ct of ['text/plain', 'application/x-www-form-urlencoded']) {
    const res = await h.req({
      method: 'POST',
      url: '/api/credit-configs',
      payload: 'name=x',
      headers: { 'content-type': ct },
    });
    errorBody(`POST as ${ct}`, res, 415, 'unsupported_media_type');
  }
  // nothing of it was stored
  const list = await okJson('list', h.get('/api/credit-configs'));
  assert.equal(list.length, 1, 'no refused plan was created');
  const after = await okJson('plan', h.get(`/api/credit-configs/${plan.id}`));
  assert.equal(after.installments_count, 3, 'no refused edit was applied');
  assert.equal(after.updated_at, plan.updated_at, 'refused edits left updated_at alone');
});

test('6 plan edit: partial, 200 with the whole plan; is_active toggles; empty body no-op; GET-PUT round trip; 404s', async (t) => {
  const h = await build(t);
  const p = await okJson(
    'plan',
    h.post('/api/credit-configs', {
      name: 'Edit me',
      installments_count: 6,
      interest_rate: 0.35,
      daily_punitory_rate: 0.005,
      cut_type: 'monthly',
      payment_day: 15,
    }),
    201,
  );
  const off = await okJson('deactivate', h.put(`/api/credit-configs/${p.id}`, { is_active: false }));
  shape('plan', off, PLAN);
  assert.equal(off.is_active, false, 'is_active as sent');
  assert.ok(Date.parse(off.updated_at) > Date.parse(p.updated_at), 'updated_at changes');
  assert.equal(off.created_at, p.created_at, 'created_at unchanged');
  for (const k of Object.keys(PLAN)) {
    if (k === 'is_active' || k === 'updated_at') continue;
    assert.deepEqual(off[k], p[k], `${k} unchanged by a PUT that did not send it`);
  }
  const on = await okJson('activate', h.put(`/api/credit-configs/${p.id}`, { is_active: true, grace_days: 2 }));
  assert.equal(on.is_active, true, 'activated');
  assert.equal(on.grace_days, 2, 'grace_days as sent');
  assert.equal(on.installments_count, 6, 'installments_count kept');

  const same = await okJson('empty body', h.put(`/api/credit-configs/${p.id}`, {}));
  for (const k of Object.keys(PLAN)) if (k !== 'updated_at') assert.deepEqual(same[k], on[k], `empty PUT keeps ${k}`);

  // a record read with GET can be PUT back whole (read-only fields are ignored)
  const read = await okJson('read', h.get(`/api/credit-configs/${p.id}`));
  const back = await okJson(
    'put back',
    h.put(`/api/credit-configs/${p.id}`, { ...read, name: 'Renamed', id: MISSING, business_id: MISSING }),
  );
  assert.equal(back.id, p.id, 'id is not changed by the body');
  assert.equal(back.business_id, h.tenant.businessId, 'business_id is not changed by the body');
  assert.equal(back.name, 'Renamed', 'the name was edited');

  errorBody('unknown plan', await h.put(`/api/credit-configs/${MISSING}`, { name: 'x' }), 404, 'not_found');
  errorBody('malformed plan id', await h.put('/api/credit-configs/abc', { name: 'x' }), 404, 'not_found');
});

test('DOMAIN.md money rounding and schedule through the contract reads (fixed dates, remainder on the last)', async (t) => {
  const clock = settableClock('2025-03-15');
  const h = await build(t, { clock });
  const client = await newClient(h);
  // total = round(amount × (1 + interest_rate)); each installment round(total / n), the last the remainder
  const cases: { plan: Record<string, unknown>; amount: number; expect: number[] }[] = [
    // 1000 at 0.35 over 7: 1350 / 7 = 192.857… → 192.86 × 6, the last 192.84
    { plan: { installments_count: 7, interest_rate: 0.35 }, amount: 1000, expect: [...Array(6).fill(19286), 19284] },
    // 100.01 over 2: 50.005 rounds half away from zero to 50.01, the last 50.00
    { plan: { installments_count: 2, interest_rate: 0 }, amount: 100.01, expect: [5001, 5000] },
    // 10.05 × 1.1 = 11.055 → 11.06 (half away from zero, no binary floating point)
    { plan: { installments_count: 1, interest_rate: 0.1 }, amount: 10.05, expect: [1106] },
    // 100 over 3: 33.33, 33.33, 33.34
    { plan: { installments_count: 3, interest_rate: 0 }, amount: 100, expect: [3333, 3333, 3334] },
  ];
  for (const c of cases) {
    const d = await planCredit(h, client.id, { name: 'r', ...c.plan }, { amount: c.amount });
    const ledger = await okJson('ledger', h.get(`/api/credits/${d.credit.id}/ledger`));
    const byInst = new Map(d.installments.map((i: any) => [i.id, i.number]));
    const cents = ledger
      .filter((e: any) => e.type === 'installment')
      .sort((a: any, b: any) => (byInst.get(a.installment_id) as number) - (byInst.get(b.installment_id) as number))
      .map((e: any) => {
        money('entry', e.amount);
        return Math.round(e.amount * 100);
      });
    assert.deepEqual(cents, c.expect, `${c.amount} with ${JSON.stringify(c.plan)}: installment entries in cents`);
    assert.equal(d.credit.amount, c.amount, 'the credit keeps the amount lent');
  }

  // fixed cut: first = start + 30 days; then the same day each month, the month's last day when shorter,
  // counted from the first due date (not chained); overdue and days_late as of today (2025-03-15)
  const d = await planCredit(
    h,
    client.id,
    { name: 'fixed', installments_count: 3, days_until_first_payment: 30 },
    { amount: 300, start_date: '2025-01-01' },
  );
  const detail = await okJson('client read', h.get(`/api/clients/${client.id}`));
  const inst = detail.installments
    .filter((i: any) => i.credit_id === d.credit.id)
    .sort((a: any, b: any) => a.number - b.number);
  assert.deepEqual(
    inst.map((i: any) => [i.number, i.due_date, i.overdue, i.days_late, i.status]),
    [
      [1, '2025-01-31', true, 43, 'pending'],
      [2, '2025-02-28', true, 15, 'pending'],
      [3, '2025-03-31', false, 0, 'pending'],
    ],
    'due dates, overdue and days_late',
  );

  // a partial payment: installments in order of number, status partial
  const paid = await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 150, paid_on: '2025-03-15' });
  assert.equal(paid.statusCode, 201, `payment: ${paid.body}`);
  const after = (await okJson('client read', h.get(`/api/clients/${client.id}`))).installments
    .filter((i: any) => i.credit_id === d.credit.id)
    .sort((a: any, b: any) => a.number - b.number);
  assert.deepEqual(
    after.map((i: any) => [i.status, i.overdue]),
    [
      ['paid', false],
      ['partial', true],
      ['pending', false],
    ],
    '150 pays the first 100 and half of the second',
  );
  const pl = await okJson('ledger', h.get(`/api/credits/${d.credit.id}/ledger`));
  const payCents = pl
    .filter((e: any) => e.type === 'payment')
    .reduce((s: number, e: any) => s + Math.round(Math.abs(e.amount) * 100), 0);
  assert.equal(payCents, 15000, 'the payment slices add up to 150');
  // monthly cut: first is the earliest payment_day on or after start + days
  const m = await planCredit(
    h,
    client.id,
    { name: 'monthly', installments_count: 2, days_until_first_payment: 10, cut_type: 'monthly', payment_day: 5 },
    { amount: 200, start_date: '2025-03-01' },
  );
  assert.deepEqual(
    m.installments.map((i: any) => i.due_date).sort(),
    ['2025-04-05', '2025-05-05'],
    'monthly: 2025-03-11 → the 5th on or after it is 2025-04-05',
  );
  // due today is not overdue; the day after it is, 1 day late
  clock.set('2025-04-05');
  const dueToday = (await okJson('ledger', h.get(`/api/clients/${client.id}`))).installments.find(
    (i: any) => i.credit_id === m.credit.id && i.number === 1,
  );
  assert.deepEqual([dueToday.overdue, dueToday.days_late], [false, 0], 'due today: not overdue');
  clock.set('2025-04-06');
  const dueYesterday = (await okJson('ledger', h.get(`/api/clients/${client.id}`))).installments.find(
    (i: any) => i.credit_id === m.credit.id && i.number === 1,
  );
  assert.deepEqual([dueYesterday.overdue, dueYesterday.days_late], [true, 1], 'due yesterday: 1 day late');
});

test('DOMAIN.md punitory figures: 0.005 a day, 10 days late, grace is a tolerance, caps', async (t) => {
  const clock = settableClock('2025-03-15');
  const h = await build(t, { clock });
  const client = await newClient(h);
  /** one installment of 1000 due 2025-01-31, paid in full on paid_on; returns its punitory entries' total in cents */
  async function punitory(planFields: Record<string, unknown>, paidOn: string, pay: number) {
    const d = await planCredit(
      h,
      client.id,
      { name: 'p', installments_count: 1, days_until_first_payment: 30, ...planFields },
      { amount: 1000, start_date: '2025-01-01' },
    );
    assert.equal(d.installments[0].due_date, '2025-01-31', 'due 2025-01-31');
    const paid = await h.post(`/api/credits/${d.credit.id}/payments`, { amount: pay, paid_on: paidOn });
    assert.equal(paid.statusCode, 201, `payment of ${pay} on ${paidOn}: ${paid.body}`);
    const ledger = await okJson('ledger', h.get(`/api/credits/${d.credit.id}/ledger`));
    for (const e of ledger) shape('ledger entry', e, LEDGER);
    const credits = await okJson('credits', h.get(`/api/clients/${client.id}/credits`));
    const status = credits.find((c: any) => c.id === d.credit.id).status;
    const detail = await okJson('client read', h.get(`/api/clients/${client.id}`));
    const inst = detail.installments.find((i: any) => i.credit_id === d.credit.id);
    assert.equal(inst.status, 'paid', 'the installment is paid');
    assert.equal(inst.overdue, false, 'a paid installment is not overdue');
    assert.equal(inst.days_late, 10, 'days_late of a paid installment: due date to the day it became paid');
    return {
      punitory: ledger
        .filter((e: any) => e.type === 'punitory')
        .reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0),
      status,
    };
  }
  // paid on due date + 10: late 10 days, 10 × 0.005 × 1000 = 50
  assert.deepEqual(
    await punitory({ daily_punitory_rate: 0.005 }, '2025-02-10', 1050),
    { punitory: 5000, status: 'closed' },
    '10 days at 0.5 %',
  );
  // within grace: nothing owed
  assert.deepEqual(
    await punitory({ daily_punitory_rate: 0.005, grace_days: 10 }, '2025-02-10', 1000),
    { punitory: 0, status: 'closed' },
    'paid within grace',
  );
  // beyond grace: every day since the due date
  assert.deepEqual(
    await punitory({ daily_punitory_rate: 0.005, grace_days: 5 }, '2025-02-10', 1050),
    { punitory: 5000, status: 'closed' },
    'past grace: all 10 days',
  );
  // max_punitory_days 4: 4 × 5 = 20
  assert.deepEqual(
    await punitory({ daily_punitory_rate: 0.005, max_punitory_days: 4 }, '2025-02-10', 1020),
    { punitory: 2000, status: 'closed' },
    'days capped at 4',
  );
  // payment bodies: no coercion; above the balance 422; on a closed credit 409
  {
    const d = await planCredit(h, client.id, { name: 'pay', installments_count: 1 }, { amount: 100 });
    errorBody(
      'amount "100"',
      await h.post(`/api/credits/${d.credit.id}/payments`, { amount: '100' }),
      400,
      'validation_failed',
    );
    errorBody(
      'unknown field',
      await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 10, colour: 'red' }),
      400,
      'validation_failed',
    );
    errorBody(
      'above the balance',
      await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 100.01 }),
      422,
      'unprocessable',
    );
    errorBody(
      'in the future',
      await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 10, paid_on: '2025-03-16' }),
      422,
      'unprocessable',
    );
    await okJson('pay all', h.post(`/api/credits/${d.credit.id}/payments`, { amount: 100 }), 201);
    errorBody('closed credit', await h.post(`/api/credits/${d.credit.id}/payments`, { amount: 1 }), 409, 'conflict');
    const ledger = await okJson('ledger', h.get(`/api/credits/${d.credit.id}/ledger`));
    assert.deepEqual(
      ledger.map((e: any) => e.type).sort(),
      ['installment', 'payment'],
      'refused payments wrote nothing',
    );
  }
  // a partial payment counts toward the base from the day after it is made (1000 due 2025-01-31, 1 % a day):
  // simple_outstanding: 500 on 02-05 (5 days on 1000 = 50, posted and paid first, 450 to the installment),
  // then 5 days on the 550 left = 27.50, so 577.50 closes it; full_amount: 10 days on 1000 = 100, 600 closes it
  for (const [mode, rest, total] of [
    ['simple_outstanding', 577.5, 7750],
    ['full_amount', 600, 10000],
  ] as const) {
    const d = await planCredit(
      h,
      client.id,
      { name: mode, installments_count: 1, daily_punitory_rate: 0.01, punitory_mode: mode },
      { amount: 1000, start_date: '2025-01-01' },
    );
    await okJson(
      'first payment',
      h.post(`/api/credits/${d.credit.id}/payments`, { amount: 500, paid_on: '2025-02-05' }),
      201,
    );
    const mid = await okJson('client read', h.get(`/api/clients/${client.id}`));
    assert.equal(
      mid.installments.find((i: any) => i.credit_id === d.credit.id).status,
      'partial',
      `${mode}: partial after 500`,
    );
    errorBody(
      `${mode}: a cent above what closes it`,
      await h.post(`/api/credits/${d.credit.id}/payments`, { amount: rest + 0.01, paid_on: '2025-02-10' }),
      422,
      'unprocessable',
    );
    await okJson(
      'second payment',
      h.post(`/api/credits/${d.credit.id}/payments`, { amount: rest, paid_on: '2025-02-10' }),
      201,
    );
    const ledger = await okJson('ledger', h.get(`/api/credits/${d.credit.id}/ledger`));
    const pun = ledger
      .filter((e: any) => e.type === 'punitory')
      .reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0);
    assert.equal(pun, total, `${mode}: punitory in cents`);
    const credits = await okJson('credits', h.get(`/api/clients/${client.id}/credits`));
    assert.equal(credits.find((c: any) => c.id === d.credit.id).status, 'closed', `${mode}: ${rest} closes the credit`);
  }
  // punitory_cap_pct 50: 10 days at 10 % would be 1000, capped at 500
  assert.deepEqual(
    await punitory({ daily_punitory_rate: 0.1, punitory_cap_pct: 50 }, '2025-02-10', 1500),
    { punitory: 50000, status: 'closed' },
    'capped at 50 % of 1000',
  );
});

test('7 audit list: page shape, newest first, filters by table and action, limit/offset bounds, total for pagination', async (t) => {
  const h = await build(t);
  const plan = await okJson('plan', h.post('/api/credit-configs', { name: 'Audited' }), 201);
  await okJson('edit', h.put(`/api/credit-configs/${plan.id}`, { name: 'Audited 2' }));
  await okJson('edit', h.put(`/api/credit-configs/${plan.id}`, { is_active: false }));
  const branch = await okJson('branch', h.post('/api/branches', { name: 'B' }), 201);

  const page = await okJson('logs', h.get('/api/logs', h.tenant.readKey));
  for (const k of ['items', 'total', 'limit', 'offset']) assert.ok(k in page, `page.${k}`);
  assert.equal(page.limit, 50, 'default limit 50');
  assert.equal(page.offset, 0, 'default offset 0');
  assert.ok(Number.isInteger(page.total), 'total an integer');
  assert.equal(page.total, page.items.length, 'all entries on one page');
  for (const e of page.items) {
    shape('audit entry', e, AUDIT);
    assert.equal(e.business_id, h.tenant.businessId, 'the key’s business');
    assert.equal(e.impersonated_by, null, 'no impersonation by an API key');
    assert.equal(e.actor, `api_key:${h.tenant.fullKeyId}`, 'actor names the key');
  }
  const times = page.items.map((e: any) => Date.parse(e.changed_at));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => b - a),
    'most recent first',
  );
  assert.equal(page.items[0].record_id, branch.id, 'the latest change first');

  const plans = await okJson('plan log', h.get('/api/logs?table_name=credit_configs'));
  assert.equal(plans.total, 3, 'one INSERT and two UPDATEs of the plan');
  assert.deepEqual(
    plans.items.map((e: any) => e.action),
    ['UPDATE', 'UPDATE', 'INSERT'],
    'newest first',
  );
  const insert = plans.items[2];
  assert.equal(insert.old_data, null, 'old_data null on INSERT');
  assert.equal(insert.new_data.name, 'Audited', 'new_data holds the record');
  assert.equal(plans.items[0].old_data.name, 'Audited 2', 'old_data holds the previous content');
  assert.equal(plans.items[0].new_data.is_active, false, 'new_data the new content');
  const alias = await okJson('alias', h.get('/api/logs?table=credit_configs&action=UPDATE'));
  assert.equal(alias.total, 2, '`table` alias and action filter');
  const branchLog = await okJson('branch log', h.get('/api/logs?table_name=branches'));
  assert.equal(branchLog.items[0].branch_id, branch.id, 'branch_id: the row’s branch');

  // pagination: limit/offset pages partition the list; total stays the count of matching records
  const all = await okJson('all', h.get('/api/logs?limit=100'));
  const seen: string[] = [];
  for (let off = 0; off < all.total; off += 2) {
    const p = await okJson('page', h.get(`/api/logs?limit=2&offset=${off}`));
    assert.equal(p.limit, 2, 'limit echoed');
    assert.equal(p.offset, off, 'offset echoed');
    assert.equal(p.total, all.total, 'total the same on every page');
    seen.push(...p.items.map((e: any) => e.id));
  }
  assert.deepEqual(
    seen,
    all.items.map((e: any) => e.id),
    'pages partition the list in order',
  );
  const beyond = await okJson('beyond', h.get(`/api/logs?offset=${all.total + 10}`));
  assert.deepEqual(beyond.items, [], 'an offset past the end: no items');
  assert.equal(beyond.total, all.total, 'and the total still');
  const max = await okJson('limit 100', h.get('/api/logs?limit=100'));
  assert.equal(max.limit, 100, 'limit 100 accepted');
  const one = await okJson('limit 1', h.get('/api/logs?limit=1'));
  assert.equal(one.items.length, 1, 'limit 1');

  // error bodies carry the request id, echoed in X-Request-Id
  const bad = await h.req({ method: 'GET', url: '/api/logs?limit=0', headers: { 'x-request-id': 'conf.req-1' } });
  assert.equal(bad.headers['x-request-id'], 'conf.req-1', 'X-Request-Id echoed');
  assert.equal(json(bad).request_id, 'conf.req-1', 'request_id in the error body');
  for (const q of [
    'foo=1',
    'limit=',
    'limit=10&limit=20',
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=abc',
    'limit=1.5',
    'offset=-1',
    'offset=x',
    'action=CREATE',
    'action=insert',
  ]) {
    errorBody(`GET /api/logs?${q}`, await h.get(`/api/logs?${q}`), 400, 'validation_failed');
  }
});

test('8 branch list: an array with deleted_at on every record, deleted ones kept', async (t) => {
  const h = await build(t);
  const a = await okJson('branch a', h.post('/api/branches', { name: 'A', address: 'Av. 1', phone: '555' }), 201);
  const b = await okJson('branch b', h.post('/api/branches', { name: 'B' }), 201);
  const deleted = await okJson('delete b', h.del(`/api/branches/${b.id}`));
  assert.ok(typeof deleted.deleted_at === 'string' && INSTANT.test(deleted.deleted_at), 'deleted_at set');
  const list = await okJson('branches', h.get('/api/branches', h.tenant.readKey));
  assert.ok(Array.isArray(list), 'an array');
  assert.equal(list.length, 2, 'both branches, the deleted one too');
  for (const x of list) {
    shape('branch', x, BRANCH);
    assert.ok('deleted_at' in x, 'deleted_at is part of each record');
  }
  const byId = new Map(list.map((x: any) => [x.id, x]));
  assert.equal((byId.get(a.id) as any).deleted_at, null, 'a live branch: deleted_at null');
  assert.equal((byId.get(a.id) as any).address, 'Av. 1', 'address');
  assert.equal((byId.get(a.id) as any).phone, '555', 'phone');
  assert.equal((byId.get(b.id) as any).deleted_at, deleted.deleted_at, 'the deleted one carries deleted_at');
});

test('9 and 11: file download (headers, bytes) and delete (200 with the record, then 404 everywhere)', async (t) => {
  const h = await build(t);
  const client = await newClient(h);
  const bytes = png();
  // the claimed type is ignored: file_type is detected from the content
  const f = await okJson('upload', upload(h, client.id, 'mi foto ñ.png', bytes, { contentType: 'text/plain' }), 201);
  shape('file', f, FILE);
  assert.equal(f.file_type, 'image/png', 'file_type detected from the content');
  assert.equal(f.file_url, `/api/files/${client.id}/${encodeURIComponent(f.file_name)}`, 'file_url percent-encoded');

  const dl = await h.get(f.file_url, h.tenant.readKey);
  assert.equal(dl.statusCode, 200, 'download 200');
  assert.ok(dl.rawPayload.equals(bytes), 'the same bytes');
  assert.equal(dl.headers['content-type'], 'image/png', 'Content-Type = file_type');
  assert.equal(Number(dl.headers['content-length']), bytes.length, 'Content-Length');
  assert.equal(dl.headers['x-content-type-options'], 'nosniff', 'nosniff');
  assert.equal(
    dl.headers['content-disposition'],
    `attachment; filename*=UTF-8''${encodeURIComponent(f.file_name)}`,
    'Content-Disposition attachment with the UTF-8 name',
  );
  const head = await h.req({ method: 'HEAD', url: f.file_url, key: h.tenant.readKey });
  assert.equal(head.statusCode, 200, 'HEAD on a file with a read key');
  assert.equal(head.headers['content-type'], 'image/png', 'HEAD: Content-Type = file_type');
  errorBody('unknown name', await h.get(`/api/files/${client.id}/nope.png`), 404, 'not_found');
  errorBody('malformed client id', await h.get(`/api/files/x/${encodeURIComponent(f.file_name)}`), 404, 'not_found');
  errorBody('path traversal', await h.get(`/api/files/${client.id}/..%2F..%2Fetc%2Fpasswd`), 404, 'not_found');

  const del = await okJson('delete', h.del(`/api/clients/${client.id}/files/${f.id}`));
  shape('deleted file', del, FILE);
  assert.equal(del.id, f.id, 'the deleted ClientFile record');
  errorBody('download after delete', await h.get(f.file_url), 404, 'not_found');
  errorBody('delete twice', await h.del(`/api/clients/${client.id}/files/${f.id}`), 404, 'not_found');
  errorBody('malformed file id', await h.del(`/api/clients/${client.id}/files/abc`), 404, 'not_found');
  const other = await newClient(h);
  const g = await okJson('upload', upload(h, client.id, 'b.png', bytes), 201);
  errorBody('file of another client', await h.del(`/api/clients/${other.id}/files/${g.id}`), 404, 'not_found');
  const detail = await okJson('client', h.get(`/api/clients/${client.id}`));
  assert.deepEqual(
    detail.files.map((x: any) => x.id),
    [g.id],
    'the deleted file left the client read',
  );
});

test('10 upload link revoke: 200 UploadSession with revoked_at; twice keeps the first; the link stops working', async (t) => {
  const clock = settableClock(new Date('2025-05-01T10:00:00Z'));
  const h = await build(t, { clock });
  const client = await newClient(h);
  const created = await okJson('session', h.post(`/api/clients/${client.id}/upload-sessions`, {}), 201);
  const s = created.session;
  const first = await okJson('revoke', h.del(`/api/clients/${client.id}/upload-sessions/${s.id}`));
  shape('session', first, SESSION);
  assert.equal(first.id, s.id, 'the same session');
  assert.ok(typeof first.revoked_at === 'string', 'revoked_at set');
  assert.ok(!('token' in first) && !('token_hash' in first), 'no token in the session');
  clock.set(new Date('2025-05-01T11:00:00Z'));
  const second = await okJson('revoke again', h.del(`/api/clients/${client.id}/upload-sessions/${s.id}`));
  assert.equal(second.revoked_at, first.revoked_at, 'revoking twice keeps the first revoked_at');
  const f = (await import('../helpers/file-fixtures.ts')).fileForm('x.png', png());
  const res = await h.app.inject({
    method: 'POST',
    url: `/upload/${created.token}`,
    payload: f.payload,
    headers: { 'content-type': f.contentType },
  });
  errorBody('upload through a revoked link', res, 410, 'gone');
  errorBody('unknown session', await h.del(`/api/clients/${client.id}/upload-sessions/${MISSING}`), 404, 'not_found');
  errorBody('malformed session id', await h.del(`/api/clients/${client.id}/upload-sessions/zz`), 404, 'not_found');
  const other = await newClient(h);
  errorBody(
    'session of another client',
    await h.del(`/api/clients/${other.id}/upload-sessions/${s.id}`),
    404,
    'not_found',
  );
});
