// The audit log's cursor (docs/api.md "Sync with updated_since") walked while another client keeps
// writing: every entry there when the walk began comes exactly once, newest first, with or
// without filters; entries written meanwhile never come twice. test/http/routes/logs/logs.test.ts has the
// cursor's shape, depth and refusals; this is the synchronising client's view of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, type Harness } from '../../../helpers/app.ts';

type Entry = { id: string; table_name: string; action: string; changed_at: string };

/** Follows next_cursor from the first page to the end; `between` runs (and is awaited) before each next page. */
async function walk(h: Harness, query: string, between: () => Promise<unknown>) {
  const pages: any[] = [];
  let page = json(await h.get(`/api/logs?${query}`, h.tenant.readKey));
  pages.push(page);
  while (page.next_cursor !== null) {
    await between();
    const res = await h.get(`/api/logs?${query}&cursor=${encodeURIComponent(page.next_cursor)}`, h.tenant.readKey);
    assert.equal(res.statusCode, 200, res.body);
    page = json(res);
    pages.push(page);
    assert.ok(pages.length < 200, 'the walk ends');
  }
  return { pages, items: pages.flatMap((p) => p.items as Entry[]) };
}

/** All entries matching `query` as one list, newest first (at most 100). */
async function snapshot(h: Harness, query: string): Promise<Entry[]> {
  const page = json(await h.get(`/api/logs?limit=100&${query}`));
  assert.equal(page.next_cursor, null);
  return page.items;
}

/** How many entries match `query` now (the page's total). */
async function count(h: Harness, query: string): Promise<number> {
  return json(await h.get(`/api/logs?limit=1&${query}`)).total;
}

// The log orders by changed_at to the microsecond, then id; an answer shows the millisecond, so
// two entries of the same millisecond may come in either id order.
function assertNewestFirst(items: Entry[]) {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!];
    assert.ok(a.changed_at >= b.changed_at, `order at ${i}: ${a.changed_at} before ${b.changed_at}`);
  }
}

for (const query of ['', 'table_name=branches', 'table_name=clients&action=UPDATE']) {
  test(`a cursor walk${query ? ` with ${query}` : ''} meets every entry once while a concurrent writer adds entries`, async (t) => {
    const h = await build(t);
    for (let i = 0; i < 8; i++) {
      await h.post('/api/branches', { name: `b${i}` });
      const c = json(await h.post('/api/clients', { dni: `9${i}` }));
      await h.put(`/api/clients/${c.id}`, { city: `c${i}` });
    }
    const before = await snapshot(h, query);
    assert.ok(before.length >= 8, 'holds: before.length >= 8');

    const countBefore = await count(h, query);

    // a writer that does not wait for the walk (its requests interleave with the pages), and one
    // more write before each page, so every page is read after entries were added; each write
    // adds an entry that every filter here matches
    let running = true;
    let written = 0;
    const write = async () => {
      const k = written++;
      await h.post('/api/branches', { name: `w${k}` });
      const c = json(await h.post('/api/clients', { dni: `8${k}` }));
      await h.put(`/api/clients/${c.id}`, { phone: String(k) });
    };
    const writer = (async () => {
      while (running) await write();
    })();
    let walked: Awaited<ReturnType<typeof walk>>;
    try {
      walked = await walk(h, `limit=3${query ? `&${query}` : ''}`, write);
    } finally {
      running = false;
      await writer;
    }
    const seen = walked.items.map((e) => e.id);
    assert.equal(new Set(seen).size, seen.length, 'no entry twice');
    assert.deepEqual(
      seen.filter((id) => before.some((e) => e.id === id)),
      before.map((e) => e.id),
      'every entry there when the walk began, in order',
    );
    assertNewestFirst(walked.items);
    // the writes before pages 2..n had ended before those pages were read
    assert.ok((await count(h, query)) >= countBefore + walked.pages.length - 1, 'the log grew during the walk');
    // each page was counted when it was read: the totals grow with the writes (unless the filter excludes them)
    const totals = walked.pages.map((p) => p.total);
    assert.ok(
      totals.every((n, i) => i === 0 || n >= totals[i - 1]),
      `totals ${totals}`,
    );
    // the filters are kept: nothing outside them came
    if (query === 'table_name=branches')
      assert.ok(
        walked.items.every((e) => e.table_name === 'branches'),
        "every e of walked.items: e.table_name === 'branches'",
      );
    if (query.includes('action=UPDATE'))
      assert.ok(
        walked.items.every((e) => e.table_name === 'clients' && e.action === 'UPDATE'),
        "every e of walked.items: e.table_name === 'clients' && e.action === 'UPDATE'",
      );
  });
}

test('a cursor is refused when malformed, with other filters, or with an offset (400 validation_failed); alone it continues', async (t) => {
  const h = await build(t);
  for (let i = 0; i < 3; i++) await h.post('/api/branches', { name: `b${i}` });
  const cursor = json(await h.get('/api/logs?limit=1&table_name=branches')).next_cursor as string;
  const cases: [string, string][] = [
    ['cursor=not-a-cursor', '/cursor'],
    [`table_name=branches&cursor=${cursor.slice(1)}`, '/cursor'],
    [`table_name=branches&cursor=${Buffer.from('["a1"]').toString('base64url')}`, '/cursor'],
    [`table_name=branches&cursor=${Buffer.from('["a2"]').toString('base64url')}`, '/cursor'],
    [`table_name=clients&cursor=${cursor}`, '/cursor'],
    [`table_name=branches&action=INSERT&cursor=${cursor}`, '/cursor'],
    [`table_name=branches&offset=1&cursor=${cursor}`, '/offset'],
  ];
  for (const [q, path] of cases) {
    const res = await h.get(`/api/logs?${q}`);
    assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
    assert.equal(json(res).code, 'validation_failed');
    assert.equal(json(res).details[0].path, path, q);
  }
  // alone (it carries table_name=branches), or the same filters (in any order, table as the alias of
  // table_name), offset 0 or none: it continues
  for (const q of [
    `cursor=${cursor}`,
    `table_name=branches&cursor=${cursor}`,
    `cursor=${cursor}&table=branches&offset=0`,
  ]) {
    const res = await h.get(`/api/logs?limit=1&${q}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(json(res).offset, 1);
  }
});
