// The collection charge (docs/domain.md, "Fees and charges"): a fixed amount (with VAT when the
// fee says `vat`) charged once on an installment still unpaid when it becomes `after_days` days
// late, dated that day; posted at the month close or at the first event after; shown by every read
// from that day on; paid before the installment's punitory and amount; waivable. Every figure is
// worked out by hand in a comment next to it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { accrue, client, credit, detail, ledger, pay, payoff, plan } from '../../helpers/book-in-cents.ts';

const notSchedule = (entries: any[]) =>
  entries.filter((e) => e.type !== 'installment').map((e) => [e.type, e.origin, e.amount, e.effective_date]);

// 900 on 2024-01-01, no interest, 3 installments of 300 due 01-31, 02-29, 03-31; no punitory; a
// collection charge of 100 without VAT once an installment is 10 days late
async function noVat(t: Parameters<typeof build>[0]) {
  const clock = settableClock('2024-02-09');
  const h = await build(t, { clock });
  const p = await plan(h, {
    installments_count: 3,
    interest_rate: 0,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0,
    fees: [{ type: 'collection', amount: 100, vat: false, after_days: 10 }],
  });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 900, start_date: '2024-01-01' });
  return { h, clock, id: d.credit.id as string, inst: d.installments.map((i: any) => i.id as string) };
}

test('without VAT: charged on the day the installment is after_days late, shown before it is posted, posted once by the month close, paid first, waived, in the payoff', async (t) => {
  const { h, clock, id, inst } = await noVat(t);
  // 02-09: #1 is 9 days late, no charge yet
  let d = await detail(h, id);
  assert.deepEqual([d.installments[0].charges, d.installments[0].outstanding], [0, 300]);
  // 02-10: 10 days late: 100 charged; a read shows it though nothing is written yet
  clock.set('2024-02-10');
  d = await detail(h, id);
  assert.deepEqual([d.installments[0].charges, d.installments[0].outstanding], [100, 400]);
  assert.deepEqual([d.balance.charges, d.balance.outstanding], [100, 1000]);
  assert.deepEqual(notSchedule(await ledger(h, id)), []);
  // the payoff: #1's 300 and its charge 100, the later principal 600 (no interest): 1000
  const q = await payoff(h, id);
  assert.deepEqual([q.amount, q.breakdown.charges], [1000, 100]);

  // the month close of February (run on 03-01) posts it, dated 02-10; a second run posts nothing
  clock.set('2024-03-01');
  const bid = h.tenant.businessId;
  const first = await accrue(h, '--business', bid);
  assert.equal(first.code, 0, first.err);
  assert.equal(first.out.businesses[0].charge_entries, 1);
  const again = await accrue(h, '--business', bid);
  assert.equal(again.out.businesses[0].charge_entries, 0);
  assert.deepEqual(notSchedule(await ledger(h, id)), [['charge', 'fee', 100, '2024-02-10']]);

  // a payment of 150 on 03-01: #1's charge first (100), then 50 of its amount
  await pay(h, id, { amount: 150 });
  d = await detail(h, id);
  assert.deepEqual(
    [d.installments[0].charges, d.installments[0].paid, d.installments[0].outstanding, d.installments[0].status],
    [100, 150, 250, 'partial'],
  );
  // nothing of the charges is left unpaid
  assert.deepEqual([d.balance.charges, (await payoff(h, id)).breakdown.charges], [100, 0]);

  // 03-12: #2 (due 02-29) is 12 days late: charged on 03-10. A waiver of 40 of it posts it first
  clock.set('2024-03-12');
  const w = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: inst[1],
    kind: 'charge',
    amount: 40,
    reason: 'agreed with the manager',
  });
  assert.equal(w.statusCode, 201, w.body);
  // #2: 300 + 100 − 40 = 360
  const i2 = json(w).installments[1];
  assert.deepEqual([i2.charges, i2.waived, i2.outstanding], [100, 40, 360]);
  // more than the 60 left is 422
  const over = await h.post(`/api/credits/${id}/waivers`, {
    installment_id: inst[1],
    kind: 'charge',
    amount: 60.01,
    reason: 'x',
  });
  assert.equal(over.statusCode, 422, over.body);
  assert.deepEqual(notSchedule(await ledger(h, id)).slice(2), [
    ['charge', 'fee', 100, '2024-03-10'],
    ['waiver', 'waiver', -40, '2024-03-12'],
  ]);

  // the payoff on 03-12: #1 250 + #2 360 + #3's principal 300 (due later, no interest) = 910;
  // paying it closes the credit and #3 is never charged
  const q2 = await payoff(h, id);
  assert.deepEqual([q2.amount, q2.breakdown.charges], [910, 60]);
  await pay(h, id, { amount: 910 });
  d = await detail(h, id);
  assert.deepEqual([d.credit.status, d.balance.outstanding, d.balance.charges], ['closed', 0, 200]);
  clock.set('2024-04-15');
  const april = await accrue(h, '--business', bid);
  assert.equal(april.out.businesses[0].charge_entries, 0);
  assert.equal((await detail(h, id)).balance.charges, 200);
});

// 900 on 2024-01-01, no interest, 21 % VAT, 1 % a day of simple punitory (3.00 a day on an unpaid
// installment of 300, 3.63 with VAT); a collection charge of 100 with VAT (121, 21 of it VAT) once
// an installment is 5 days late: #1 (due 01-31) on 02-05
async function withVat(t: Parameters<typeof build>[0], today: string) {
  const clock = settableClock(today);
  const h = await build(t, { clock });
  const p = await plan(h, {
    installments_count: 3,
    interest_rate: 0,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.01,
    vat_rate: 0.21,
    fees: [{ type: 'collection', amount: 100, vat: true, after_days: 5 }],
  });
  const c = await client(h);
  const make = async () =>
    (await credit(h, c.id, { credit_config_id: p.id, amount: 900, start_date: '2024-01-01' })).credit.id as string;
  return { h, clock, make };
}

test('with VAT: a payment on the charge day comes too late and pays the charge first, then punitory, then the amount', async (t) => {
  const { h, make } = await withVat(t, '2024-02-05');
  const id = await make();
  // 02-05: 5 days late (02-01..05): punitory 5 × 3 = 15, with VAT 18.15; the charge 121
  await pay(h, id, { amount: 200 });
  const entries = await ledger(h, id);
  // posted together before the payment (their order within one instant is not part of the answer)
  const posted = notSchedule(entries).filter((e) => e[0] !== 'payment');
  assert.deepEqual(
    posted.sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    [
      ['charge', 'fee', 121, '2024-02-05'],
      ['punitory', 'accrual', 18.15, '2024-02-05'],
    ],
  );
  // 200: 121 of the charge, 18.15 of punitory, 60.85 of the amount: 300 + 18.15 + 121 − 200 = 239.15
  // owed, all of it the amount (the payoff shows no charge nor punitory of #1 left; 239.15 + the
  // later principal 600 = 839.15)
  const i1 = (await detail(h, id)).installments[0];
  assert.deepEqual([i1.charges, i1.outstanding, i1.status], [121, 239.15, 'partial']);
  const q = await payoff(h, id);
  assert.deepEqual([q.amount, q.breakdown.charges, q.breakdown.punitory, q.breakdown.due], [839.15, 0, 0, 239.15]);
});

test('paid the day before the charge day: no charge; a reversal makes it owed again; a payment recorded later, dated before the charge day, takes a posted charge back', async (t) => {
  const { h, clock, make } = await withVat(t, '2024-02-04');
  // A: 02-04, 4 days late: punitory 12, 14.52 with VAT; 314.52 pays #1
  const a = await make();
  await pay(h, a, { amount: 314.52 });
  clock.set('2024-02-10');
  let d = await detail(h, a);
  assert.deepEqual([d.installments[0].status, d.installments[0].charges], ['paid', 0]);
  // the payment bounces (reversed on 02-10): #1 was unpaid on 02-05 after all, charged 121 then
  const pid = (await ledger(h, a)).find((e) => e.type === 'payment').payment_id;
  const rev = await h.post(`/api/credits/${a}/payments/${pid}/reverse`, { reason: 'bounced' });
  assert.equal(rev.statusCode, 200, rev.body);
  d = await detail(h, a);
  // 300 + punitory of 10 days (30, 36.30 with VAT) + 121 = 457.30
  assert.deepEqual([d.installments[0].charges, d.installments[0].outstanding], [121, 457.3]);
  assert.deepEqual(
    notSchedule(await ledger(h, a)).filter((e) => e[0] === 'charge'),
    [['charge', 'fee', 121, '2024-02-05']],
  );

  // B: on 02-08 a payment of 10 posts the charge (dated 02-05) and pays 10 of it
  clock.set('2024-02-08');
  const b = await make();
  await pay(h, b, { amount: 10 });
  assert.equal((await detail(h, b)).installments[0].charges, 121);
  // then a transfer of 02-03 is recorded: 300 + 3 days of punitory (9, 10.89 with VAT) = 310.89
  // paid #1 before 02-05: the charge is taken back (−121, −21 of VAT, dated 02-05) and the 10 of
  // 02-08 goes to #2
  await pay(h, b, { amount: 310.89, paid_on: '2024-02-03' });
  d = await detail(h, b);
  assert.deepEqual(
    [d.installments[0].status, d.installments[0].charges, d.installments[0].outstanding],
    ['paid', 0, 0],
  );
  assert.deepEqual([d.installments[1].paid, d.balance.charges], [10, 0]);
  assert.deepEqual(
    notSchedule(await ledger(h, b)).filter((e) => e[0] === 'charge'),
    [
      ['charge', 'fee', 121, '2024-02-05'],
      ['charge', 'correction', -121, '2024-02-05'],
    ],
  );
});
