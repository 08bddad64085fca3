// Branches: the list (deleted_at on every record) and the extensions create, edit and
// soft delete.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { build, json } from '../../../helpers/app.ts';

const FIELDS = ['address', 'business_id', 'created_at', 'deleted_at', 'id', 'name', 'phone', 'updated_at'];

test('create, list, edit and soft-delete a branch', async (t) => {
  const h = await build(t);
  assert.deepEqual(json(await h.get('/api/branches', h.tenant.readKey)), []);

  const res = await h.post('/api/branches', { name: '  Centro  ', address: 'San Martín 100', phone: '+54 11 5555' });
  assert.equal(res.statusCode, 201, res.body);
  const b = json(res);
  assert.deepEqual(Object.keys(b).sort(), FIELDS);
  assert.equal(b.name, 'Centro');
  assert.equal(b.address, 'San Martín 100');
  assert.equal(b.business_id, h.tenant.businessId);
  assert.equal(b.deleted_at, null);
  const bare = json(await h.post('/api/branches', { name: 'Norte' }));
  // the contract types address and phone as string (not nullable): unknown is ""
  assert.equal(bare.address, '');
  assert.equal(bare.phone, '');

  const list = json(await h.get('/api/branches', h.tenant.readKey));
  assert.deepEqual(list, [b, bare]);
  for (const x of list) assert.ok('deleted_at' in x, 'x has deleted_at');

  // partial update
  const ed = await h.put(`/api/branches/${b.id}`, { phone: null });
  assert.equal(ed.statusCode, 200, ed.body);
  assert.equal(json(ed).phone, ''); // cleared
  assert.equal(json(ed).address, 'San Martín 100');
  assert.equal(json(ed).name, 'Centro');

  // a record read back whole: read-only fields and deleted_at are ignored
  const whole = {
    ...json(ed),
    name: 'Centro 2',
    id: randomUUID(),
    business_id: randomUUID(),
    created_at: '2001-01-01T00:00:00Z',
    deleted_at: '2001-01-01T00:00:00Z',
  };
  const w = json(await h.put(`/api/branches/${b.id}`, whole));
  assert.equal(w.name, 'Centro 2');
  assert.equal(w.id, b.id);
  assert.equal(w.business_id, h.tenant.businessId);
  assert.equal(w.created_at, b.created_at);
  assert.equal(w.deleted_at, null);

  // soft delete: 200 with deleted_at; the branch stays in the list; deleting again keeps the first time
  const del = await h.del(`/api/branches/${b.id}`);
  assert.equal(del.statusCode, 200, del.body);
  const d = json(del);
  assert.ok(
    d.deleted_at && !Number.isNaN(Date.parse(d.deleted_at)),
    'holds: d.deleted_at && !Number.isNaN(Date.parse(d.deleted_at))',
  );
  assert.equal(d.name, 'Centro 2');
  const after = json(await h.get('/api/branches'));
  assert.equal(after.length, 2);
  assert.equal(after.find((x: { id: string }) => x.id === b.id).deleted_at, d.deleted_at);
  assert.equal(after.find((x: { id: string }) => x.id === bare.id).deleted_at, null);
  const again = await h.del(`/api/branches/${b.id}`);
  assert.equal(again.statusCode, 200);
  assert.equal(json(again).deleted_at, d.deleted_at);

  // a deleted branch is not edited any more
  const late = await h.put(`/api/branches/${b.id}`, { name: 'zombie' });
  assert.equal(late.statusCode, 409, late.body);
  assert.equal(json(late).code, 'conflict');
  assert.equal(json(await h.get('/api/branches')).find((x: { id: string }) => x.id === b.id).name, 'Centro 2');
});

test("bad branch bodies are 400; other businesses' branches and malformed ids are 404; read keys cannot write", async (t) => {
  const h = await build(t);
  const b = json(await h.post('/api/branches', { name: 'Mine' }));
  for (const body of [
    {},
    { name: '' },
    { name: '   ' },
    { name: 5 },
    { name: null },
    { name: 'x', address: 5 },
    { name: 'x', phone: ['1'] },
    { name: 'x', extra: true },
    { name: 'x'.repeat(201) },
    [],
  ]) {
    const res = await h.post('/api/branches', body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
  }
  for (const body of [{ name: '' }, { name: 7 }, { address: { a: 1 } }, { nope: 1 }]) {
    const res = await h.put(`/api/branches/${b.id}`, body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
  }
  assert.deepEqual(json(await h.get('/api/branches')), [b]);

  const other = await h.newTenant();
  const theirs = json(await h.post('/api/branches', { name: 'Theirs' }, other.fullKey));
  assert.deepEqual(
    json(await h.get('/api/branches', other.readKey)).map((x: { id: string }) => x.id),
    [theirs.id],
  );
  for (const [method, url] of [
    ['PUT', `/api/branches/${theirs.id}`],
    ['DELETE', `/api/branches/${theirs.id}`],
    ['PUT', `/api/branches/${randomUUID()}`],
    ['DELETE', `/api/branches/${randomUUID()}`],
    ['DELETE', '/api/branches/not-a-uuid'],
    ['PUT', '/api/branches/1'],
  ] as const) {
    const res = await h.req({ method, url, ...(method === 'PUT' ? { payload: { name: 'hijack' } } : {}) });
    assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    assert.equal(json(res).code, 'not_found');
  }
  const mine = json(await h.get('/api/branches', other.readKey))[0];
  assert.equal(mine.name, 'Theirs');
  assert.equal(mine.deleted_at, null);

  for (const [method, url] of [
    ['POST', '/api/branches'],
    ['PUT', `/api/branches/${b.id}`],
    ['DELETE', `/api/branches/${b.id}`],
  ] as const) {
    const res = await h.req({
      method,
      url,
      key: h.tenant.readKey,
      ...(method === 'DELETE' ? {} : { payload: { name: 'r' } }),
    });
    assert.equal(res.statusCode, 403, `${method} ${url}`);
    assert.equal(json(res).code, 'forbidden');
  }
  assert.deepEqual(json(await h.get('/api/branches')), [b]);
});
