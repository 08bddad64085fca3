import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';

test('create, read, list and edit a client', async (t) => {
  const h = await build(t);
  const res = await h.post('/api/clients', { dni: '30111222', first_name: 'Ana', last_name: 'Gómez', email: 'ana@example.com', sex: 'f' });
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
  for (const body of [{}, { dni: 5 }, { dni: '1', sex: 'x' }, { dni: '1', email: 'nope' }, { dni: '1', unknown: 1 }, { dni: '   ' }]) {
    const res = await h.post('/api/clients', body);
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.equal(json(res).code, 'validation_failed');
    assert.ok(Array.isArray(json(res).details));
  }
  const malformed = await h.req({ method: 'POST', url: '/api/clients', payload: '{"dni": ', headers: { 'content-type': 'application/json' } });
  assert.equal(malformed.statusCode, 400);
  assert.equal(json(malformed).code, 'validation_failed');
  assert.equal(json(await h.get('/api/clients')).total, 0);
});
