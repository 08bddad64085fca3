import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../helpers/app.ts';
import { createDemo } from '../../src/services/demo.ts';
import { assertLedgerInvariant } from '../helpers/book.ts';

test('the demo business has a living book: a payment, an overdue credit with punitory, a closed one', async (t) => {
  const h = await build(t);
  const demo = await createDemo(h.db);
  const key = demo.keys.read;
  const credits = json(await h.get('/api/credits', key)).items;
  assert.equal(credits.length, 5);
  assert.deepEqual(credits.map((c: any) => c.status).sort(), ['active', 'active', 'active', 'active', 'closed']);
  const worklist = json(await h.get('/api/installments?overdue=true', key));
  assert.ok(worklist.total >= 2, 'holds: worklist.total >= 2');
  // the overdue ones show their punitory, posted at the month close or accrued since
  assert.ok(
    worklist.items.some((i: any) => i.punitory_posted + i.punitory_accrued > 0),
    'some i of worklist.items: i.punitory_posted + i.punitory_accrued > 0',
  );
  const ledgers = await Promise.all(
    credits.map(async (c: any) => json(await h.get(`/api/credits/${c.id}/ledger`, key))),
  );
  const all = ledgers.flat();
  assert.ok(
    all.some((e: any) => e.type === 'payment'),
    "some e of all: e.type === 'payment'",
  );
  assert.ok(
    all.some((e: any) => e.type === 'punitory' && e.created_by === 'cli'),
    "some e of all: e.type === 'punitory' && e.created_by === 'cli'",
  );
  await assertLedgerInvariant(h.db, demo.business.id);
});
