// The collections report (docs/reports.md "Collections"): payments of a period by day, method,
// channel and branch, reconciling with the ledger's payment entries to the cent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { P35, client, credit, ledger, pay, payments, plan } from '../../../helpers/book-in-cents.ts';

test('collections by day, method, channel and branch; totals equal the ledger', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const id = d.credit.id;
  // 450.10 transfer/Banco on 01-31, 100.25 cash on 02-10, 200 card/Posnet on 02-10 (reversed later)
  await pay(h, id, {
    amount: 450.1,
    paid_on: '2024-01-31',
    method: 'transfer',
    channel: 'Banco',
    external_reference: 'A',
  });
  await pay(h, id, { amount: 100.25, paid_on: '2024-02-10' });
  await pay(h, id, { amount: 200, paid_on: '2024-02-10', method: 'card', channel: 'Posnet', external_reference: 'B' });
  const card = (await payments(h, id)).find((x) => x.method === 'card');
  const rev = await h.post(`/api/credits/${id}/payments/${card.id}/reverse`, { reason: 'contracargo' });
  assert.equal(rev.statusCode, 200, rev.body);

  const report = async (g: string) => {
    const r = await h.get(`/api/reports/collections?from=2024-01-01&to=2024-04-15&group_by=${g}`);
    assert.equal(r.statusCode, 200, r.body);
    return json(r);
  };
  const fig = (r: any) => r.rows.map((x: any) => [x.key, x.payments, x.amount, x.reversed_payments, x.reversed_amount]);
  const byDay = await report('day');
  assert.deepEqual(fig(byDay), [
    ['2024-01-31', 1, 450.1, 0, 0],
    ['2024-02-10', 2, 300.25, 1, 200],
  ]);
  assert.deepEqual(byDay.totals, { payments: 3, amount: 750.35, reversed_payments: 1, reversed_amount: 200 });
  assert.deepEqual(fig(await report('method')), [
    ['card', 1, 200, 1, 200],
    ['cash', 1, 100.25, 0, 0],
    ['transfer', 1, 450.1, 0, 0],
  ]);
  assert.deepEqual(fig(await report('channel')), [
    ['Banco', 1, 450.1, 0, 0],
    ['Posnet', 1, 200, 1, 200],
    [null, 1, 100.25, 0, 0],
  ]);
  assert.deepEqual(fig(await report('branch')), [[null, 3, 750.35, 1, 200]]);
  const narrow = await h.get('/api/reports/collections?from=2024-02-01&to=2024-02-28&group_by=day');
  assert.deepEqual(fig(json(narrow)), [['2024-02-10', 2, 300.25, 1, 200]]);

  // the ledger: payment slices minus reversal entries, in cents, equal amount − reversed_amount
  const cents = (x: number) => Math.round(x * 100);
  const entries = await ledger(h, id);
  const paid = entries
    .filter((e) => e.type === 'payment' && (e.origin === 'payment' || e.origin === 'reversal'))
    .reduce((s, e) => s + cents(e.amount), 0);
  assert.equal(paid, cents(byDay.totals.amount) - cents(byDay.totals.reversed_amount));

  const bad = await h.get('/api/reports/collections?from=2024-03-01&to=2024-02-01');
  assert.equal(bad.statusCode, 400);
  const badGroup = await h.get('/api/reports/collections?group_by=week');
  assert.equal(badGroup.statusCode, 400);
});
