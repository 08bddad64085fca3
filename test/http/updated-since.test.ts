// updated_since on GET /api/clients and GET /api/credits (docs/api.md "Sync with updated_since"):
// only the records whose updated_at is at or after the instant, oldest change first (updated_at,
// then id), in the usual page; every change of a record moves it to the end (edits, and a
// credit's status moved by a payment, a reversal, a write-off by hand or by the daily run, a
// refinance, a cancel); a malformed instant is 400.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, json, type Harness } from '../helpers/app.ts';
import { accrue, client, credit, day, pay, plan } from '../helpers/book.ts';

type Row = { id: string; updated_at: string };

/** The stored updated_at of these rows, to the microsecond (the API shows milliseconds), in UTC and in Buenos Aires (UTC−3). */
async function stored(h: Harness, table: 'clients' | 'credits', id: string) {
  const r = await sql<{ utc: string; ba: string; next: string }>`
    SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS utc,
           to_char(updated_at AT TIME ZONE 'America/Argentina/Buenos_Aires', 'YYYY-MM-DD"T"HH24:MI:SS.US"-03:00"') AS ba,
           to_char((updated_at + interval '1 microsecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS next
      FROM ${sql.table(table)} WHERE business_id = ${h.tenant.businessId} AND id = ${id}`.execute(h.db.kysely);
  return r.rows[0]!;
}

/**
 * Waits until the database's clock has passed the millisecond it reads now (the embedded
 * database's clock counts milliseconds): the next change gets a later updated_at than the last
 * one, so the order of a test's changes is the order of the list (not the tie-break by id).
 */
async function tick(h: Harness) {
  const t0 = (await sql<{ t: string }>`SELECT clock_timestamp()::text AS t`.execute(h.db.kysely)).rows[0]!.t;
  for (;;) {
    const r = await sql<{
      past: boolean;
    }>`SELECT clock_timestamp() >= ${t0}::timestamptz + interval '1 millisecond' AS past`.execute(h.db.kysely);
    if (r.rows[0]!.past) return;
  }
}

async function list(h: Harness, path: string, query: string) {
  const res = await h.get(`${path}?${query}`, h.tenant.readKey);
  assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
  return json(res);
}

const ids = (page: { items: Row[] }) => page.items.map((x) => x.id);
const EPOCH = '1970-01-01T00:00:00Z';
const enc = encodeURIComponent;

/** oldest change first, ties by id */
function assertOldestFirst(items: Row[]) {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1]!;
    const b = items[i]!;
    assert.ok(a.updated_at < b.updated_at || (a.updated_at === b.updated_at && a.id < b.id), `order at ${i}`);
  }
}

test('clients: updated_at at or after the instant, to the microsecond, oldest change first, in pages', async (t) => {
  const h = await build(t);
  const a = json(await h.post('/api/clients', { dni: '1001', first_name: 'Ana', last_name: 'Gómez' }));
  await tick(h);
  const b = json(await h.post('/api/clients', { dni: '1002', first_name: 'Bruno' }));
  await tick(h);
  const c = json(await h.post('/api/clients', { dni: '1003', first_name: 'Carla', last_name: 'Gomez' }));
  await tick(h);
  const edited = json(await h.put(`/api/clients/${a.id}`, { city: 'Rosario' }));
  assert.ok(edited.updated_at > a.updated_at, 'an edit moves updated_at');

  const all = await list(h, '/api/clients', `updated_since=${EPOCH}`);
  assert.deepEqual(Object.keys(all).sort(), ['items', 'limit', 'offset', 'total']);
  assert.deepEqual([all.total, all.limit, all.offset], [3, 50, 0]);
  assert.deepEqual(ids(all), [b.id, c.id, a.id], 'the edited one last');
  assertOldestFirst(all.items);
  // without updated_since the list is as before: newest first by creation
  assert.deepEqual(ids(json(await h.get('/api/clients'))), [c.id, b.id, a.id]);

  // the boundary is inclusive, to the microsecond, whatever the offset it is written in
  const at = await stored(h, 'clients', a.id);
  const cAt = await stored(h, 'clients', c.id);
  for (const since of [
    at.utc,
    at.ba,
    at.utc.toLowerCase(),
    `${at.utc.slice(0, -1)}000Z`,
    `${at.utc.slice(0, -1)}000+00:00`,
  ]) {
    assert.deepEqual(ids(await list(h, '/api/clients', `updated_since=${enc(since)}`)), [a.id], since);
  }
  // a microsecond later, or any fraction of one (finer than the database keeps), leaves it out
  for (const since of [at.next, `${at.utc.slice(0, -1)}001Z`, `${at.utc.slice(0, -1)}1+00:00`]) {
    const page = await list(h, '/api/clients', `updated_since=${enc(since)}`);
    assert.deepEqual([ids(page), page.total], [[], 0], since);
  }
  assert.deepEqual(ids(await list(h, '/api/clients', `updated_since=${enc(cAt.utc)}`)), [c.id, a.id]);
  assert.deepEqual(ids(await list(h, '/api/clients', `updated_since=${enc(cAt.next)}`)), [a.id]);

  // the updated_at the API shows (milliseconds) given back finds the record again: the next poll
  // may start from the last item it saw
  for (const item of all.items) {
    const page = await list(h, '/api/clients', `updated_since=${enc(item.updated_at)}`);
    assert.equal(page.items[0].id, item.id, `${item.updated_at} starts with its own record`);
  }

  // pages of the same order: limit and offset as in every list, total of what matches
  const pages = [0, 1, 2, 3].map((o) => list(h, '/api/clients', `updated_since=${EPOCH}&limit=1&offset=${o}`));
  const got = await Promise.all(pages);
  assert.deepEqual(
    got.map((p) => [ids(p), p.total, p.limit, p.offset]),
    [
      [[b.id], 3, 1, 0],
      [[c.id], 3, 1, 1],
      [[a.id], 3, 1, 2],
      [[], 3, 1, 3],
    ],
  );

  // with q: both filters
  assert.deepEqual(ids(await list(h, '/api/clients', `q=gomez&updated_since=${EPOCH}`)), [c.id, a.id]);
  assert.deepEqual(ids(await list(h, '/api/clients', `q=gomez&updated_since=${enc(cAt.next)}`)), [a.id]);
  assert.deepEqual(ids(await list(h, '/api/clients', `q=1002&updated_since=${enc(cAt.next)}`)), []);

  // another business's clients never show, however old the instant
  const other = await h.newTenant();
  await h.post('/api/clients', { dni: '1001' }, other.fullKey);
  assert.equal((await list(h, '/api/clients', `updated_since=${EPOCH}`)).total, 3);
  // beyond any instant stored, and before any: nothing, everything
  assert.equal((await list(h, '/api/clients', 'updated_since=9999-12-31T23:59:59-23:59')).total, 0);
  assert.equal((await list(h, '/api/clients', `updated_since=${enc('0001-01-01T00:00:00+23:59')}`)).total, 3);
  // a leap second is the next second's start
  assert.equal((await list(h, '/api/clients', 'updated_since=2016-12-31T23:59:60Z')).total, 3);
});

test('credits: every change of status moves a credit to the end; a payment that changes no field of it does not', async (t) => {
  const h = await build(t);
  const one = { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 0.005 };
  const p = await plan(h, one);
  const late = await plan(h, { ...one, write_off_days: 15 });
  const branch = json(await h.post('/api/branches', { name: 'Centro' }));
  const x = await client(h);
  const y = await client(h);
  const grant = async (clientId: string, extra: Record<string, unknown> = {}) => {
    await tick(h);
    return (await credit(h, clientId, { credit_config_id: p.id, amount: 1000, ...extra })).credit;
  };
  const c1 = await grant(x.id);
  const c2 = await grant(x.id, { branch_id: branch.id });
  const c3 = await grant(y.id);
  const c4 = await grant(y.id, { branch_id: branch.id });
  // 60 days ago, due 30 days ago: past its plan's 15 days, the daily run writes it off
  await tick(h);
  const c5 = (await credit(h, y.id, { credit_config_id: late.id, amount: 1000, start_date: day(-60) })).credit;

  const since = async (q = '') => ids(await list(h, '/api/credits', `updated_since=${EPOCH}${q}`));
  assert.deepEqual(await since(), [c1.id, c2.id, c3.id, c4.id, c5.id]);

  /**
   * Runs a change, then checks that exactly `changed()` were changed since before it, in that
   * order (records changed by one transaction share its instant: by id), with a later updated_at.
   */
  const changes = async (changed: string[] | (() => string[]), change: () => Promise<unknown>) => {
    const before = await list(h, '/api/credits', `updated_since=${EPOCH}&limit=100`);
    const newest = (await stored(h, 'credits', before.items.at(-1).id)).next;
    await tick(h);
    await change();
    const moved = typeof changed === 'function' ? changed() : changed;
    const after = await list(h, '/api/credits', `updated_since=${EPOCH}&limit=100`);
    assert.deepEqual(ids(after).slice(-moved.length), moved, 'moved to the end');
    assert.deepEqual(ids(await list(h, '/api/credits', `updated_since=${enc(newest)}`)), moved, 'and only they');
    for (const id of moved) {
      const was = before.items.find((i: Row) => i.id === id);
      const now = after.items.find((i: Row) => i.id === id);
      if (was) assert.ok(now.updated_at > was.updated_at, `${id}: updated_at moved on`);
    }
    assertOldestFirst(after.items);
    return after.items as any[];
  };

  // a payment that leaves the status as it was changes no field of the Credit: not moved
  const partial = await pay(h, c1.id, { amount: 400 });
  assert.equal(partial.credit.status, 'active');
  assert.deepEqual(await since(), [c1.id, c2.id, c3.id, c4.id, c5.id]);

  // the payment that closes it
  let items = await changes([c1.id], () => pay(h, c1.id, { amount: 600 }));
  assert.equal(items.at(-1).status, 'closed');
  // its reversal reopens it
  const payments = json(await h.get(`/api/credits/${c1.id}/payments`));
  const closing = payments.find((x: any) => x.amount === 600);
  items = await changes([c1.id], async () => {
    const res = await h.post(`/api/credits/${c1.id}/payments/${closing.id}/reverse`, { reason: 'bounced' });
    assert.equal(res.statusCode, 200, res.body);
  });
  assert.equal(items.at(-1).status, 'active');
  // written off by hand
  items = await changes([c2.id], () => h.post(`/api/credits/${c2.id}/write-off`, { reason: 'unreachable' }));
  assert.equal(items.at(-1).status, 'written_off');
  // cancelled
  items = await changes([c3.id], () => h.post(`/api/credits/${c3.id}/cancel`));
  assert.equal(items.at(-1).status, 'inactive');
  // refinanced: the old one moves, the new one is the newest change
  let fresh = '';
  items = await changes(
    () => [c4.id, fresh].sort(),
    async () => {
      const res = await h.post(`/api/credits/${c4.id}/refinance`, { credit_config_id: p.id });
      assert.equal(res.statusCode, 201, res.body);
      fresh = json(res).credit.id;
    },
  );
  assert.equal(items.find((i) => i.id === c4.id).status, 'refinanced');
  assert.equal(items.find((i) => i.id === fresh).status, 'active');
  // the daily run's write-off
  items = await changes([c5.id], async () => {
    const run = await accrue(h, '--business', h.tenant.businessId);
    assert.equal(run.out.businesses[0].written_off, 1, run.err);
  });
  assert.equal(items.at(-1).status, 'written_off');
  assert.match(items.at(-1).write_off_reason, /automatic/);

  // combined with the other filters
  // (c1 reopened, then c2 written off; the refinancing credit keeps c4's branch)
  assert.deepEqual(await since(`&client_id=${x.id}`), [c1.id, c2.id]);
  assert.deepEqual(await since(`&branch_id=${branch.id}`), [c2.id, ...[c4.id, fresh].sort()]);
  assert.deepEqual(await since('&status=written_off'), [c2.id, c5.id]);
  assert.deepEqual(await since(`&status=active&client_id=${y.id}`), [fresh]);
  assert.deepEqual(await since(`&status=active&client_id=${x.id}&branch_id=${branch.id}`), []);
  const c2At = await stored(h, 'credits', c2.id);
  assert.deepEqual(ids(await list(h, '/api/credits', `client_id=${x.id}&updated_since=${enc(c2At.utc)}`)), [c2.id]);
  assert.deepEqual(ids(await list(h, '/api/credits', `client_id=${x.id}&updated_since=${enc(c2At.next)}`)), []);
  assert.deepEqual(ids(await list(h, '/api/credits', `status=written_off&updated_since=${enc(c2At.next)}`)), [c5.id]);
  const page = await list(h, '/api/credits', `updated_since=${EPOCH}&status=written_off&limit=1&offset=1`);
  assert.deepEqual([ids(page), page.total, page.limit, page.offset], [[c5.id], 2, 1, 1]);
});

test('updated_at is kept by the database too: a change by hand that does not set it moves it, no change leaves it', async (t) => {
  const h = await build(t);
  const p = await plan(h);
  const x = await client(h);
  const c1 = (await credit(h, x.id, { credit_config_id: p.id, amount: 1000 })).credit;
  const bid = h.tenant.businessId;
  const at = async (table: 'clients' | 'credits', id: string) => (await stored(h, table, id)).utc;

  const was = { client: await at('clients', x.id), credit: await at('credits', c1.id) };
  await tick(h);
  // nothing changes: updated_at stays
  await sql`UPDATE credits SET status = status WHERE business_id = ${bid} AND id = ${c1.id}`.execute(h.db.kysely);
  await sql`UPDATE clients SET city = city WHERE business_id = ${bid} AND id = ${x.id}`.execute(h.db.kysely);
  assert.equal(await at('credits', c1.id), was.credit);
  assert.equal(await at('clients', x.id), was.client);
  // a field changes, updated_at is not set: the transaction's now()
  await sql`UPDATE credits SET origin_transaction_reference = 'repair' WHERE business_id = ${bid} AND id = ${c1.id}`.execute(
    h.db.kysely,
  );
  await sql`UPDATE clients SET city = 'Mendoza' WHERE business_id = ${bid} AND id = ${x.id}`.execute(h.db.kysely);
  assert.ok((await at('credits', c1.id)) > was.credit, "holds: (await at('credits', c1.id)) > was.credit");
  assert.ok((await at('clients', x.id)) > was.client, "holds: (await at('clients', x.id)) > was.client");
  assert.deepEqual(
    ids(await list(h, '/api/credits', `updated_since=${enc((await stored(h, 'credits', c1.id)).utc)}`)),
    [c1.id],
  );
  // a statement that sets updated_at itself keeps what it set (history written on purpose)
  await sql`UPDATE clients SET city = 'Salta', updated_at = '2020-01-01T00:00:00Z' WHERE business_id = ${bid} AND id = ${x.id}`.execute(
    h.db.kysely,
  );
  assert.equal(await at('clients', x.id), '2020-01-01T00:00:00.000000Z');
});

/**
 * The poller of docs/api.md "Sync with updated_since": from `since` minus a margin, each next page
 * from the last item's updated_at, or the next offset when a full page is all at the instant it
 * asked from; and when it paged an instant by offset and a record came twice in the walk with a
 * different updated_at, it walks again from that instant. `between` runs before each page.
 * Returns the newest updated_at it stored.
 */
async function poll(
  h: Harness,
  path: string,
  store: Map<string, Row>,
  since: string,
  between: () => Promise<unknown> = async () => {},
) {
  const limit = 3;
  let watermark = since;
  let requests = 0;
  let from = new Date(Date.parse(since) - 1000).toISOString();
  for (;;) {
    let [at, offset] = [from, 0];
    const walked = new Map<string, string>();
    let paged: string | null = null;
    let movedAgain = false;
    for (;;) {
      await between();
      const page = await list(h, path, `updated_since=${enc(at)}&limit=${limit}&offset=${offset}`);
      assert.ok(++requests < 200, 'the poll ends');
      for (const item of page.items as Row[]) {
        const held = store.get(item.id);
        if (!held || held.updated_at <= item.updated_at) store.set(item.id, item);
        if (item.updated_at > watermark) watermark = item.updated_at;
        if ((walked.get(item.id) ?? item.updated_at) !== item.updated_at) movedAgain = true;
        walked.set(item.id, item.updated_at);
      }
      if (page.items.length < limit) break;
      const last = page.items.at(-1).updated_at;
      if (last === at) {
        offset += limit;
        paged ??= at;
      } else [at, offset] = [last, 0];
    }
    if (paged === null || !movedAgain) return watermark;
    from = paged;
  }
}

test('a poller following the documented walk ends with every client as it is, through same-instant batches and edits made while it walks', async (t) => {
  const h = await build(t);
  const made: string[] = [];
  for (let i = 0; i < 10; i++) made.push(json(await h.post('/api/clients', { dni: `70${i}` })).id);
  // ten clients changed by one statement: one instant for more than a page
  await tick(h);
  await sql`UPDATE clients SET country = 'AR' WHERE business_id = ${h.tenant.businessId}`.execute(h.db.kysely);
  // edited while the poller walks, among others: clients of that instant, which shifts the
  // offsets of the ones still to come at it (the walk again from that instant finds them)
  const others: string[] = [];
  for (let i = 0; i < 4; i++) others.push(json(await h.post('/api/clients', { dni: `71${i}` })).id);
  const edited = [made[0]!, others[0]!, made[5]!, made[1]!, others[1]!, made[9]!, made[2]!];
  const store = new Map<string, Row>();
  let k = 0;
  const edit = async () => {
    if (k >= edited.length) return;
    await tick(h);
    const id = edited[k++]!;
    assert.equal((await h.put(`/api/clients/${id}`, { city: `c${k}` })).statusCode, 200);
  };
  const watermark = await poll(h, '/api/clients', store, EPOCH, edit);
  assert.equal(k, edited.length, 'every edit was made during the walk');
  // the one poll holds every client as it is now (the edits stopped before it ended)
  const all = (await list(h, '/api/clients', 'limit=100')).items as (Row & { city: string | null })[];
  assert.equal(store.size, all.length);
  for (const c of all) assert.deepEqual(store.get(c.id), c, `client ${c.id} as it is now`);
  assert.equal(
    watermark,
    all
      .map((c) => c.updated_at)
      .sort()
      .at(-1),
  );
  // the next poll, from the watermark, changes nothing
  const copy = structuredClone(store);
  assert.equal(await poll(h, '/api/clients', store, watermark), watermark);
  assert.deepEqual(store, copy);
});

test('a malformed updated_since is 400 validation_failed naming it, on both lists', async (t) => {
  const h = await build(t);
  const bad = [
    '',
    'yesterday',
    '1714000000',
    '2026-01-15', // a date: no time, no offset
    '2026-01-15T13:02:00', // no offset
    '2026-01-15T13:02:00 03:00', // a + not written %2B arrives as a space
    '2026-01-15 13:02:00Z',
    '2026-01-15T13:02Z',
    '2026-02-30T00:00:00Z',
    '2026-01-15T24:00:00Z',
    '2026-01-15T13:60:00Z',
    '2026-01-15T13:02:61Z',
    '2026-01-15T13:02:00.Z',
    '2026-01-15T13:02:00.1234567890Z', // more than 9 decimals
    '2026-01-15T13:02:00+24:00',
    '2026-01-15T13:02:00+03',
    '0000-01-01T00:00:00Z',
    '+02026-01-15T13:02:00Z',
    `2026-01-15T13:02:00Z${'0'.repeat(40)}`,
  ];
  for (const path of ['/api/clients', '/api/credits']) {
    for (const v of bad) {
      const res = await h.get(`${path}?updated_since=${enc(v)}`);
      assert.equal(res.statusCode, 400, `${path} ${v}: ${res.body}`);
      const body = json(res);
      assert.equal(body.code, 'validation_failed');
      assert.equal(body.details[0].path, '/updated_since', v);
      assert.match(body.error, /updated_since/);
    }
    // given twice: one value only
    const twice = await h.get(`${path}?updated_since=${EPOCH}&updated_since=${EPOCH}`);
    assert.equal(twice.statusCode, 400, twice.body);
  }
  const res = await h.get('/api/clients?updated_since=2026-01-15T13:02:00');
  assert.match(json(res).error, /RFC 3339 date-time with an offset/);
});
