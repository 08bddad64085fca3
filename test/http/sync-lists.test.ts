// Lists for synchronisation (docs/api.md): `updated_since` (RFC 3339) on
// GET /api/clients and GET /api/credits → only records with updated_at ≥ it, oldest first; GET
// /api/logs keeps items/total/limit/offset and adds `next_cursor`, `?cursor=` continues newest first
// with no skips or repeats while writes happen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type Harness } from '../helpers/app.ts';
import { auditLog, client, credit, error, json, plan, sleep, status } from '../helpers/acceptance.ts';

/** GET url: asserted 200, the JSON body. */
async function getJson(h: Harness, url: string, key?: string): Promise<any> {
  const res = await h.get(url, key);
  status(res, 200, `GET ${url}`);
  return json(res);
}

/** The same instant written with a +02:00 offset. */
function withOffset(iso: string): string {
  const d = new Date(Date.parse(iso) + 2 * 3_600_000);
  const ms = String(d.getUTCMilliseconds()).padStart(3, '0');
  return `${d.toISOString().slice(0, 19)}.${ms}+02:00`;
}

test('clients?updated_since: records updated at or after it, oldest first, paged', async (t) => {
  const h = await build(t);
  const a = await client(h);
  await sleep(5);
  const b = await client(h);
  await sleep(5);
  const c = await client(h);
  await sleep(5);
  status(await h.put(`/api/clients/${a.id}`, { last_name: 'Changed' }), 200);

  const res = await h.get(`/api/clients?updated_since=${encodeURIComponent(b.updated_at)}`);
  status(res, 200);
  const list = json(res);
  assert.deepEqual(
    list.items.map((x: any) => x.id),
    [b.id, c.id, a.id],
    'b (updated_at equal: included), c, then a (updated last)',
  );
  assert.equal(list.total, 3);
  assert.equal(list.offset, 0);
  for (let i = 1; i < list.items.length; i++)
    assert.ok(Date.parse(list.items[i].updated_at) >= Date.parse(list.items[i - 1].updated_at), 'oldest first');

  // the same instant with another offset
  const offset = await getJson(h, `/api/clients?updated_since=${encodeURIComponent(withOffset(b.updated_at))}`);
  assert.deepEqual(
    offset.items.map((x: any) => x.id),
    [b.id, c.id, a.id],
  );
  // paging keeps the order
  const p1 = await getJson(h, `/api/clients?updated_since=${encodeURIComponent(b.updated_at)}&limit=2`);
  const p2 = await getJson(h, `/api/clients?updated_since=${encodeURIComponent(b.updated_at)}&limit=2&offset=2`);
  assert.deepEqual(
    [...p1.items, ...p2.items].map((x: any) => x.id),
    [b.id, c.id, a.id],
  );
  assert.equal(p1.total, 3);
  // after the last update: only a
  const last = await getJson(h, `/api/clients?updated_since=${encodeURIComponent(list.items[2].updated_at)}`);
  assert.deepEqual(
    last.items.map((x: any) => x.id),
    [a.id],
  );
  // in the future: nothing
  const none = await getJson(h, `/api/clients?updated_since=${encodeURIComponent('2999-01-01T00:00:00Z')}`);
  assert.deepEqual([none.items, none.total], [[], 0]);

  for (const bad of ['yesterday', '2025-01-01T25:00:00Z', '2025-13-01T00:00:00Z'])
    error(await h.get(`/api/clients?updated_since=${encodeURIComponent(bad)}`), 400, 'validation_failed', bad);
  // another business's records never show
  const other = await h.newTenant();
  const theirs = await getJson(h, `/api/clients?updated_since=${encodeURIComponent(a.created_at)}`, other.fullKey);
  assert.equal(theirs.total, 0);
});

test('credits?updated_since: a status change moves a credit to the end; combines with other filters', async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2 });
  const c = await client(h);
  const x = await credit(h, c.id, { credit_config_id: p.id, amount: 100 });
  await sleep(5);
  const y = await credit(h, c.id, { credit_config_id: p.id, amount: 200 });
  await sleep(5);
  status(await h.post(`/api/credits/${x.credit.id}/cancel`), 200);

  const since = encodeURIComponent(x.credit.updated_at);
  const all = await getJson(h, `/api/credits?updated_since=${since}`);
  assert.deepEqual(
    all.items.map((i: any) => i.id),
    [y.credit.id, x.credit.id],
    'y, then x (cancelled after y was created)',
  );
  assert.equal(all.items[1].status, 'inactive');
  const fromY = await getJson(h, `/api/credits?updated_since=${encodeURIComponent(y.credit.updated_at)}`);
  assert.deepEqual(
    fromY.items.map((i: any) => i.id),
    [y.credit.id, x.credit.id],
  );
  const inactive = await getJson(h, `/api/credits?updated_since=${since}&status=inactive`);
  assert.deepEqual(
    inactive.items.map((i: any) => i.id),
    [x.credit.id],
  );
  const mine = await getJson(h, `/api/credits?updated_since=${since}&client_id=${c.id}&limit=1`);
  assert.deepEqual([mine.items.map((i: any) => i.id), mine.total], [[y.credit.id], 2]);
  error(await h.get('/api/credits?updated_since=soon'), 400, 'validation_failed');
});

test('logs: next_cursor pages newest first with no skips or repeats while writes happen', async (t) => {
  const h = await build(t);
  for (let i = 0; i < 12; i++) await client(h, { first_name: `c${i}` });
  // what the log holds now, read with offsets while nothing is written
  const snapshot = (await auditLog(h)).map((e) => e.id);
  assert.ok(snapshot.length >= 12, 'holds: snapshot.length >= 12');

  const walked: any[] = [];
  let res = await h.get('/api/logs?limit=5');
  status(res, 200);
  let list = json(res);
  for (const k of ['items', 'total', 'limit', 'offset', 'next_cursor']) assert.ok(k in list, `page field ${k}`);
  assert.equal(list.limit, 5);
  for (let guard = 0; ; guard++) {
    assert.ok(guard < 50, 'the walk ends');
    walked.push(...list.items);
    if (!list.next_cursor || list.items.length === 0) break;
    assert.equal(typeof list.next_cursor, 'string');
    // writes between pages: new entries land at the head, the walk goes on from where it was
    await client(h, { first_name: `during${guard}` });
    await h.put(`/api/clients/${list.items[0].record_id}`, { last_name: `touched${guard}` });
    res = await h.get(`/api/logs?limit=5&cursor=${encodeURIComponent(list.next_cursor)}`);
    status(res, 200, 'cursor list');
    list = json(res);
    assert.ok(list.items.length <= 5, 'holds: list.items.length <= 5');
  }
  const ids = walked.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, 'no repeats');
  assert.deepEqual(ids, snapshot, 'exactly the entries that existed when the walk began, newest first');
  for (let i = 1; i < walked.length; i++)
    assert.ok(Date.parse(walked[i].changed_at) <= Date.parse(walked[i - 1].changed_at), 'newest first');

  // a cursor with a filter: only that table, still complete
  const clientsOnly = (await auditLog(h, 'table_name=clients&action=INSERT')).map((e) => e.id);
  const filtered: string[] = [];
  let q = 'table_name=clients&action=INSERT&limit=4';
  for (let guard = 0; guard < 50; guard++) {
    const p = await getJson(h, `/api/logs?${q}`);
    filtered.push(...p.items.map((e: any) => e.id));
    assert.ok(
      p.items.every((e: any) => e.table_name === 'clients' && e.action === 'INSERT'),
      "every e of p.items: e.table_name === 'clients' && e.action === 'INSERT'",
    );
    if (!p.next_cursor || p.items.length === 0) break;
    // ASSUMPTION: the filters are sent again with the cursor
    q = `table_name=clients&action=INSERT&limit=4&cursor=${encodeURIComponent(p.next_cursor)}`;
  }
  assert.deepEqual(filtered, clientsOnly);

  error(await h.get('/api/logs?cursor=not-a-cursor'), 400, 'validation_failed');
});
