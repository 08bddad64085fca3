// The audit list's exact total (migration 006): audit_log_counts always holds, per business, table
// and action, as many rows as the log has, whatever wrote them (one row or thousands in a
// statement, rolled back whole or to a savepoint, written past the triggers, from many
// connections at once), and the per-statement audit trigger logs each changed row with its own
// old and new images.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { migrate } from '../../src/db/migrate.ts';
import type { DB } from '../../src/db/schema.ts';
import { build, json, type Harness } from '../helpers/app.ts';
import { testDbKind, embeddedBefore } from '../helpers/db.ts';

type Group = { business_id: string; table_name: string; action: string; n: number };

/** The log's rows and the counters, per table and action, for these businesses. */
async function both(db: Kysely<DB>, businesses: string[]) {
  const rows = await sql<Group>`
    SELECT business_id, table_name, action, count(*)::int AS n FROM audit_log
     WHERE business_id = ANY(${businesses}::uuid[]) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`.execute(db);
  const counted = await sql<Group>`
    SELECT business_id, table_name, action, sum(n)::int AS n FROM audit_log_counts
     WHERE business_id = ANY(${businesses}::uuid[]) GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3`.execute(db);
  return { rows: rows.rows, counted: counted.rows };
}

async function assertExact(h: Harness, businesses: string[]) {
  const { rows, counted } = await both(h.db.kysely, businesses);
  assert.deepEqual(counted, rows);
  return rows;
}

const withActor = (h: Harness, fn: (trx: Kysely<DB>) => Promise<unknown>) =>
  h.db.kysely.transaction().execute(async (trx) => {
    await sql`select set_config('app.actor', 'test', true)`.execute(trx);
    await fn(trx);
  });

test('the counters match the log after single-row, many-row, rolled-back and direct writes', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const other = await h.newTenant();
  for (let i = 0; i < 3; i++) await h.post('/api/branches', { name: `b${i}` });
  await h.post('/api/clients', { dni: '1' }, other.fullKey);
  await assertExact(h, [bid, other.businessId]);

  // one statement, many rows of two businesses
  await withActor(h, async (trx) => {
    await sql`INSERT INTO branches (business_id, name)
              SELECT b, 'bulk ' || g FROM unnest(${[bid, other.businessId]}::uuid[]) b, generate_series(1, 40) g`.execute(
      trx,
    );
    await sql`UPDATE branches SET phone = '1' WHERE business_id = ${bid}`.execute(trx);
    await sql`DELETE FROM branches WHERE business_id = ${other.businessId} AND name LIKE 'bulk 1%'`.execute(trx);
  });
  const rows = await assertExact(h, [bid, other.businessId]);
  const branchesOf = (b: string) =>
    rows.filter((r) => r.business_id === b && r.table_name === 'branches').map((r) => [r.action, r.n]);
  assert.deepEqual(branchesOf(bid), [
    ['INSERT', 43],
    ['UPDATE', 43],
  ]);
  assert.deepEqual(branchesOf(other.businessId), [
    ['DELETE', 11],
    ['INSERT', 40],
  ]);

  // a transaction rolled back leaves neither rows nor counts; a savepoint rolled back, only its own
  await assert.rejects(
    withActor(h, async (trx) => {
      await sql`INSERT INTO branches (business_id, name) SELECT ${bid}, 'gone ' || g FROM generate_series(1, 5) g`.execute(
        trx,
      );
      throw new Error('rollback');
    }),
    /rollback/,
  );
  await withActor(h, async (trx) => {
    await sql`INSERT INTO branches (business_id, name) VALUES (${bid}, 'kept')`.execute(trx);
    await sql`SAVEPOINT s`.execute(trx);
    await sql`INSERT INTO branches (business_id, name) SELECT ${bid}, 'undone ' || g FROM generate_series(1, 7) g`.execute(
      trx,
    );
    await sql`ROLLBACK TO SAVEPOINT s`.execute(trx);
    await sql`UPDATE branches SET address = 'x' WHERE business_id = ${bid} AND name = 'kept'`.execute(trx);
  });
  // written past the triggers (as a repair would): counted all the same
  await sql`INSERT INTO audit_log (business_id, table_name, action, record_id, new_data, actor)
            SELECT ${bid}, 'clients', 'INSERT', gen_random_uuid(), '{}'::jsonb, 'test' FROM generate_series(1, 3)`.execute(
    h.db.kysely,
  );
  const after = await assertExact(h, [bid, other.businessId]);

  // and the list's total is that count for every filter
  const mine = after.filter((r) => r.business_id === bid);
  for (const r of mine) {
    const page = json(await h.get(`/api/logs?limit=1&table_name=${r.table_name}&action=${r.action}`));
    assert.equal(page.total, r.n, `${r.table_name} ${r.action}`);
  }
  for (const table of ['branches', 'clients']) {
    const n = mine.filter((r) => r.table_name === table).reduce((s, r) => s + r.n, 0);
    assert.equal(json(await h.get(`/api/logs?limit=1&table_name=${table}`)).total, n, table);
  }
  for (const action of ['INSERT', 'UPDATE', 'DELETE']) {
    const n = mine.filter((r) => r.action === action).reduce((s, r) => s + r.n, 0);
    assert.equal(json(await h.get(`/api/logs?limit=1&action=${action}`)).total, n, action);
  }
  assert.equal(
    json(await h.get('/api/logs?limit=1')).total,
    mine.reduce((s, r) => s + r.n, 0),
  );
});

test('a statement changing many rows logs each row with its own old and new images', async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  for (let i = 0; i < 25; i++) await h.post('/api/branches', { name: `n${i}` });
  await withActor(h, async (trx) => {
    await sql`UPDATE branches SET address = 'at ' || name WHERE business_id = ${bid}`.execute(trx);
  });
  const page = json(await h.get('/api/logs?limit=25&action=UPDATE'));
  assert.equal(page.total, 25);
  for (const e of page.items) {
    assert.equal(e.old_data.id, e.record_id);
    assert.equal(e.new_data.id, e.record_id);
    assert.equal(e.branch_id, e.record_id);
    assert.equal(e.new_data.address, `at ${e.old_data.name}`);
    assert.equal(e.old_data.address, null);
    assert.equal(e.actor, 'test');
  }
  assert.equal(new Set(page.items.map((e: { record_id: string }) => e.record_id)).size, 25);
});

test('writers on many connections at once never wait on each other for the counters, and the counts stay exact', {
  skip: testDbKind() !== 'postgres' && 'one connection on the embedded database',
}, async (t) => {
  const h = await build(t);
  const bid = h.tenant.businessId;
  const other = await h.newTenant();
  // 10 connections (the pool's size): each transaction writes two tables of both businesses in
  // a different order, holds its counter rows for a while, and one in four rolls back. Counted,
  // not timed: how many transactions had written both businesses and not yet ended at once (on
  // one counter row a writer could not get past its first insert while another held the row)
  let inFlight = 0;
  let most = 0;
  const work = Array.from({ length: 40 }, (_, i) =>
    withActor(h, async (trx) => {
      const order = i % 2 ? [bid, other.businessId] : [other.businessId, bid];
      for (const b of order) {
        await sql`INSERT INTO branches (business_id, name) SELECT ${b}, 'c' || g FROM generate_series(1, ${1 + (i % 3)}) g`.execute(
          trx,
        );
        await sql`INSERT INTO clients (business_id, dni) VALUES (${b}, ${randomUUID()})`.execute(trx);
      }
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        await sql`SELECT pg_sleep(0.2)`.execute(trx);
      } finally {
        inFlight -= 1;
      }
      if (i % 4 === 3) throw new Error('rollback');
    }).catch((err: Error) => {
      if (err.message !== 'rollback') throw err;
    }),
  );
  await Promise.all(work);
  assert.ok(most >= 2, `writers held their rows one at a time (at most ${most} at once)`);
  const rows = await assertExact(h, [bid, other.businessId]);
  const committed = Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 4 !== 3);
  const branches = committed.reduce((s, i) => s + 1 + (i % 3), 0);
  for (const b of [bid, other.businessId]) {
    assert.deepEqual(
      rows.filter((r) => r.business_id === b).map((r) => [r.table_name, r.action, r.n]),
      [
        ['branches', 'INSERT', branches],
        ['clients', 'INSERT', committed.length],
      ],
    );
  }
});

test('migration 006 counts an existing log exactly, and the log goes on the same', async (t) => {
  // its own embedded database, left at 005 by hand, with a log written by the old per-row trigger
  const db = await embeddedBefore(t, '006');
  const k = db.kysely;
  const biz = async (name: string) =>
    (await sql<{ id: string }>`INSERT INTO businesses (name) VALUES (${name}) RETURNING id`.execute(k)).rows[0]!.id;
  const [a, b] = [await biz('a'), await biz('b')];
  await sql`INSERT INTO branches (business_id, name) SELECT ${a}, 'x' || g FROM generate_series(1, 6) g`.execute(k);
  await sql`INSERT INTO branches (business_id, name) SELECT ${b}, 'y' || g FROM generate_series(1, 2) g`.execute(k);
  await sql`UPDATE branches SET phone = '9' WHERE business_id = ${a} AND name < 'x4'`.execute(k);
  await sql`INSERT INTO clients (business_id, dni) VALUES (${b}, '1')`.execute(k);
  const old = await sql<{ action: string; old_name: string | null; new_name: string | null }>`
    SELECT action, old_data ->> 'name' AS old_name, new_data ->> 'name' AS new_name FROM audit_log
     WHERE table_name = 'branches' ORDER BY changed_at, id`.execute(k);

  await migrate(db);
  const exact = async () => {
    const { rows, counted } = await both(k, [a, b]);
    assert.deepEqual(counted, rows);
    return rows.map((r) => [r.business_id === a ? 'a' : 'b', r.table_name, r.action, r.n]);
  };
  assert.deepEqual((await exact()).sort(), [
    ['a', 'branches', 'INSERT', 6],
    ['a', 'branches', 'UPDATE', 3],
    ['b', 'branches', 'INSERT', 2],
    ['b', 'clients', 'INSERT', 1],
  ]);

  // the same statements again leave the same entries as the per-row trigger did, now counted too
  await sql`INSERT INTO branches (business_id, name) SELECT ${a}, 'x' || g FROM generate_series(1, 6) g`.execute(k);
  await sql`UPDATE branches SET phone = '9' WHERE business_id = ${a} AND name < 'x4' AND phone IS NULL`.execute(k);
  const again = await sql<{ action: string; old_name: string | null; new_name: string | null }>`
    SELECT action, old_data ->> 'name' AS old_name, new_data ->> 'name' AS new_name FROM audit_log
     WHERE table_name = 'branches' AND business_id = ${a} ORDER BY changed_at, id OFFSET 9`.execute(k);
  const sortRows = (r: { action: string; old_name: string | null; new_name: string | null }[]) =>
    r.map((x) => `${x.action} ${x.old_name} ${x.new_name}`).sort();
  assert.deepEqual(sortRows(again.rows), sortRows(old.rows.filter((r) => (r.new_name ?? '').startsWith('x'))));
  const rows = await exact();
  assert.ok(
    rows.some((r) => r[0] === 'a' && r[2] === 'INSERT' && r[3] === 12),
    "some r of rows: r[0] === 'a' && r[2] === 'INSERT' && r[3] === 12",
  );
});
