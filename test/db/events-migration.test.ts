// Migration 025 on a book that already has events: the feed goes on from the business's last
// sequence with no gap and no repeat, the events written before keep their numbers, and the daily
// run's overdue mark moves with its value (a business never announced keeps "never").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { migrate } from '../../src/db/migrate.ts';
import { emit, listEvents } from '../../src/services/events.ts';
import { withActor } from '../../src/db/connection.ts';
import { lockOverdueThrough } from '../../src/db/repositories/events.ts';
import { embeddedBefore } from '../helpers/db.ts';

test('migration 025 keeps the numbers given, numbers the next events after them, and keeps the overdue mark', async (t) => {
  // its own embedded database, left at 024 by hand, with events numbered the old way
  const db = await embeddedBefore(t, '025');
  const k = db.kysely;
  const biz = async (name: string) =>
    (await sql<{ id: string }>`INSERT INTO businesses (name) VALUES (${name}) RETURNING id`.execute(k)).rows[0]!.id;
  const [a, b] = [await biz('a'), await biz('b')];
  const old = crypto.randomUUID();
  await sql`INSERT INTO event_counters (business_id, last_sequence, overdue_through) VALUES (${a}, 3, '2026-03-09'), (${b}, 0, NULL)`.execute(
    k,
  );
  await sql`INSERT INTO events (business_id, sequence, type, ordering_key, data)
            SELECT ${a}, g, 'client.created', ${old}, json_build_object('object', json_build_object('id', ${old}::uuid, 'n', g))
              FROM generate_series(1, 3) g`.execute(k);

  await migrate(db);
  const ctx = (businessId: string) => ({ businessId, actor: 'test' }) as Parameters<typeof listEvents>[1];
  for (const [businessId, n] of [
    [a, 2],
    [b, 1],
  ] as const)
    for (let i = 0; i < n; i++)
      await withActor(k, { actor: 'test' }, async (trx) =>
        emit(trx, businessId, 'client.created', { id: crypto.randomUUID() }),
      );
  const feedA = await listEvents(db, ctx(a), { after: 0, limit: 100 });
  assert.deepEqual(
    feedA.items.map((e) => e.sequence),
    [1, 2, 3, 4, 5],
  );
  assert.deepEqual(
    feedA.items.slice(0, 3).map((e) => (e.data.object as { n: number }).n),
    [1, 2, 3],
  );
  assert.deepEqual(
    (await listEvents(db, ctx(b), { after: 0, limit: 100 })).items.map((e) => e.sequence),
    [1],
  );
  const marks = await db.kysely
    .transaction()
    .execute(async (trx) => [await lockOverdueThrough(trx, a), await lockOverdueThrough(trx, b)]);
  assert.deepEqual(marks, ['2026-03-09', null]);
});
