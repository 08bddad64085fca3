// Reads add the punitory accrued since the last posting (docs/domain.md "Punitory"): every
// installment, credit balance, client read, worklist item and the summary show today's debt
// although nothing was posted since.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { client, credit, pay, plan } from '../../helpers/book.ts';

// One installment of 1000 (no interest), 0.5 % a day: 5.00 a day while unpaid.
const ONE = { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 0.005 };
const balance = (i: any) => [i.punitory_posted, i.punitory_accrued, i.paid, i.outstanding];
/** A credit's balance without the schedule's parts (principal, interest, vat: 1000, 0, 0 here). */
const owed = ({ principal, interest, vat, insurance, fees, charges, waived, ...rest }: any) => {
  assert.deepEqual([principal, interest, vat, insurance, fees, charges, waived], [1000, 0, 0, 0, 0, 0, 0]);
  return rest;
};

test('reads add the punitory accrued since the last posting; nothing is written for it', async (t) => {
  const clock = settableClock('2025-03-11');
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-01-30' }); // due 2025-03-01: 10 days late
  const id = d.credit.id;

  const read = json(await h.get(`/api/credits/${id}`));
  assert.deepEqual(balance(read.installments[0]), [0, 50, 0, 1050]);
  // the parts of the schedule (no interest, no VAT) besides what is owed
  assert.deepEqual(read.balance, {
    principal: 1000,
    interest: 0,
    vat: 0,
    insurance: 0,
    fees: 0,
    punitory_posted: 0,
    punitory_accrued: 50,
    charges: 0,
    waived: 0,
    paid: 0,
    outstanding: 1050,
  });
  assert.deepEqual(
    json(await h.get(`/api/credits/${id}/ledger`)).map((e: any) => e.type),
    ['installment'],
  );
  const detail = json(await h.get(`/api/clients/${c.id}`));
  assert.deepEqual(balance(detail.installments[0]), [0, 50, 0, 1050]);
  const work = json(await h.get(`/api/installments?credit_id=${id}`));
  assert.deepEqual(balance(work.items[0]), [0, 50, 0, 1050]);
  const summary = json(await h.get('/api/reports/summary'));
  assert.deepEqual([summary.outstanding, summary.overdue], [1050, 1050]);
  // as of a past day: what had accrued by then
  assert.equal(json(await h.get('/api/reports/summary?as_of=2025-03-05')).outstanding, 1020);

  // a partial payment posts up to its date; the rest accrues on the unpaid 600 afterwards
  const paid = await pay(h, id, { amount: 450 });
  assert.deepEqual(owed(paid.balance), { punitory_posted: 50, punitory_accrued: 0, paid: 450, outstanding: 600 });
  clock.set('2025-03-15');
  const later = json(await h.get(`/api/credits/${id}`));
  assert.deepEqual(owed(later.balance), { punitory_posted: 50, punitory_accrued: 12, paid: 450, outstanding: 612 }); // 4 days × 0.5 % × 600
  assert.equal(json(await h.get('/api/reports/summary')).outstanding, 612);
  // paid off: nothing accrues any more
  const off = await pay(h, id, { amount: 612 });
  assert.deepEqual(owed(off.balance), { punitory_posted: 62, punitory_accrued: 0, paid: 1062, outstanding: 0 });
  assert.equal(off.credit.status, 'closed');
  clock.set('2025-04-20');
  assert.deepEqual(json(await h.get(`/api/credits/${id}`)).balance, off.balance);
});

test('a cancelled credit accrues nothing; a written-off one stops on its write-off date', async (t) => {
  const clock = settableClock('2025-03-11');
  const h = await build(t, { clock });
  const p = await plan(h, ONE);
  const c = await client(h);
  // cancelled before its first due date (2025-04-10), the only time it can be; read long after it
  const cancelled = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-03-11' });
  assert.equal((await h.post(`/api/credits/${cancelled.credit.id}/cancel`)).statusCode, 200);

  const wo = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2025-01-30' });
  assert.equal((await h.post(`/api/credits/${wo.credit.id}/write-off`, { reason: 'gone' })).statusCode, 200);
  clock.set('2025-05-20');
  assert.deepEqual(json(await h.get(`/api/credits/${cancelled.credit.id}`)).balance.punitory_accrued, 0);
  assert.deepEqual(json(await h.get('/api/reports/summary')).outstanding, 0);
  // 50 posted on the write-off (10 days), nothing accrued after it
  assert.deepEqual(owed(json(await h.get(`/api/credits/${wo.credit.id}`)).balance), {
    punitory_posted: 50,
    punitory_accrued: 0,
    paid: 0,
    outstanding: 1050,
  });
  assert.equal(json(await h.get('/api/reports/summary')).written_off_outstanding, 1050);
});

test("a cancelled credit's installments, read after their due dates, are never late and accrue nothing", async (t) => {
  const clock = settableClock('2025-03-11');
  const h = await build(t, { clock });
  const p = await plan(h, { ...ONE, installments_count: 3 });
  const c = await client(h);
  const cancelled = await credit(h, c.id, { credit_config_id: p.id, amount: 900, start_date: '2025-03-11' });
  const cid = cancelled.credit.id;
  assert.equal((await h.post(`/api/credits/${cid}/cancel`)).statusCode, 200);
  // the same credit left active: late by then, as a control that the clock moved past the due dates
  const active = await credit(h, c.id, { credit_config_id: p.id, amount: 900, start_date: '2025-03-11' });
  clock.set('2025-07-20'); // every due date (2025-04-10, 05-10, 06-09) is past

  const late = (i: any) => [i.overdue, i.days_late, i.punitory_posted, i.punitory_accrued, i.charges];
  const read = json(await h.get(`/api/credits/${cid}`));
  assert.equal(read.credit.status, 'inactive');
  assert.deepEqual(
    read.installments.map(late),
    [
      [false, 0, 0, 0, 0],
      [false, 0, 0, 0, 0],
      [false, 0, 0, 0, 0],
    ],
    'the credit read: history, never late',
  );
  assert.deepEqual(
    [read.balance.punitory_posted, read.balance.punitory_accrued, read.balance.charges],
    [0, 0, 0],
    'the balance accrues nothing',
  );
  const control = json(await h.get(`/api/credits/${active.credit.id}`));
  assert.ok(
    control.installments.every((i: any) => i.overdue && i.days_late > 0 && i.punitory_accrued > 0),
    `the active credit's installments are late: ${JSON.stringify(control.installments.map(late))}`,
  );

  // the client read (written by the database) says the same of the cancelled credit's installments
  const detail = json(await h.get(`/api/clients/${c.id}`));
  const mine = detail.installments.filter((i: any) => i.credit_id === cid);
  assert.equal(mine.length, 3);
  assert.deepEqual(mine.map(late), read.installments.map(late), 'the client read: as the credit read');
  assert.deepEqual(
    detail.installments.filter((i: any) => i.credit_id === cid).map((i: any) => i.outstanding),
    read.installments.map((i: any) => i.outstanding),
  );
  // the statement too
  const statement = json(await h.get(`/api/credits/${cid}/statement`));
  assert.deepEqual(statement.installments.map(late), read.installments.map(late), 'the statement: as the credit read');
  // and it is in no worklist
  assert.equal(json(await h.get(`/api/installments?credit_id=${cid}`)).total, 0);
});
