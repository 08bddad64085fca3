// Clients' CUIT/CUIL (docs/api.md): optional, 11 digits answered without dashes, written
// with or without them, a wrong check digit is a 400 naming /cuit, unique within the business.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../../helpers/app.ts';

// 20-12345678-6 (the worked example of docs/domain.md), 27-30123456-8, 33-69345023-9 (the tax authority's own)
const A = '20123456786';
const B = '27301234568';

test('a cuit on create, on every read, changed by a partial update and cleared by null', async (t) => {
  const h = await build(t);
  const res = await h.post('/api/clients', { dni: '12345678', first_name: 'Juan', cuit: '20-12345678-6' });
  assert.equal(res.statusCode, 201, res.body);
  const c = json(res);
  assert.equal(c.cuit, A);
  assert.equal(json(await h.get(`/api/clients/${c.id}`)).client.cuit, A);
  assert.equal(json(await h.get('/api/clients')).items[0].cuit, A);

  // without one: null
  const plain = json(await h.post('/api/clients', { dni: '30123456' }));
  assert.equal(plain.cuit, null);
  assert.ok('cuit' in plain, 'plain has cuit');

  // partial: other fields keep theirs, a body without cuit keeps it
  const ed = await h.put(`/api/clients/${plain.id}`, { cuit: B });
  assert.equal(ed.statusCode, 200, ed.body);
  assert.equal(json(ed).cuit, B);
  assert.equal(json(ed).dni, '30123456');
  assert.equal(json(await h.put(`/api/clients/${plain.id}`, { city: 'Rosario' })).cuit, B);
  // a record read back whole and PUT again changes nothing
  const whole = json(await h.get(`/api/clients/${plain.id}`)).client;
  assert.equal(json(await h.put(`/api/clients/${plain.id}`, whole)).cuit, B);
  // written with dashes, stored without
  assert.equal(json(await h.put(`/api/clients/${plain.id}`, { cuit: '33-69345023-9' })).cuit, '33693450239');
  const cleared = await h.put(`/api/clients/${plain.id}`, { cuit: null });
  assert.equal(cleared.statusCode, 200, cleared.body);
  assert.equal(json(cleared).cuit, null);
  assert.equal(json(await h.get(`/api/clients/${plain.id}`)).client.cuit, null);

  // the database holds the digits alone
  const rows = await h.db.kysely
    .selectFrom('clients')
    .select(['id', 'cuit'])
    .where('business_id', '=', h.tenant.businessId)
    .orderBy('dni')
    .execute();
  assert.deepEqual(
    rows.map((r) => r.cuit),
    [A, null],
  );

  // the audit log has the change
  const log = json(await h.get(`/api/logs?table_name=clients&record_id=${plain.id}&action=UPDATE`));
  assert.ok(
    log.items.some((e: { new_data: { cuit: string | null } }) => e.new_data.cuit === B),
    'the audit log has the CUIT change',
  );
});

test('a cuit that is not one is 400 validation_failed naming /cuit, on create and on update', async (t) => {
  const h = await build(t);
  const c = json(await h.post('/api/clients', { dni: '1', cuit: A }));
  for (const cuit of [
    '20123456787', // wrong check digit
    '20-12345678-7',
    '20000000010', // a check digit of 10: no such CUIT
    '2012345678',
    '201234567860',
    '20-123456786',
    '20 12345678 6',
    ' 20123456786',
    '',
    'abcdefghijk',
    20123456786,
    true,
  ]) {
    for (const res of [
      await h.post('/api/clients', { dni: '2', cuit }),
      await h.put(`/api/clients/${c.id}`, { cuit }),
    ]) {
      assert.equal(res.statusCode, 400, `${JSON.stringify(cuit)}: ${res.body}`);
      const body = json(res);
      assert.equal(body.code, 'validation_failed');
      assert.ok(
        body.details.some((d: { path: string }) => d.path === '/cuit'),
        `${JSON.stringify(cuit)}: ${res.body}`,
      );
    }
  }
  const wrong = json(await h.post('/api/clients', { dni: '2', cuit: '20123456787' }));
  assert.match(wrong.details[0].message, /check digit/);
  assert.equal(json(await h.get('/api/clients')).total, 1);
  assert.equal(json(await h.get(`/api/clients/${c.id}`)).client.cuit, A);
});

test('a cuit is unique within the business (409), not across businesses', async (t) => {
  const h = await build(t);
  const first = json(await h.post('/api/clients', { dni: '1', cuit: A }));
  const other = json(await h.post('/api/clients', { dni: '2' }));
  for (const cuit of [A, '20-12345678-6']) {
    const dup = await h.post('/api/clients', { dni: '3', cuit });
    assert.equal(dup.statusCode, 409, dup.body);
    assert.equal(json(dup).code, 'conflict');
    const upd = await h.put(`/api/clients/${other.id}`, { cuit });
    assert.equal(upd.statusCode, 409, upd.body);
  }
  // its own cuit again is no conflict
  assert.equal((await h.put(`/api/clients/${first.id}`, { cuit: '20-12345678-6' })).statusCode, 200);
  assert.equal(json(await h.get('/api/clients')).total, 2);
  assert.equal(json(await h.get(`/api/clients/${other.id}`)).client.cuit, null);

  // another business may have a client with the same cuit, and never sees this one
  const theirs = await h.newTenant();
  const res = await h.post('/api/clients', { dni: '1', cuit: A }, theirs.fullKey);
  assert.equal(res.statusCode, 201, res.body);
  assert.equal(json(await h.get(`/api/clients?q=${A.slice(0, 4)}`, theirs.readKey)).total, 1);
  assert.notEqual(json(res).id, first.id);

  // cleared, it is free again
  await h.put(`/api/clients/${first.id}`, { cuit: null });
  assert.equal((await h.put(`/api/clients/${other.id}`, { cuit: A })).statusCode, 200);
  // many clients have none
  assert.equal((await h.post('/api/clients', { dni: '4', cuit: null })).statusCode, 201);
  assert.equal((await h.post('/api/clients', { dni: '5' })).statusCode, 201);
});

test('concurrent creations with one cuit: exactly one 201, the others 409', async (t) => {
  const h = await build(t);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => h.post('/api/clients', { dni: `c${i}`, cuit: B })),
  );
  assert.deepEqual(
    results.map((r) => r.statusCode).sort(),
    [201, 409, 409, 409, 409],
    results.map((r) => r.body).join('\n'),
  );
});

test('q finds a cuit prefix, with or without dashes', async (t) => {
  const h = await build(t);
  const c = json(await h.post('/api/clients', { dni: '99', first_name: 'Eva', cuit: B }));
  await h.post('/api/clients', { dni: '88', first_name: 'Otro' });
  for (const q of ['2730', '27-3012', '27301234568', '27-30123456-8']) {
    const page = json(await h.get(`/api/clients?q=${encodeURIComponent(q)}`));
    assert.deepEqual(
      page.items.map((x: { id: string }) => x.id),
      [c.id],
      q,
    );
  }
  assert.equal(json(await h.get('/api/clients?q=2731')).total, 0);
  assert.equal(json(await h.get('/api/clients?q=-')).total, 0);
});
