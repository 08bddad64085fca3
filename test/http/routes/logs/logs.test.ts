// The audit list (GET /api/logs): filters table_name (alias table), action and record_id,
// limit 1..100 (default 50), offset >= 0, total of the matching rows, newest first with ties
// broken by id; and paging by cursor (next_cursor, docs/api.md "Sync with updated_since").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { build, json, type Harness } from '../../../helpers/app.ts';

type Entry = {
  id: string;
  table_name: string;
  action: string;
  record_id: string;
  changed_at: string;
  business_id: string;
};

/**
 * Newest first. The log breaks ties by changed_at to the microsecond, then by id; an answer shows
 * the millisecond, so entries of one millisecond may come in either id order here.
 */
function assertOrdered(items: Entry[]) {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    const ta = Date.parse(a.changed_at);
    const tb = Date.parse(b.changed_at);
    assert.ok(ta >= tb, `out of order at ${i}: ${a.changed_at} ${a.id} then ${b.changed_at} ${b.id}`);
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
  assert.deepEqual(Object.keys(all).sort(), ['items', 'limit', 'next_cursor', 'offset', 'total']);
  assert.equal(all.next_cursor, null, 'one page holds it all');
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
    assert.ok(r.items.length <= r.limit, 'holds: r.items.length <= r.limit');
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

/** Follows next_cursor from the first page of `query` to the end; `between` runs before each next page. */
async function walk(h: Harness, query: string, key?: string, between?: () => Promise<unknown>) {
  const pages: any[] = [];
  let page = json(await h.get(`/api/logs?${query}`, key));
  pages.push(page);
  while (page.next_cursor !== null) {
    await between?.();
    const res = await h.get(`/api/logs?${query}&cursor=${encodeURIComponent(page.next_cursor)}`, key);
    assert.equal(res.statusCode, 200, res.body);
    page = json(res);
    pages.push(page);
    assert.ok(pages.length < 100, 'the walk ends');
  }
  return { pages, items: pages.flatMap((p) => p.items as Entry[]) };
}

test('a cursor walks the whole list once, newest first, while entries are written', async (t) => {
  const h = await build(t);
  for (let i = 0; i < 12; i++) await h.post('/api/branches', { name: `b${i}` });
  await seed(h); // 11 more: 23 entries
  const before = json(await h.get('/api/logs?limit=100'));
  assert.equal(before.total, 23);

  let written = 0;
  const { pages, items } = await walk(h, 'limit=5', undefined, async () => {
    // each page is asked for after new entries were written: they are newer than the first page
    await h.post('/api/branches', { name: `during ${written++}` });
  });
  assert.deepEqual(
    items.map((e) => e.id),
    before.items.map((e: Entry) => e.id),
    'every entry there when the walk began, once, in order',
  );
  assertOrdered(items);
  assert.deepEqual(
    pages.map((p) => p.items.length),
    [5, 5, 5, 5, 3],
  );
  // offset counts the entries before each page; total is exact when each page is read
  assert.deepEqual(
    pages.map((p) => p.offset),
    [0, 5, 10, 15, 20],
  );
  assert.deepEqual(
    pages.map((p) => p.total),
    [23, 24, 25, 26, 27],
  );
  assert.ok(
    pages.every((p) => p.limit === 5),
    'every p of pages: p.limit === 5',
  );
  assert.equal(pages.at(-1).next_cursor, null);

  // exactly one page left: its cursor leads to the last page, whose next_cursor is null
  const exact = await walk(h, 'limit=9&table_name=branches&action=INSERT');
  assert.deepEqual(
    exact.pages.map((p) => [p.items.length, p.offset, p.total]),
    [
      [9, 0, 18],
      [9, 9, 18],
    ],
  );
  assert.equal(exact.pages[1].next_cursor, null);
  // an offset page gives a cursor too, counting on from its offset
  const fromOffset = json(await h.get('/api/logs?limit=4&offset=20'));
  const rest = json(await h.get(`/api/logs?limit=4&cursor=${fromOffset.next_cursor}`));
  assert.equal(rest.offset, 24);
  const all = json(await h.get('/api/logs?limit=100'));
  assert.deepEqual(
    [...fromOffset.items, ...rest.items].map((e: Entry) => e.id),
    all.items.slice(20, 28).map((e: Entry) => e.id),
  );
});

test('a cursor keeps its filters, and every filter combination pages to exactly its total', async (t) => {
  const h = await build(t);
  const { clients } = await seed(h);
  const c0 = clients[0].id as string;
  const full = json(await h.get('/api/logs?limit=100')).items as Entry[];
  const combos: [string, (e: Entry) => boolean][] = [
    ['', () => true],
    ['table_name=clients', (e) => e.table_name === 'clients'],
    ['action=UPDATE', (e) => e.action === 'UPDATE'],
    ['table=branches&action=INSERT', (e) => e.table_name === 'branches' && e.action === 'INSERT'],
    [`record_id=${c0}`, (e) => e.record_id === c0],
    [`record_id=${c0}&table_name=clients`, (e) => e.record_id === c0],
    [`record_id=${c0.toUpperCase()}&action=UPDATE`, (e) => e.record_id === c0 && e.action === 'UPDATE'],
    [`record_id=${c0}&table_name=clients&action=INSERT`, (e) => e.record_id === c0 && e.action === 'INSERT'],
    [`record_id=${c0}&table_name=branches`, () => false],
  ];
  for (const [q, pred] of combos) {
    const want = full.filter(pred).map((e) => e.id);
    const { pages, items } = await walk(h, `limit=2&${q}`);
    assert.deepEqual(
      items.map((e) => e.id),
      want,
      q,
    );
    assert.ok(
      pages.every((p) => p.total === want.length),
      `${q}: total ${pages.map((p) => p.total)} for ${want.length}`,
    );
    for (let o = 0; o <= want.length; o++) {
      const p = json(await h.get(`/api/logs?limit=1&offset=${o}&${q}`));
      assert.deepEqual(
        p.items.map((e: Entry) => e.id),
        want.slice(o, o + 1),
        `${q} offset ${o}`,
      );
      assert.equal(p.next_cursor === null, o + 1 >= want.length, `${q} offset ${o}: next_cursor`);
    }
  }
});

/** Follows next_cursor from the first page of `query`, sending each cursor alone (with `limit` only). */
async function walkAlone(h: Harness, query: string, limit: number) {
  const pages: any[] = [json(await h.get(`/api/logs?limit=${limit}&${query}`))];
  while (pages.at(-1).next_cursor !== null) {
    const res = await h.get(`/api/logs?limit=${limit}&cursor=${encodeURIComponent(pages.at(-1).next_cursor)}`);
    assert.equal(res.statusCode, 200, `the cursor alone continues ${query}: ${res.body}`);
    pages.push(json(res));
    assert.ok(pages.length < 100, 'the walk ends');
  }
  return { pages, items: pages.flatMap((p) => p.items as Entry[]) };
}

test('a cursor alone continues the filtered listing it came from, as with its filters repeated', async (t) => {
  const h = await build(t);
  const { clients } = await seed(h);
  const c0 = clients[0].id as string;
  const full = json(await h.get('/api/logs?limit=100')).items as Entry[];
  const combos: [string, (e: Entry) => boolean][] = [
    ['table_name=clients', (e) => e.table_name === 'clients'],
    ['action=UPDATE', (e) => e.action === 'UPDATE'],
    ['table=branches&action=INSERT', (e) => e.table_name === 'branches' && e.action === 'INSERT'],
    [`record_id=${c0.toUpperCase()}`, (e) => e.record_id === c0],
    [`record_id=${c0}&table_name=clients&action=UPDATE`, (e) => e.record_id === c0 && e.action === 'UPDATE'],
  ];
  for (const [q, pred] of combos) {
    const want = full.filter(pred).map((e) => e.id);
    assert.ok(want.length >= 2, `${q}: more than one page of 1`);
    const alone = await walkAlone(h, q, 1);
    const repeated = await walk(h, `limit=1&${q}`);
    assert.deepEqual(
      alone.items.map((e) => e.id),
      want,
      `${q}: every matching entry once, in order, and nothing else`,
    );
    assert.deepEqual(
      alone.items.map((e) => e.id),
      repeated.items.map((e) => e.id),
      `${q}: the same walk as with the filters repeated`,
    );
    assert.deepEqual(
      alone.pages.map((p) => [p.offset, p.total, p.items.length]),
      repeated.pages.map((p) => [p.offset, p.total, p.items.length]),
      `${q}: the same offsets, totals and page sizes`,
    );
    assert.ok(
      alone.pages.every((p) => p.total === want.length),
      `${q}: total ${alone.pages.map((p) => p.total)} is the filtered ${want.length} on every page`,
    );
  }
  // alone, with the filters again, and with another limit, page by page in one walk
  const first = json(await h.get('/api/logs?limit=1&table_name=clients'));
  const second = json(await h.get(`/api/logs?limit=2&cursor=${first.next_cursor}`));
  const third = json(await h.get(`/api/logs?limit=1&table_name=clients&cursor=${second.next_cursor}`));
  const fourth = json(await h.get(`/api/logs?cursor=${third.next_cursor}`));
  const clientsWant = full.filter((e) => e.table_name === 'clients').map((e) => e.id);
  assert.deepEqual(
    [first, second, third, fourth].flatMap((p) => p.items.map((e: Entry) => e.id)),
    clientsWant,
    'alone or with its filters, any limit: the clients entries once each',
  );
  assert.deepEqual(
    [first, second, third, fourth].map((p) => [p.offset, p.total, p.limit]),
    [
      [0, 5, 1],
      [1, 5, 2],
      [3, 5, 1],
      [4, 5, 50],
    ],
  );
  assert.equal(fourth.next_cursor, null, 'the walk ends where the filtered list ends');
});

test('a cursor of other filters, another business, or damaged, and a cursor with an offset, are 400', async (t) => {
  const h = await build(t);
  await seed(h);
  const cursor = json(await h.get('/api/logs?limit=2&table_name=clients')).next_cursor as string;
  assert.equal(typeof cursor, 'string');
  assert.equal(
    json(await h.get(`/api/logs?limit=2&table_name=clients&cursor=${cursor}`, h.tenant.readKey)).items.length,
    2,
    'any key of the business may continue it',
  );
  const other = await h.newTenant();
  await h.post('/api/branches', { name: 'theirs' }, other.fullKey);
  const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  const forge = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
  const [v, scope, at, id, position, filters] = decoded;
  const cases: [string, string | undefined][] = [
    // other filters than the cursor's (given with it): it continues table_name=clients only
    [`limit=2&table_name=branches&cursor=${cursor}`, 'another listing'],
    [`limit=2&action=INSERT&cursor=${cursor}`, 'another listing'],
    [`limit=2&table_name=clients&action=INSERT&cursor=${cursor}`, 'another listing'],
    [`limit=2&record_id=${randomUUID()}&cursor=${cursor}`, 'another listing'],
    [`limit=2&table_name=clients&offset=2&cursor=${cursor}`, 'cursor or an offset'],
    [`limit=2&offset=2&cursor=${cursor}`, 'cursor or an offset'],
    [`limit=2&table_name=clients&cursor=${cursor.slice(0, -3)}`, undefined],
    [`limit=2&table_name=clients&cursor=${cursor}x`, undefined],
    [`limit=2&cursor=${cursor}x`, undefined],
    ['cursor=abc', undefined],
    ['cursor=', undefined],
    [`cursor=${'A'.repeat(1025)}`, undefined],
    ['cursor=%22%7B%7D%22', undefined],
    [`table_name=clients&cursor=${forge([v, scope, at, id, -1, filters])}`, undefined],
    [`table_name=clients&cursor=${forge([v, scope, at, id, 1.5, filters])}`, undefined],
    [`table_name=clients&cursor=${forge(['a0', scope, at, id, position, filters])}`, undefined],
    [`table_name=clients&cursor=${forge([v, scope, '2024-02-30T00:00:00.000000Z', id, position, filters])}`, undefined],
    [`table_name=clients&cursor=${forge([v, scope, at, 'not-a-uuid', position, filters])}`, undefined],
    [`table_name=clients&cursor=${forge({ a: 1 } as never)}`, undefined],
    // the filters a cursor carries are checked as the query's would be
    [`cursor=${forge([v, scope, at, id, position])}`, undefined],
    [`cursor=${forge([v, scope, at, id, position, ['clients', null]])}`, undefined],
    [`cursor=${forge([v, scope, at, id, position, ['clients', 'MERGE', null]])}`, undefined],
    [`cursor=${forge([v, scope, at, id, position, ['clients', null, 'not-a-uuid']])}`, undefined],
    [`cursor=${forge([v, scope, at, id, position, ['', null, null]])}`, undefined],
    [`cursor=${forge([v, scope, at, id, position, [1, null, null]])}`, undefined],
    // its filters changed but not its fingerprint: not this listing's
    [`cursor=${forge([v, scope, at, id, position, ['branches', null, null]])}`, 'another listing'],
    [`table_name=branches&cursor=${forge([v, scope, at, id, position, ['branches', null, null]])}`, 'another listing'],
  ];
  for (const [q, says] of cases) {
    const res = await h.get(`/api/logs?${q}`);
    assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed', q);
    assert.equal(json(res).details[0].path, says === 'cursor or an offset' ? '/offset' : '/cursor', q);
    assert.equal(typeof json(res).error, 'string');
    if (says) assert.match(json(res).error, new RegExp(says), q);
  }
  // another business presenting this business's cursor (same filters, or alone) is refused, and sees nothing of it
  for (const q of [`limit=2&table_name=clients&cursor=${cursor}`, `limit=2&cursor=${cursor}`]) {
    const theirs = await h.get(`/api/logs?${q}`, other.readKey);
    assert.equal(theirs.statusCode, 400, `${q}: ${theirs.body}`);
    assert.match(json(theirs).error, /another listing/);
    assert.equal(json(theirs).details[0].path, '/cursor');
  }
  // and a cursor forged with this business's fingerprint by the other business still reads only its own rows
  const theirFirst = json(await h.get('/api/logs?limit=1', other.readKey));
  assert.equal(theirFirst.total, 1);
});

test('a cursor of the earlier format (without its filters) still continues, with its filters given again', async (t) => {
  const h = await build(t);
  await seed(h);
  const first = json(await h.get('/api/logs?limit=2&table_name=clients'));
  const [, , at, id, position] = JSON.parse(Buffer.from(first.next_cursor, 'base64url').toString());
  // as the service wrote them before: version a1, a fingerprint of the list, business and filters
  const scope = createHash('sha256')
    .update(['audit', h.tenant.businessId.toLowerCase(), 'clients', '', ''].join('\n'))
    .digest('base64url')
    .slice(0, 16);
  const old = Buffer.from(JSON.stringify(['a1', scope, at, id, position])).toString('base64url');
  const now = json(await h.get(`/api/logs?limit=10&cursor=${first.next_cursor}`));
  const then = await h.get(`/api/logs?limit=10&table_name=clients&cursor=${old}`);
  assert.equal(then.statusCode, 200, then.body);
  assert.deepEqual(json(then), now, 'the same page, and a cursor of the current format for the next');
  const alone = await h.get(`/api/logs?limit=10&cursor=${old}`);
  assert.equal(alone.statusCode, 400, 'an earlier cursor names no filters: they must be given again');
  assert.equal(json(alone).details[0].path, '/cursor');
});

test('entries of the same instant page by cursor in id order too', async (t) => {
  const h = await build(t);
  const at = new Date(Date.now() + 86_400_000).toISOString();
  const ids = Array.from({ length: 5 }, () => randomUUID());
  for (const id of ids) {
    await sql`INSERT INTO audit_log (business_id, id, table_name, action, record_id, new_data, actor, changed_at)
              VALUES (${h.tenant.businessId}, ${id}, 'clients', 'INSERT', ${randomUUID()}, '{}'::jsonb, 'test', ${at})`.execute(
      h.db.kysely,
    );
  }
  // written past the triggers, the entries are counted all the same
  const { pages, items } = await walk(h, 'limit=2');
  assert.deepEqual(
    items.map((e) => e.id),
    [...ids].sort().reverse(),
  );
  assert.ok(
    pages.every((p) => p.total === 5),
    'every p of pages: p.total === 5',
  );
});

test('the entries the database writes as JSON are the rows as the record declares them', async (t) => {
  const h = await build(t);
  await seed(h);
  await h.post('/api/branches', { name: 'Quote " backslash \\ tab \t newline \n ñandú 😀 </script>', phone: '' });
  const res = await h.get('/api/logs?limit=100');
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
  const page = json(res);
  const rows = await h.db.kysely
    .selectFrom('audit_log')
    .selectAll()
    .where('business_id', '=', h.tenant.businessId)
    .orderBy('changed_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  const declared = [
    'id',
    'table_name',
    'action',
    'record_id',
    'old_data',
    'new_data',
    'business_id',
    'branch_id',
    'changed_at',
    'impersonated_by',
    'actor',
  ];
  assert.equal(page.items.length, rows.length);
  page.items.forEach((item: Record<string, unknown>, i: number) => {
    assert.deepEqual(Object.keys(item), declared, 'the fields of AuditLogEntry, in order');
    const r = rows[i]!;
    assert.deepEqual(item, {
      ...Object.fromEntries(declared.map((k) => [k, (r as Record<string, unknown>)[k]])),
      changed_at: r.changed_at.toISOString(),
    });
  });
  assert.equal(page.items[0].new_data.name, 'Quote " backslash \\ tab \t newline \n ñandú 😀 </script>');
});
