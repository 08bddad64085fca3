// The collection charge of a plan (a fixed amount, with VAT, once per installment `after_days` days
// late) and waivers of charges and punitory, through the API and the daily run only. Every figure
// is worked out by hand in a comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { client, credit, detail, ledger, plan } from '../../../helpers/book-in-cents.ts';
import { accrue } from '../../../helpers/cli.ts';
import { userSession } from '../../../helpers/sessions.ts';

// 1000 in 2 installments of 500 (no interest) from 2024-01-01: due 01-31 and 02-29. VAT 21 %.
// Punitory 0.2 % a day on what is unpaid: 1.00 a day on 500, 1.21 with its VAT. The collection
// charge: 100 + 21 VAT = 121, once the installment is 5 days late (02-05 for the first).
const PLAN = {
  installments_count: 2,
  interest_rate: 0,
  vat_rate: 0.21,
  days_until_first_payment: 30,
  cut_type: 'fixed',
  daily_punitory_rate: 0.002,
  fees: [{ type: 'collection', amount: 100, vat: true, after_days: 5 }],
};

const money = (i: any) => [i.charges, i.punitory_posted, i.punitory_accrued, i.waived, i.paid, i.outstanding];

test('the charge shows on reads once due, is posted by the next payment dated the day it fell due, and is paid first', async (t) => {
  const h = await build(t, { clock: settableClock('2024-02-10') });
  const p = await plan(h, PLAN);
  const c = await client(h);
  const id = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' })).credit.id;

  // 02-10: #1 is 10 days late: the charge 121 and 10 days of punitory (10 + 2.10 VAT) are owed,
  // nothing is posted yet: 500 + 121 + 12.10 = 633.10
  const before = await detail(h, id);
  assert.deepEqual(money(before.installments[0]), [121, 0, 12.1, 0, 0, 633.1]);
  assert.deepEqual(money(before.installments[1]), [0, 0, 0, 0, 0, 500]);
  assert.equal(before.balance.outstanding, 1133.1);

  // a payment of 200: the charge first (121), then the punitory (12.10), then 66.90 of the amount
  const paid = await h.post(`/api/credits/${id}/payments`, { amount: 200 });
  assert.equal(paid.statusCode, 201, paid.body);
  const d = json(paid);
  assert.deepEqual(
    d.ledgerEntries.map((e: any) => [e.type, e.origin, e.amount, e.effective_date]),
    [
      ['charge', 'fee', 121, '2024-02-05'],
      ['punitory', 'accrual', 12.1, '2024-02-10'],
      ['payment', 'payment', 200, '2024-02-10'],
    ],
  );
  // 633.10 − 200 = 433.10 still owed on #1, all of it amount
  assert.deepEqual(money(d.installments[0]), [121, 12.1, 0, 0, 200, 433.1]);
  assert.equal(d.installments[0].status, 'partial');
  // the charge is posted once: a second payment the same day posts no other
  const again = json(await h.post(`/api/credits/${id}/payments`, { amount: 10 }));
  assert.deepEqual(
    again.ledgerEntries.map((e: any) => e.type),
    ['payment'],
  );
  // nothing of the charge or punitory is left to waive
  const none = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: d.installments[0].id,
    kind: 'charge',
    amount: 1,
    reason: 'paid already',
  });
  assert.deepEqual([none.statusCode, json(none).code], [422, 'unprocessable']);
});

test('the month close posts the charge; waivers take off at most what is posted and unpaid, by admins and full keys only', async (t) => {
  const clock = settableClock('2024-03-01');
  const h = await build(t, { clock });
  const p = await plan(h, PLAN);
  const c = await client(h);
  const id = (await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' })).credit.id;
  const run = await accrue(h, '--business', h.tenant.businessId); // its own: the database is shared
  assert.equal(run.code, 0, run.err);
  // February closed: the charge dated 02-05, the punitory of Feb 1..29 (29 + 6.09 VAT = 35.09)
  const posted = (await ledger(h, id)).filter((e) => e.type !== 'installment');
  assert.deepEqual(
    posted.map((e) => [e.type, e.amount, e.effective_date]),
    [
      ['charge', 121, '2024-02-05'],
      ['punitory', 35.09, '2024-02-29'],
    ],
  );
  const first = (await detail(h, id)).installments[0];
  // 03-01 is day 30: one more day accrued since the close (1.21)
  assert.deepEqual(money(first), [121, 35.09, 1.21, 0, 0, 657.3]);

  const waive = (body: Record<string, unknown>, key?: string | null, headers?: Record<string, string>) =>
    h.req({
      method: 'POST',
      url: `/api/credits/${id}/waivers`,
      key,
      ...(headers ? { headers } : {}),
      payload: { installment_id: first.id, reason: 'agreed with the manager', ...body },
    });

  // who may waive: not a read key, a viewer or an employee
  const denied = await waive({ kind: 'charge', amount: 21 }, h.tenant.readKey);
  assert.deepEqual([denied.statusCode, json(denied).code], [403, 'forbidden']);
  for (const role of ['viewer', 'employee'] as const) {
    const s = await userSession(h, h.tenant.businessId, role);
    const r = await waive({ kind: 'charge', amount: 21 }, null, s.write);
    assert.deepEqual([r.statusCode, json(r).code], [403, 'forbidden'], `${role}: ${r.body}`);
  }
  // an admin waives 21 of the charge: 201 with the credit
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const w1 = await waive({ kind: 'charge', amount: 21 }, null, admin.write);
  assert.equal(w1.statusCode, 201, w1.body);
  // the waiver first posted the punitory up to today (the 1.21 of 03-01): 657.30 − 21 = 636.30
  assert.deepEqual(money(json(w1).installments[0]), [121, 36.3, 0, 21, 0, 636.3]);
  // 100 of the charge is left unpaid: 100.01 is refused, 100 is taken
  const over = await waive({ kind: 'charge', amount: 100.01 });
  assert.deepEqual([over.statusCode, json(over).code], [422, 'unprocessable']);
  assert.equal((await waive({ kind: 'charge', amount: 100 })).statusCode, 201);
  // the punitory posted and unpaid is 36.30: more is refused, all of it is taken
  const overP = await waive({ kind: 'punitory', amount: 36.31 });
  assert.deepEqual([overP.statusCode, json(overP).code], [422, 'unprocessable']);
  const w3 = await waive({ kind: 'punitory', amount: 36.3 });
  assert.equal(w3.statusCode, 201, w3.body);
  // left: only the installment's 500
  assert.deepEqual(money(json(w3).installments[0]), [121, 36.3, 0, 157.3, 0, 500]);
  // the waivers are negative entries of type and origin waiver, never cash
  const waivers = (await ledger(h, id)).filter((e) => e.type === 'waiver');
  assert.deepEqual(
    waivers.map((e) => [e.origin, e.amount, e.payment_id]),
    [
      ['waiver', -21, null],
      ['waiver', -100, null],
      ['waiver', -36.3, null],
    ],
  );
  assert.equal(json(await h.get('/api/reports/summary')).collected.month, 0);
  // one waiver.created event each
  const events = json(await h.get('/api/events?after=0&types=waiver.created')).items;
  assert.deepEqual(
    events.map((e: any) => [e.data.object.kind, e.data.object.amount]),
    [
      ['charge', 21],
      ['charge', 100],
      ['punitory', 36.3],
    ],
  );
  // an installment of another credit, or a bad kind
  const other = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const wrong = await h.post(`/api/credits/${other.credit.id}/waivers`, {
    installment_id: first.id,
    kind: 'charge',
    amount: 1,
    reason: 'x',
  });
  assert.ok([404, 422].includes(wrong.statusCode), `another credit's installment is refused: ${wrong.body}`);
  const kind = await waive({ kind: 'interest', amount: 1 });
  assert.deepEqual([kind.statusCode, json(kind).code], [400, 'validation_failed']);
});
