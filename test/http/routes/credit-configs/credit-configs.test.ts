// Credit plans, listed, created, edited and read: defaults (docs/domain.md), every constraint
// of the contract, integer fields refusing fractions, no coercion, partial update, read-only
// fields ignored, other businesses' plans not found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { build, json } from '../../../helpers/app.ts';

const DEFAULTS = {
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
  // docs/domain.md, "Interest methods, VAT and disclosed cost" and "Business days and holidays"
  amortization: 'flat',
  vat_rate: 0,
  business_day_rule: 'none',
  // docs/applications.md: no credit policy
  policy: {},
  // docs/domain.md "Fees and charges": no fee
  fees: [],
};
const FIELDS = ['id', 'business_id', 'name', ...Object.keys(DEFAULTS), 'created_at', 'updated_at'].sort();

test('a plan created with only a name takes the defaults (docs/api.md "Create a plan", docs/domain.md)', async (t) => {
  const h = await build(t);
  const res = await h.post('/api/credit-configs', { name: 'Básico' });
  assert.equal(res.statusCode, 201, res.body);
  const p = json(res);
  assert.deepEqual(Object.keys(p).sort(), FIELDS);
  assert.equal(p.name, 'Básico');
  assert.equal(p.business_id, h.tenant.businessId);
  for (const [k, v] of Object.entries(DEFAULTS)) assert.deepEqual(p[k], v, k);
  assert.ok(
    !Number.isNaN(Date.parse(p.created_at)) && !Number.isNaN(Date.parse(p.updated_at)),
    'created_at and updated_at are dates',
  );

  // list and read show the same record
  const list = json(await h.get('/api/credit-configs', h.tenant.readKey));
  assert.deepEqual(list, [p]);
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`, h.tenant.readKey)), p);
});

test('every field can be set on creation; rates and the percentage keep their decimals', async (t) => {
  const h = await build(t);
  const body = {
    name: 'Completo',
    is_active: false,
    installments_count: 12,
    days_until_first_payment: 0,
    cut_type: 'monthly',
    daily_punitory_rate: 0.005,
    interest_rate: 0.123456,
    payment_day: 28,
    grace_days: 3,
    punitory_mode: 'compound',
    max_punitory_days: 90,
    punitory_cap_pct: 12.5,
    write_off_days: 180,
    amortization: 'french',
    vat_rate: 0.21,
    business_day_rule: 'next',
  };
  const res = await h.post('/api/credit-configs', body);
  assert.equal(res.statusCode, 201, res.body);
  const p = json(res);
  for (const [k, v] of Object.entries(body)) assert.equal(p[k], v, k);
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`)), p);

  // the bounds themselves are accepted
  for (const b of [
    { installments_count: 1 },
    { payment_day: 1 },
    { punitory_mode: 'full_amount' },
    { interest_rate: 0 },
    { interest_rate: 2.5 },
  ]) {
    const r = await h.post('/api/credit-configs', { name: 'b', ...b });
    assert.equal(r.statusCode, 201, `${JSON.stringify(b)}: ${r.body}`);
  }
});

const BAD_VALUES: [string, unknown][] = [
  ['installments_count', 0],
  ['installments_count', 13],
  ['installments_count', -1],
  ['installments_count', 1.5],
  ['installments_count', '3'],
  ['installments_count', null],
  ['installments_count', true],
  ['installments_count', 1e400],
  ['installments_count', 12.000001],
  ['payment_day', 0],
  ['payment_day', 29],
  ['payment_day', 10.5],
  ['payment_day', '10'],
  ['days_until_first_payment', -1],
  ['days_until_first_payment', 2.5],
  ['days_until_first_payment', 1e20],
  ['grace_days', -1],
  ['grace_days', 0.5],
  ['max_punitory_days', -1],
  ['max_punitory_days', 7.25],
  ['write_off_days', -1],
  ['write_off_days', 30.1],
  ['daily_punitory_rate', -0.001],
  ['daily_punitory_rate', '0.005'],
  ['daily_punitory_rate', 1e400],
  ['interest_rate', -1],
  ['interest_rate', '0.3'],
  ['interest_rate', null],
  ['interest_rate', 1e308],
  ['interest_rate', [0.3]],
  ['interest_rate', { v: 0.3 }],
  ['punitory_cap_pct', -5],
  ['punitory_cap_pct', '50'],
  ['cut_type', 'weekly'],
  ['cut_type', 'FIXED'],
  ['cut_type', null],
  ['punitory_mode', 'simple'],
  ['punitory_mode', 1],
  ['is_active', 'true'],
  ['is_active', 1],
  ['is_active', null],
  ['name', ''],
  ['name', '   '],
  ['name', 5],
  ['name', null],
  ['name', 'x'.repeat(10_000)],
  ['name', ['a']],
];

/** A JSON body with field set to value, written literally (1e400 overflows to Infinity when parsed). */
function bodyWith(field: string, value: unknown, base: Record<string, unknown>): string {
  const literal = value === Infinity ? '1e400' : JSON.stringify(value);
  const rest = JSON.stringify(base).slice(1, -1);
  return `{${rest}${rest ? ', ' : ''}${JSON.stringify(field)}: ${literal}}`;
}

test('out-of-range values, fractions in integer fields and wrong types are 400 and create nothing', async (t) => {
  const h = await build(t);
  for (const [field, value] of BAD_VALUES) {
    const payload = bodyWith(field, value, field === 'name' ? {} : { name: 'P' });
    const res = await h.req({
      method: 'POST',
      url: '/api/credit-configs',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400, `${field}=${JSON.stringify(value)}: ${res.body}`);
    const b = json(res);
    assert.equal(b.code, 'validation_failed');
    assert.equal(typeof b.error, 'string');
    assert.ok(Array.isArray(b.details) && b.details.length > 0, res.body);
  }
  for (const body of [
    {},
    { installments_count: 3 },
    { name: 'x', unknown: 1 },
    { name: 'x', sequential_id: 1 },
    [],
    'plan',
    7,
    null,
  ]) {
    const res = await h.req({
      method: 'POST',
      url: '/api/credit-configs',
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
  }
  assert.deepEqual(json(await h.get('/api/credit-configs')), []);
});

test('edit is a partial update; read-only fields sent back are ignored; an empty body changes nothing (docs/api.md "Edit a plan")', async (t) => {
  const h = await build(t);
  const p = json(await h.post('/api/credit-configs', { name: 'Plan', installments_count: 3, interest_rate: 0.2 }));

  const off = await h.put(`/api/credit-configs/${p.id}`, { is_active: false });
  assert.equal(off.statusCode, 200, off.body);
  const p2 = json(off);
  assert.equal(p2.is_active, false);
  assert.ok(
    Date.parse(p2.updated_at) >= Date.parse(p.updated_at),
    'holds: Date.parse(p2.updated_at) >= Date.parse(p.updated_at)',
  );
  for (const k of Object.keys(p)) if (!['is_active', 'updated_at'].includes(k)) assert.deepEqual(p2[k], p[k], k);

  const on = json(
    await h.put(`/api/credit-configs/${p.id}`, { is_active: true, payment_day: 5, punitory_cap_pct: 33.3 }),
  );
  assert.equal(on.is_active, true);
  assert.equal(on.payment_day, 5);
  assert.equal(on.punitory_cap_pct, 33.3);
  assert.equal(on.installments_count, 3);
  assert.equal(on.interest_rate, 0.2);

  // an empty body, or none at all, is a no-op that answers 200 with the whole plan
  for (const payload of ['{}', undefined]) {
    const res = await h.req({
      method: 'PUT',
      url: `/api/credit-configs/${p.id}`,
      ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : {}),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(json(res), on);
  }

  // a record read with GET can be PUT back whole, with changes; id, business_id, created_at and
  // updated_at sent back are ignored, even when they are wrong
  const whole = {
    ...on,
    name: 'Renamed',
    id: randomUUID(),
    business_id: randomUUID(),
    created_at: '2000-01-01T00:00:00Z',
    updated_at: '2000-01-01T00:00:00Z',
  };
  const res = await h.put(`/api/credit-configs/${p.id}`, whole);
  assert.equal(res.statusCode, 200, res.body);
  const p3 = json(res);
  assert.equal(p3.name, 'Renamed');
  assert.equal(p3.id, p.id);
  assert.equal(p3.business_id, h.tenant.businessId);
  assert.equal(p3.created_at, p.created_at);
  assert.notEqual(p3.updated_at, '2000-01-01T00:00:00.000Z');
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`)), p3);
  assert.equal(json(await h.get('/api/credit-configs')).length, 1);
});

test("a refused edit changes nothing; other businesses' plans and malformed ids are 404", async (t) => {
  const h = await build(t);
  const p = json(await h.post('/api/credit-configs', { name: 'Plan' }));
  for (const [field, value] of BAD_VALUES) {
    const payload = bodyWith(field, value, {});
    const res = await h.req({
      method: 'PUT',
      url: `/api/credit-configs/${p.id}`,
      payload,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400, `${field}=${JSON.stringify(value)}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
  }
  for (const body of [{ unknown: 1 }, [], 'x', 5]) {
    const res = await h.req({
      method: 'PUT',
      url: `/api/credit-configs/${p.id}`,
      payload: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
  }
  assert.deepEqual(json(await h.get(`/api/credit-configs/${p.id}`)), p);

  const other = await h.newTenant();
  const theirs = json(await h.post('/api/credit-configs', { name: 'Theirs' }, other.fullKey));
  for (const [method, url, body] of [
    ['GET', `/api/credit-configs/${theirs.id}`, undefined],
    ['PUT', `/api/credit-configs/${theirs.id}`, { is_active: false }],
    ['GET', `/api/credit-configs/${randomUUID()}`, undefined],
    ['PUT', `/api/credit-configs/${randomUUID()}`, {}],
    ['GET', '/api/credit-configs/not-a-uuid', undefined],
    ['PUT', '/api/credit-configs/12345', { name: 'x' }],
  ] as const) {
    const res = await h.req({ method, url, ...(body ? { payload: body } : {}) });
    assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    assert.equal(json(res).code, 'not_found');
  }
  assert.equal(json(await h.get(`/api/credit-configs/${theirs.id}`, other.fullKey)).is_active, true);
  assert.deepEqual(
    json(await h.get('/api/credit-configs')).map((x: { id: string }) => x.id),
    [p.id],
  );
});

test('plans are listed in creation order and only for their business; a read key may list but not write', async (t) => {
  const h = await build(t);
  const ids = [];
  for (const name of ['uno', 'dos', 'tres']) ids.push(json(await h.post('/api/credit-configs', { name })).id);
  const other = await h.newTenant();
  await h.post('/api/credit-configs', { name: 'ajeno' }, other.fullKey);
  const list = json(await h.get('/api/credit-configs', h.tenant.readKey));
  assert.deepEqual(
    list.map((p: { id: string }) => p.id),
    ids,
  );
  assert.ok(
    list.every((p: { business_id: string }) => p.business_id === h.tenant.businessId),
    "every plan listed is the business's own",
  );
  const w = await h.post('/api/credit-configs', { name: 'no' }, h.tenant.readKey);
  assert.equal(w.statusCode, 403);
  assert.equal(json(w).code, 'forbidden');
  const u = await h.put(`/api/credit-configs/${ids[0]}`, { name: 'no' }, h.tenant.readKey);
  assert.equal(u.statusCode, 403);
  assert.equal(json(await h.get(`/api/credit-configs/${ids[0]}`)).name, 'uno');
});

test('simulate refuses an amount of 0 or less as granting does: 422 on /amount, no talk of fees (docs/api.md "Simulate a schedule")', async (t) => {
  const h = await build(t);
  const plan = json(await h.post('/api/credit-configs', { name: 'sin comisiones', installments_count: 3 }));
  for (const amount of [0, -5]) {
    const res = await h.post(`/api/credit-configs/${plan.id}/simulate`, { amount });
    assert.equal(res.statusCode, 422, `simulate ${amount}: ${res.body}`);
    const body = json(res);
    assert.equal(body.code, 'unprocessable', `simulate ${amount}: ${res.body}`);
    assert.deepEqual(body.details, [{ path: '/amount', message: 'must be > 0' }], `simulate ${amount}: ${res.body}`);
    assert.doesNotMatch(body.error, /fee/, `a plan without fees refuses the amount, not a fee: ${res.body}`);
  }
  const ok = await h.post(`/api/credit-configs/${plan.id}/simulate`, { amount: 0.03 });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal(json(ok).total, 0.03);
});

test('a schedule rule that refuses the terms answers 422 unprocessable, the one code of a broken rule (API.md conventions)', async (t) => {
  const h = await build(t);
  const plan = json(
    await h.post('/api/credit-configs', { name: 'doce cuotas', installments_count: 12, interest_rate: 0 }),
  );
  // 0.06 over 12: 0.005 each rounds to 0.01, leaving −0.05 on the last (the rule amount_too_small)
  const sim = await h.post(`/api/credit-configs/${plan.id}/simulate`, { amount: 0.06 });
  assert.equal(sim.statusCode, 422, sim.body);
  assert.equal(json(sim).code, 'unprocessable', sim.body);
  assert.match(json(sim).error, /too small/, sim.body);
  const client = json(await h.post('/api/clients', { first_name: 'Ana', last_name: 'Paz', dni: '30111222' }));
  const grant = await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 0.06 });
  assert.equal(grant.statusCode, 422, grant.body);
  assert.equal(json(grant).code, 'unprocessable', grant.body);
  const credits = json(await h.get(`/api/clients/${client.id}/credits`));
  assert.equal((credits.items ?? credits).length, 0, 'the refused grant wrote no credit');
});
