import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../../helpers/app.ts';

test('create, read, list and edit a client', async (t) => {
  const h = await build(t);
  const res = await h.post('/api/clients', {
    dni: '30111222',
    first_name: 'Ana',
    last_name: 'Gómez',
    email: 'ana@example.com',
    sex: 'f',
  });
  assert.equal(res.statusCode, 201, res.body);
  const c = json(res);
  assert.equal(c.dni, '30111222');
  assert.equal(c.business_id, h.tenant.businessId);

  const detail = json(await h.get(`/api/clients/${c.id}`, h.tenant.readKey));
  assert.deepEqual(detail.client, c);
  assert.deepEqual([detail.credits, detail.installments, detail.ledgerEntries, detail.files], [[], [], [], []]);

  const page = json(await h.get('/api/clients?q=gom'));
  assert.equal(page.total, 1);
  assert.equal(page.items[0].id, c.id);
  assert.equal(json(await h.get('/api/clients?q=3011')).total, 1);
  assert.equal(json(await h.get('/api/clients?q=zzz')).total, 0);

  const edited = await h.put(`/api/clients/${c.id}`, { ...c, city: 'Córdoba' });
  assert.equal(edited.statusCode, 200, edited.body);
  assert.equal(json(edited).city, 'Córdoba');
  assert.equal(json(edited).first_name, 'Ana');
});

test('a duplicate dni is a 409 and changes nothing', async (t) => {
  const h = await build(t);
  assert.equal((await h.post('/api/clients', { dni: '1' })).statusCode, 201);
  const dup = await h.post('/api/clients', { dni: '1', first_name: 'X' });
  assert.equal(dup.statusCode, 409);
  assert.equal(json(dup).code, 'conflict');
  assert.equal(json(await h.get('/api/clients')).total, 1);
});

test('bad bodies are 400 validation_failed with details', async (t) => {
  const h = await build(t);
  for (const body of [
    {},
    { dni: 5 },
    { dni: '1', sex: 'x' },
    { dni: '1', email: 'nope' },
    { dni: '1', unknown: 1 },
    { dni: '   ' },
  ]) {
    const res = await h.post('/api/clients', body);
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.equal(json(res).code, 'validation_failed');
    assert.ok(Array.isArray(json(res).details), 'holds: Array.isArray(json(res).details)');
  }
  const malformed = await h.req({
    method: 'POST',
    url: '/api/clients',
    payload: '{"dni": ',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(malformed.statusCode, 400);
  assert.equal(json(malformed).code, 'validation_failed');
  assert.equal(json(await h.get('/api/clients')).total, 0);
});

test('concurrent creations with one dni: exactly one 201, the others 409, never a 500', async (t) => {
  const h = await build(t);
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => h.post('/api/clients', { dni: '4242', first_name: `n${i}` })),
  );
  const codes = results.map((r) => r.statusCode).sort();
  assert.deepEqual(codes, [201, 409, 409, 409, 409, 409], results.map((r) => r.body).join('\n'));
  for (const r of results.filter((x) => x.statusCode === 409)) assert.equal(json(r).code, 'conflict');
  assert.equal(json(await h.get('/api/clients?q=4242')).total, 1);
});

test('clients of another business, unknown and malformed ids are 404; edits to them change nothing', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const theirs = json(await h.post('/api/clients', { dni: '55' }, other.fullKey));
  for (const [method, url] of [
    ['GET', `/api/clients/${theirs.id}`],
    ['PUT', `/api/clients/${theirs.id}`],
    ['PUT', '/api/clients/not-a-uuid'],
    ['GET', '/api/clients/00000000-0000-0000-0000-000000000000'],
  ] as const) {
    const r = await h.req({ method, url, ...(method === 'PUT' ? { payload: { city: 'hijacked' } } : {}) });
    assert.equal(r.statusCode, 404, `${method} ${url}`);
    assert.equal(json(r).code, 'not_found');
  }
  assert.equal(json(await h.get(`/api/clients/${theirs.id}`, other.readKey)).client.city, null);
  assert.equal(json(await h.get('/api/clients')).total, 0);
  // and the list never shows them, whatever the search
  assert.equal(json(await h.get('/api/clients?q=55')).total, 0);
});
