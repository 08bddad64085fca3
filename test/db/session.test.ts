// The embedded database's one session under a queue of queries: the process keeps serving its
// sockets and timers while queries wait, and the operator's lane (the admin socket's commands)
// is served before the requests already waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openEmbedded } from '../../src/db/connection.ts';

test('embedded: queued queries let timers run, and an operator query goes before the waiting requests', async (t) => {
  const db = await openEmbedded(null);
  t.after(() => db.close());
  await sql`create table t as select g as x from generate_series(1, 20000) g`.execute(db.kysely);
  const query = (k = db.kysely) => sql`select sum(x) from t`.execute(k);
  await query(); // warm

  // counted, not timed: how many of the queued requests had finished when the timer ran
  let doneAtTimer: number | null = null;
  const done: string[] = [];
  setTimeout(() => {
    doneAtTimer = done.length;
  }, 0);
  const requests = Array.from({ length: 100 }, (_, i) => query().then(() => done.push(`r${i}`)));
  // the operator's command arrives once the requests are queued (as the admin socket's would)
  const operator = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
    query(db.forOperator().kysely).then(() => done.push('operator')),
  );
  await Promise.all([...requests, operator]);

  assert.ok(
    doneAtTimer !== null && doneAtTimer < 25,
    `a timer of 0 ms ran only once ${doneAtTimer} of the 101 queued queries had finished`,
  );
  const at = done.indexOf('operator');
  assert.ok(at < 20, `the operator query finished ${at + 1}th of ${done.length}`);
  // the operator lane and the requests' lane are one session: a transaction is never interleaved
  const order: string[] = [];
  await Promise.all([
    db.kysely.transaction().execute(async (trx) => {
      order.push('begin');
      await sql`select 1`.execute(trx);
      await new Promise((r) => setTimeout(r, 20));
      await sql`select 2`.execute(trx);
      order.push('commit');
    }),
    new Promise((r) => setTimeout(r, 5)).then(() => query(db.forOperator().kysely).then(() => order.push('operator'))),
  ]);
  assert.deepEqual(order, ['begin', 'commit', 'operator']);
});
