// Backdated payments (docs/domain.md "Payments and allocation" and "Payment reversal"): a payment dated before the
// credit's latest payment is placed in date order and the later ones are allocated again; the
// result is what paying in date order from the start gives, to the cent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, settableClock } from '../../helpers/app.ts';
import {
  P35,
  client,
  credit,
  detail,
  figures,
  ledger,
  netBy,
  pay,
  payments,
  plan,
} from '../../helpers/book-in-cents.ts';

// Two credits of the P35 plan with identical terms: 1000 on 2024-01-01 → 3 × 450 due 01-31,
// 02-29, 03-31; read on 2024-04-15. Both receive 450 dated 02-15 and 450 dated 03-10: Y in date
// order, X the 03-10 one first and the 02-15 one afterwards (a transfer recorded late).
//
// In date order (0.5 %/day on the unpaid amount from the day after the due date; a payment
// lowers the base from the day after it is made):
// - 02-15: #1 late 15 days (Feb 1..15): 15 × 2.25 = 33.75 punitory, then 416.25 of the amount
//   → #1 owes 33.75 from 02-16.
// - 03-10: #1 24 more days (Feb 16..29 = 14, Mar 1..10 = 10) on 33.75: 24 × 0.16875 = 4.05,
//   cumulative 37.80; #2 late 10 days (Mar 1..10): 22.50. 450 → #1 4.05 + 33.75 = 37.80 (paid),
//   #2 22.50 + 389.70 = 412.20 → #2 owes 60.30 from 03-11.
// - today 04-15: #2 36 more days (Mar 11..31 = 21, Apr 1..15 = 15) on 60.30: 36 × 0.3015 =
//   10.854, cumulative 22.50 + 10.854 = 33.354 → 33.35, outstanding 60.30 + 10.85 = 71.15;
//   #3 late 15 days (Apr 1..15) on 450: 33.75, outstanding 483.75.
// Balance: 1350 + 37.80 + 33.35 + 33.75 − 900 = 554.90.
const EXPECTED = [
  // paid on 03-10: 39 days after 01-31 (Feb 29 + Mar 10)
  {
    number: 1,
    amount: 450,
    status: 'paid',
    overdue: false,
    days_late: 39,
    punitory: 37.8,
    paid: 487.8,
    outstanding: 0,
  },
  // 04-15 − 02-29 = 46 days
  {
    number: 2,
    amount: 450,
    status: 'partial',
    overdue: true,
    days_late: 46,
    punitory: 33.35,
    paid: 412.2,
    outstanding: 71.15,
  },
  {
    number: 3,
    amount: 450,
    status: 'pending',
    overdue: true,
    days_late: 15,
    punitory: 33.75,
    paid: 0,
    outstanding: 483.75,
  },
];

test('a payment dated before the latest one is placed in date order: the same figures as paying in date order', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const p = await plan(h, P35);
  const c = await client(h);
  const terms = { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' };
  const x = await credit(h, c.id, terms);
  const y = await credit(h, c.id, terms);
  const noX = new Map<string, number>(x.installments.map((i: any) => [i.id, i.number]));

  // Y, in date order
  await pay(h, y.credit.id, { amount: 450, paid_on: '2024-02-15' });
  await pay(h, y.credit.id, { amount: 450, paid_on: '2024-03-10' });

  // X: the 03-10 payment alone first. #1 late 39 days (Feb 1..29, Mar 1..10): 39 × 2.25 = 87.75;
  // #2 late 10 days: 22.50; both posted up to 03-10 before the allocation; 450 → #1 87.75
  // punitory + 362.25 of its amount
  const late = await pay(h, x.credit.id, { amount: 450, paid_on: '2024-03-10' });
  const later = late.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  assert.deepEqual(
    netBy(
      late.ledgerEntries.filter((e: any) => e.type === 'punitory'),
      (e) => `#${noX.get(e.installment_id)}`,
    ),
    { '#1': 87.75, '#2': 22.5 },
  );
  assert.deepEqual(
    late.ledgerEntries.filter((e: any) => e.type === 'payment').map((e: any) => [noX.get(e.installment_id), e.amount]),
    [[1, 450]],
  );
  assert.equal(late.installments[0].status, 'partial');

  // then the 02-15 transfer: accepted though dated before the latest payment
  const early = await pay(h, x.credit.id, { amount: 450, paid_on: '2024-02-15' });
  const earlier = early.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  assert.notEqual(earlier, later);

  // the same figures as Y, and as worked out above, to the cent
  const dx = await detail(h, x.credit.id);
  const dy = await detail(h, y.credit.id);
  assert.deepEqual(dy.installments.map(figures), EXPECTED);
  assert.deepEqual(dx.installments.map(figures), EXPECTED);
  for (const d of [dx, dy]) {
    assert.equal(d.credit.status, 'active');
    assert.deepEqual(
      [d.balance.paid, d.balance.outstanding, d.balance.punitory_posted + d.balance.punitory_accrued],
      [900, 554.9, 104.9], // 37.80 + 33.35 + 33.75 = 104.90
    );
  }

  // X's ledger: the 03-10 payment now holds 37.80 on #1 and 412.20 on #2 (its allocation
  // changed, by entries of origin correction), the 02-15 one 450 on #1
  const lx = await ledger(h, x.credit.id);
  const who = (e: any) => (e.payment_id === later ? 'later' : e.payment_id === earlier ? 'earlier' : e.payment_id);
  assert.deepEqual(
    netBy(
      lx.filter((e) => e.type === 'payment'),
      (e) => `${who(e)}#${noX.get(e.installment_id)}`,
    ),
    { 'later#1': 37.8, 'later#2': 412.2, 'earlier#1': 450 },
  );
  assert.ok(
    lx.some((e) => e.origin === 'correction' && e.type === 'payment' && e.payment_id === later),
    'the later payment was re-allocated by correction entries',
  );
  assert.ok(!lx.some((e) => e.origin === 'reversal'), 'nothing was reversed');
  // #1 had been charged 87.75 up to 03-10 but owed 37.80: one negative punitory entry of 49.95,
  // the 87.75 still in place
  const p1 = lx.filter((e) => e.type === 'punitory' && noX.get(e.installment_id) === 1).map((e) => e.amount);
  assert.ok(p1.includes(87.75), JSON.stringify(p1));
  assert.ok(p1.includes(-49.95), JSON.stringify(p1));
  // #1's posted punitory is the recomputed one (the rest of #2 and #3 may still be accruing)
  assert.equal(dx.installments[0].punitory_posted, 37.8);
  assert.equal(dx.installments[0].punitory_accrued, 0);

  // the payments list shows both, neither reversed
  assert.deepEqual((await payments(h, x.credit.id)).map((q) => [q.paid_on, q.amount, q.reversed_at]).sort(), [
    ['2024-02-15', 450, null],
    ['2024-03-10', 450, null],
  ]);
});

// 1000 on 2024-01-01, P35, read on 2024-02-20. Paid 100 on 02-20, then 450 dated 01-31 (on the
// due date: no punitory) recorded afterwards.
// In date order: 01-31 450 pays #1 on time; 02-20 100 → #2 (not due until 02-29) 100.
// Recorded the other way, the 02-20 payment first met #1 late 20 days (Feb 1..20): 20 × 2.25 =
// 45.00 punitory, 55 of its amount; re-allocated, it moves to #2 and the 45.00 is taken back.
async function onTimeRecordedLate(t: any) {
  const h = await build(t, { clock: settableClock('2024-02-20') });
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const first = await pay(h, d.credit.id, { amount: 100, paid_on: '2024-02-20' });
  assert.deepEqual(
    first.installments.map((i: any) => [i.status, i.paid, i.punitory_posted]),
    [
      ['partial', 100, 45],
      ['pending', 0, 0],
      ['pending', 0, 0],
    ],
  );
  const r = await pay(h, d.credit.id, { amount: 450, paid_on: '2024-01-31' });
  return { h, d, r };
}

test('a backdated payment on the due date takes back the punitory a later payment met and moves that payment on', async (t) => {
  const { h, d, r } = await onTimeRecordedLate(t);
  // #1's days_late is pinned by the test below
  assert.deepEqual(
    r.installments.map(figures).map((f: any) => ({ ...f, days_late: f.number === 1 ? '(pinned below)' : f.days_late })),
    [
      {
        number: 1,
        amount: 450,
        status: 'paid',
        overdue: false,
        days_late: '(pinned below)',
        punitory: 0,
        paid: 450,
        outstanding: 0,
      },
      {
        number: 2,
        amount: 450,
        status: 'partial',
        overdue: false,
        days_late: 0,
        punitory: 0,
        paid: 100,
        outstanding: 350,
      },
      {
        number: 3,
        amount: 450,
        status: 'pending',
        overdue: false,
        days_late: 0,
        punitory: 0,
        paid: 0,
        outstanding: 450,
      },
    ],
  );
  assert.equal(r.credit.status, 'active');
  assert.equal(r.balance.outstanding, 800); // 1350 − 550
  // the 45.00 charged on #1 is still in the ledger, cancelled by a negative entry
  const l = await ledger(h, d.credit.id);
  assert.deepEqual(
    l.filter((e) => e.type === 'punitory').map((e) => e.amount),
    [45, -45],
  );
});

// docs/domain.md "Delinquency": a paid installment's days_late is the days between its due date and the
// day it became paid. In date order #1 became paid on 01-31, its due date: 0 days late.
test('a backdated payment that pays an installment on its due date leaves it 0 days late', {}, async (t) => {
  const { r } = await onTimeRecordedLate(t);
  assert.deepEqual([r.installments[0].status, r.installments[0].days_late], ['paid', 0]);
});
