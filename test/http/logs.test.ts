// The audit list, contract endpoint 7: filters table_name (alias table) and action, limit 1..100
// (default 50), offset >= 0, total of the matching rows, newest first with ties broken by id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { build, json, type Harness } from '../helpers/app.ts';

type Entry = {
  id: string;
  table_name: string;
  action: string;
  record_id: string;
  changed_at: string;
  business_id: string;
};

/** newest first; among entries of the same instant, the greater id first */
function assertOrdered(items: Entry[]) {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const ta = Date.parse(a.changed_at);
    const tb = Date.parse(b.changed_at);
    assert.ok(
      ta > tb || (ta === tb && a.id > b.id),
      `out of order at ${i}: ${a.changed_at} ${a.id} then ${b.changed_at} ${b.id}`,
    );
  }
}

/** 3 clients (one edited twice), 2 plans (one edited), 2 branches (one deleted): 11 rows. */
async function seed(h: Harness) {
  const c = [];
  for (const dni of ['1', '2', '3']) c.push(json(await h.post('/api/clients', { dni })));
  await h.put(`/api/clients/${c[0].id}`, { city: 'A' });
  await h.put(`/api/clients/${c[0].id}`, { city: 'B' });
  const p1 = json(await h.post('/api/credit-configs', { name: 'p1' }));
  await h.post('/api/credit-configs', { name: 'p2' });
  await h.put(`/api/credit-configs/${p1.id}`, { is_active: false });
  const b1 = json(await h.post('/api/branches', { name: 'b1' }));
  await h.post('/api/branches', { name: 'b2' });
  await h.del(`/api/branches/${b1.id}`);
  return { clients: c, p1, b1 };
}

test('the list pages the log newest first with the total of what matches', async (t) => {
  const h = await build(t);
  const { clients, b1 } = await seed(h);
  const all = json(await h.get('/api/logs', h.tenant.readKey));
  assert.deepEqual(Object.keys(all).sort(), ['items', 'limit', 'offset', 'total']);
  assert.equal(all.total, 11);
  assert.equal(all.limit, 50);
  assert.equal(all.offset, 0);
  assert.equal(all.items.length, 11);
  assertOrdered(all.items);
  // the newest is the branch delete, the oldest the first client's creation
  assert.equal(all.items[0].record_id, b1.id);
  assert.equal(all.items[0].action, 'UPDATE');
  assert.equal(all.items[10].record_id, clients[0].id);
  assert.equal(all.items[10].action, 'INSERT');

  // pages of 4 put together are the whole list, each page reporting the same total
  const pages: Entry[] = [];
  for (let offset = 0; offset < 12; offset += 4) {
    const p = json(await h.get(`/api/logs?limit=4&offset=${offset}`));
    assert.equal(p.total, 11);
    assert.equal(p.limit, 4);
    assert.equal(p.offset, offset);
    pages.push(...p.items);
  }
  assert.deepEqual(
    pages.map((e) => e.id),
    all.items.map((e: Entry) => e.id),
  );
  const beyond = json(await h.get('/api/logs?offset=500'));
  assert.deepEqual([beyond.items, beyond.total, beyond.offset], [[], 11, 500]);
});

test('filters: table_name, its alias table, action, and both together', async (t) => {
  const h = await build(t);
  await seed(h);
  const cases: [string, number, (e: Entry) => boolean][] = [
    ['table_name=clients', 5, (e) => e.table_name === 'clients'],
    ['table=clients', 5, (e) => e.table_name === 'clients'],
    ['table_name=credit_configs', 3, (e) => e.table_name === 'credit_configs'],
    ['table_name=branches', 3, (e) => e.table_name === 'branches'],
    ['action=INSERT', 7, (e) => e.action === 'INSERT'],
    ['action=UPDATE', 4, (e) => e.action === 'UPDATE'],
    ['action=DELETE', 0, () => false],
    ['table_name=clients&action=UPDATE', 2, (e) => e.table_name === 'clients' && e.action === 'UPDATE'],
    ['table=branches&action=UPDATE&limit=1', 1, (e) => e.table_name === 'branches' && e.action === 'UPDATE'],
    ['table_name=ledger', 0, () => false],
    ['table_name=no_such_table', 0, () => false],
  ];
  for (const [q, total, pred] of cases) {
    const r = json(await h.get(`/api/logs?${q}`));
    const expectedTotal = q.endsWith('limit=1') ? 1 : total;
    assert.equal(r.total, expectedTotal, q);
    assert.ok(r.items.length <= r.limit);
    assert.ok(r.items.every(pred), q);
    assertOrdered(r.items);
  }
});

test('limit defaults to 50 and goes from 1 to 100; bad query parameters are 400', async (t) => {
  const h = await build(t);
  // 60 rows: more than a default page
  for (let i = 0; i < 60; i++) await h.post('/api/branches', { name: `b${i}` });
  const def = json(await h.get('/api/logs'));
  assert.equal(def.total, 60);
  assert.equal(def.items.length, 50);
  assert.equal(def.limit, 50);
  assert.equal(json(await h.get('/api/logs?limit=100')).items.length, 60);
  assert.equal(json(await h.get('/api/logs?limit=1')).items.length, 1);
  assert.equal(json(await h.get('/api/logs?offset=55')).items.length, 5);
  assertOrdered(json(await h.get('/api/logs?limit=100')).items);

  for (const q of [
    'limit=0',
    'limit=101',
    'limit=-1',
    'limit=1.5',
    'limit=abc',
    'limit=',
    'limit=1e400',
    'offset=-1',
    'offset=0.5',
    'offset=x',
    'offset=99999999999999999999999',
    'action=insert',
    'action=TRUNCATE',
    'action=',
    'table_name=',
    `table_name=${'t'.repeat(64)}`,
    'record_id=nope',
    'unknown=1',
    'limit=10&limit=20',
  ]) {
    const res = await h.get(`/api/logs?${q}`);
    assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed', q);
    assert.equal(typeof json(res).error, 'string');
  }
});

test('entries of the same instant are ordered by id, on every page', async (t) => {
  const h = await build(t);
  await seed(h);
  // five rows written in one instant, later than anything else of this business
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const ids = Array.from({ length: 5 }, () => randomUUID());
  for (const id of ids) {
    await sql`INSERT INTO audit_log (business_id, id, table_name, action, record_id, new_data, actor, changed_at)
              VALUES (${h.tenant.businessId}, ${id}, 'clients', 'INSERT', ${randomUUID()}, '{}'::jsonb, 'test', ${at})`.execute(
      h.db.kysely,
    );
  }
  const expected = [...ids].sort().reverse();
  const first = json(await h.get('/api/logs?limit=5'));
  assert.deepEqual(
    first.items.map((e: Entry) => e.id),
    expected,
  );
  const paged = [
    ...json(await h.get('/api/logs?limit=2')).items,
    ...json(await h.get('/api/logs?limit=2&offset=2')).items,
    ...json(await h.get('/api/logs?limit=1&offset=4')).items,
  ];
  assert.deepEqual(
    paged.map((e: Entry) => e.id),
    expected,
  );
  assertOrdered(json(await h.get('/api/logs?limit=100')).items);
});
