// Races that only a real multi-connection server can run: PostgreSQL only (the embedded
// database has a single connection, so its requests never overlap).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json } from '../../helpers/app.ts';
import { testDbKind } from '../../helpers/db.ts';
import { accrue, assertLedgerInvariant, client, credit, day, plan } from '../../helpers/book.ts';

const pgOnly = { skip: testDbKind() !== 'postgres' ? 'needs PostgreSQL (TEST_DATABASE_URL)' : false };

test('payments racing on one credit never over-allocate: the second sees the first', pgOnly, async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2, daily_punitory_rate: 0.01 });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-20) });
  // two payments of 600 against 1000 owed: exactly one fits
  const pair = await Promise.all([0, 1].map(() => h.post(`/api/credits/${d.credit.id}/payments`, { amount: 600 })));
  assert.deepEqual(pair.map((r) => r.statusCode).sort(), [201, 422], pair.map((r) => r.body).join('\n'));
  // twelve payments of 50 against the 400 left: eight fit; the other four find the credit closed (409)
  const many = await Promise.all(
    Array.from({ length: 12 }, () => h.post(`/api/credits/${d.credit.id}/payments`, { amount: 50 })),
  );
  const codes = many.map((r) => r.statusCode);
  assert.equal(codes.filter((s) => s === 201).length, 8, codes.join(','));
  assert.equal(codes.filter((s) => s === 409).length, 4, codes.join(','));
  const after = json(await h.get(`/api/credits/${d.credit.id}`));
  assert.equal(after.credit.status, 'closed');
  const paid = after.ledgerEntries
    .filter((e: any) => e.type === 'payment')
    .reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0);
  assert.equal(paid, 100_000);
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('credits created concurrently get sequential ids 1..N with no gap or repeat', pgOnly, async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 3 });
  const inactive = await plan(h, { is_active: false });
  const c = await client(h);
  const N = 40;
  // every fourth request fails (inactive plan) inside the race: it must not burn a number
  const res = await Promise.all(
    Array.from({ length: N }, (_, k) =>
      h.post(`/api/clients/${c.id}/credits`, { credit_config_id: k % 4 === 3 ? inactive.id : p.id, amount: 100 + k }),
    ),
  );
  const ok = res.filter((r) => r.statusCode === 201).map((r) => json(r).credit.sequential_id);
  assert.equal(ok.length, N - N / 4);
  assert.deepEqual(
    [...ok].sort((a, b) => a - b),
    Array.from({ length: ok.length }, (_, i) => i + 1),
  );
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});

test('two daily runs at once, with payments in between, post each punitory once', pgOnly, async (t) => {
  const h = await build(t);
  const p = await plan(h, { installments_count: 2, daily_punitory_rate: 0.005 });
  const c = await client(h);
  const credits = [];
  for (let k = 0; k < 30; k++)
    credits.push((await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: day(-70) })).credit);
  const runs = accrue(h, '--business', h.tenant.businessId);
  const runs2 = accrue(h, '--business', h.tenant.businessId);
  const payments = credits.slice(0, 10).map((cr) => h.post(`/api/credits/${cr.id}/payments`, { amount: 100 }));
  const [a, b, ...pays] = await Promise.all([runs, runs2, ...payments]);
  assert.equal(a.code, 0, a.err);
  assert.equal(b.code, 0, b.err);
  assert.ok(
    pays.every((r) => r.statusCode === 201),
    'every r of pays: r.statusCode === 201',
  );
  // a third run finds nothing left to do
  const c3 = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(c3.out.businesses[0].punitory_entries, 0);
  // every installment carries exactly the punitory owed (checked by the invariant: posted = cumulative)
  const rows = await h.db.kysely
    .selectFrom('ledger')
    .select(({ fn }) => [fn.countAll<number>().as('n')])
    .where('business_id', '=', h.tenant.businessId)
    .where('type', '=', 'punitory')
    .executeTakeFirstOrThrow();
  assert.ok(Number(rows.n) >= 30, 'holds: Number(rows.n) >= 30');
  await assertLedgerInvariant(h.db, h.tenant.businessId);
});
