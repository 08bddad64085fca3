// GET /api/payment-imports (docs/payments.md, "Importing payments"): the business's imports, newest
// first, by offset or by cursor, narrowed by status; another business's imports never show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, json, type Harness } from '../../../helpers/app.ts';

const FILE = 'credit,amount,paid_on,method,channel,external_reference\n999999,10,,,,\n';

async function imported(h: Harness, key?: string): Promise<any> {
  const res = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    payload: FILE,
    headers: { 'content-type': 'text/csv' },
    ...(key ? { key } : {}),
  });
  assert.equal(res.statusCode, 202, res.body);
  const id = json(res).id;
  for (let k = 0; k < 400; k++) {
    const r = json(await h.req({ method: 'GET', url: `/api/payment-imports/${id}`, ...(key ? { key } : {}) }));
    if (r.status !== 'running') return r;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error('the import did not finish');
}

test('the list of imports: newest first, by offset and by cursor, with status, counts and no other business', async (t) => {
  const h = await build(t);
  const made: any[] = [];
  for (let k = 0; k < 5; k++) made.push(await imported(h));
  const newestFirst = made.map((i) => i.id).reverse();

  // one page of everything
  const all = json(await h.get('/api/payment-imports'));
  assert.deepEqual(
    all.items.map((i: any) => i.id),
    newestFirst,
  );
  assert.deepEqual([all.total, all.limit, all.offset, all.next_cursor], [5, 50, 0, null]);
  assert.deepEqual(all.items[0], made[4], 'each item is the import as GET /api/payment-imports/{id} gives it');
  assert.deepEqual(
    [all.items[0].status, all.items[0].lines, all.items[0].accepted, all.items[0].rejected, all.items[0].duplicates],
    ['done', 1, 0, 1, 0],
  );

  // by cursor, two at a time: every import once, in order
  const walked: string[] = [];
  const offsets: number[] = [];
  let url = '/api/payment-imports?limit=2';
  for (let pages = 0; pages < 10; pages++) {
    const r = await h.get(url);
    assert.equal(r.statusCode, 200, r.body);
    const page = json(r);
    assert.equal(page.total, 5);
    offsets.push(page.offset);
    walked.push(...page.items.map((i: any) => i.id));
    if (page.next_cursor === null) break;
    url = `/api/payment-imports?limit=2&cursor=${page.next_cursor}`;
  }
  assert.deepEqual(walked, newestFirst);
  assert.deepEqual(offsets, [0, 2, 4]);

  // a new import while walking: the pages to come keep their place
  const first = json(await h.get('/api/payment-imports?limit=2'));
  const newer = await imported(h);
  const rest = json(await h.get(`/api/payment-imports?limit=10&cursor=${first.next_cursor}`));
  assert.deepEqual(
    rest.items.map((i: any) => i.id),
    newestFirst.slice(2),
  );
  assert.equal(rest.total, 6);
  assert.equal(json(await h.get('/api/payment-imports?limit=1')).items[0].id, newer.id);

  // by offset
  const second = json(await h.get('/api/payment-imports?limit=2&offset=2'));
  assert.deepEqual(
    second.items.map((i: any) => i.id),
    [newestFirst[1], newestFirst[2]],
  );

  // status narrows; a cursor belongs to its status
  assert.equal(json(await h.get('/api/payment-imports?status=done')).total, 6);
  assert.equal(json(await h.get('/api/payment-imports?status=running')).total, 0);
  const other = await h.get(`/api/payment-imports?status=done&cursor=${first.next_cursor}`);
  assert.equal(other.statusCode, 400, other.body);
  assert.equal(json(other).details[0].path, '/cursor');

  // bad input: 400, naming what
  for (const [q, path] of [
    ['cursor=abc', '/cursor'],
    [`cursor=${first.next_cursor}x`, '/cursor'],
    [`cursor=${first.next_cursor}&offset=2`, '/offset'],
  ] as const) {
    const r = await h.get(`/api/payment-imports?${q}`);
    assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
    assert.equal(json(r).details[0].path, path, q);
  }
  for (const q of ['status=pending', 'limit=0', 'limit=101', 'offset=-1', 'nope=1']) {
    const r = await h.get(`/api/payment-imports?${q}`);
    assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
  }

  // a read key reads the list, as it reads an import
  const read = await h.get('/api/payment-imports?limit=1', h.tenant.readKey);
  assert.equal(read.statusCode, 200, read.body);
  assert.equal(json(read).total, 6);

  // another business: its own imports only, and our cursor is not its
  const b = await h.newTenant();
  assert.deepEqual(json(await h.get('/api/payment-imports', b.fullKey)).items, []);
  const theirs = await imported(h, b.fullKey);
  const seen = json(await h.get('/api/payment-imports', b.fullKey));
  assert.deepEqual(
    seen.items.map((i: any) => i.id),
    [theirs.id],
  );
  const crossed = await h.get(`/api/payment-imports?cursor=${first.next_cursor}`, b.fullKey);
  assert.equal(crossed.statusCode, 400, crossed.body);
  assert.equal(json(await h.get('/api/payment-imports')).total, 6, 'theirs is not ours');
  assert.equal((await h.get(`/api/payment-imports/${theirs.id}`)).statusCode, 404);
});

test('a cursor carries its status: alone it continues that status, another status is 400', async (t) => {
  const h = await build(t);
  const made: any[] = [];
  for (let k = 0; k < 6; k++) made.push(await imported(h));
  // three of them failed (set past the service: a file that cannot be processed is rare by design)
  const failed = [made[0].id, made[2].id, made[3].id];
  await sql`UPDATE payment_imports SET status = 'failed' WHERE business_id = ${h.tenant.businessId}
            AND id IN (${sql.join(failed)})`.execute(h.db.kysely);
  const newestFirst = made.map((i) => i.id).reverse();

  for (const status of ['failed', 'done'] as const) {
    const want = newestFirst.filter((id) => failed.includes(id) === (status === 'failed'));
    // the first page with its status, then each cursor alone
    const alone: any[] = [json(await h.get(`/api/payment-imports?limit=1&status=${status}`))];
    while (alone.at(-1).next_cursor !== null && alone.length < 10) {
      const r = await h.get(`/api/payment-imports?limit=1&cursor=${alone.at(-1).next_cursor}`);
      assert.equal(r.statusCode, 200, `the cursor alone continues status=${status}: ${r.body}`);
      alone.push(json(r));
    }
    // the same walk with the status repeated
    const repeated: any[] = [json(await h.get(`/api/payment-imports?limit=1&status=${status}`))];
    while (repeated.at(-1).next_cursor !== null && repeated.length < 10) {
      const r = await h.get(`/api/payment-imports?limit=1&status=${status}&cursor=${repeated.at(-1).next_cursor}`);
      assert.equal(r.statusCode, 200, r.body);
      repeated.push(json(r));
    }
    assert.deepEqual(
      alone.flatMap((p) => p.items.map((i: any) => i.id)),
      want,
      `status=${status}: each of its imports once, newest first, no other`,
    );
    assert.ok(
      alone.every((p) => p.items.every((i: any) => i.status === status)),
      `status=${status}: every item of the walk has it`,
    );
    assert.deepEqual(
      alone.map((p) => [p.offset, p.total, p.items.map((i: any) => i.id)]),
      repeated.map((p) => [p.offset, p.total, p.items.map((i: any) => i.id)]),
      `status=${status}: the same pages, offsets and totals as with the status repeated`,
    );
    assert.ok(
      alone.every((p) => p.total === want.length),
      `status=${status}: total ${alone.map((p) => p.total)} is ${want.length} on every page`,
    );
  }

  // given with another status, or a status to a cursor of them all: 400 on /cursor
  const ofFailed = json(await h.get('/api/payment-imports?limit=1&status=failed')).next_cursor;
  const ofAll = json(await h.get('/api/payment-imports?limit=1')).next_cursor;
  for (const q of [
    `status=done&cursor=${ofFailed}`,
    `status=running&cursor=${ofFailed}`,
    `status=failed&cursor=${ofAll}`,
  ]) {
    const r = await h.get(`/api/payment-imports?${q}`);
    assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
    assert.equal(json(r).code, 'validation_failed', q);
    assert.equal(json(r).details[0].path, '/cursor', q);
    assert.match(json(r).error, /another listing/, q);
  }
  // another business, alone or with the status: 400 as well
  const b = await h.newTenant();
  for (const q of [`cursor=${ofFailed}`, `status=failed&cursor=${ofFailed}`]) {
    const r = await h.get(`/api/payment-imports?${q}`, b.fullKey);
    assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
    assert.equal(json(r).details[0].path, '/cursor', q);
  }
  // a status the cursor carries is checked as the query's would be
  const [v, scope, at, id, position] = JSON.parse(Buffer.from(ofFailed, 'base64url').toString());
  const forge = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
  for (const carried of [['pending'], [], ['failed', null], [7]]) {
    const r = await h.get(`/api/payment-imports?cursor=${forge([v, scope, at, id, position, carried])}`);
    assert.equal(r.statusCode, 400, `${JSON.stringify(carried)}: ${r.body}`);
    assert.equal(json(r).details[0].path, '/cursor');
  }
});
