// Early payoff (docs/domain.md "Early payoff"; GET /api/credits/{id}/payoff?as_of=): the quote is
// everything due by the date (amounts, posted and accrued punitory, less payments) plus, for the
// installments due later, their principal and the interest (and VAT) accrued pro rata in the
// current period; paying exactly that closes the credit with `rebate` entries for the interest not
// owed. A smaller prepayment is an ordinary payment in installment order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { P35, client, credit, detail, ledger, netBy, pay, payoff, plan, total } from '../../helpers/book-in-cents.ts';

test('payoff mid-period with installments overdue: due amounts with punitory, the principal and pro rata interest of the rest', async (t) => {
  const h = await build(t, { clock: settableClock('2024-03-10') });
  const p = await plan(h, P35);
  const c = await client(h);
  // 1000 on 2024-01-01 → 450 due 01-31, 02-29, 03-31 (principal 333.33, 333.33, 333.34; interest
  // 116.67, 116.67, 116.66)
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const id = d.credit.id;
  const no = new Map<string, number>(d.installments.map((i: any) => [i.id, i.number]));

  // as of 03-10:
  // #1 due 01-31, late 39 days (Feb 1..29, Mar 1..10): 450 + 39 × 2.25 = 450 + 87.75
  // #2 due 02-29, late 10 days (Mar 1..10): 450 + 10 × 2.25 = 450 + 22.50
  // #3 due 03-31, the current period 02-29 → 03-31 (31 days), 10 days elapsed: principal 333.34
  //    + interest 116.66 × 10 / 31 = 37.632… → 37.63
  // 537.75 + 472.50 + 370.97 = 1,381.22
  const q = await payoff(h, id, '2024-03-10');
  assert.deepEqual([q.as_of, q.amount], ['2024-03-10', 1381.22]);
  // the date defaults to today
  assert.deepEqual([q.as_of, q.amount], [(await payoff(h, id)).as_of, (await payoff(h, id)).amount]);
  // as of 03-05: #1 late 34 days: 76.50; #2 late 5 days: 11.25; #3 5 days of 31: 116.66 × 5 / 31
  // = 18.816… → 18.82; 900 + 76.50 + 11.25 + 333.34 + 18.82 = 1,339.91
  assert.equal((await payoff(h, id, '2024-03-05')).amount, 1339.91);
  // a quote writes nothing
  const before = await ledger(h, id);
  assert.equal(before.length, 3);

  // the same credit paid 500 first: #1's 87.75 punitory and 412.25 of its amount; the rest is
  // still owed as before: 1,381.22 − 500 = 881.22, and the credit stays active
  const twin = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const part = await pay(h, twin.credit.id, { amount: 500, paid_on: '2024-03-10' });
  assert.equal(part.credit.status, 'active');
  assert.deepEqual(
    part.installments.map((i: any) => [i.status, i.outstanding]),
    [
      ['partial', 37.75],
      ['pending', 472.5],
      ['pending', 450],
    ],
  );
  assert.ok(
    !part.ledgerEntries.some((e: any) => e.origin === 'rebate'),
    "holds: !part.ledgerEntries.some((e) => e.origin === 'rebate')",
  );
  assert.equal((await payoff(h, twin.credit.id, '2024-03-10')).amount, 881.22);

  // paying exactly the quote that day closes the credit
  const r = await pay(h, id, { amount: 1381.22, paid_on: '2024-03-10' });
  assert.equal(r.credit.status, 'closed');
  assert.deepEqual(
    r.installments.map((i: any) => [i.number, i.status, i.outstanding]),
    [
      [1, 'paid', 0],
      [2, 'paid', 0],
      [3, 'paid', 0],
    ],
  );
  assert.equal(r.balance.outstanding, 0);
  const paymentId = r.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  // the cash: 537.75 on #1, 472.50 on #2, 370.97 on #3
  assert.deepEqual(
    netBy(
      r.ledgerEntries.filter((e: any) => e.origin === 'payment'),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 537.75, '#2': 472.5, '#3': 370.97 },
  );
  // the interest not owed, 116.66 − 37.63 = 79.03, written off #3 by a rebate of this payment
  const rebates = r.ledgerEntries.filter((e: any) => e.origin === 'rebate');
  assert.deepEqual(
    rebates.map((e: any) => [no.get(e.installment_id), Math.abs(e.amount), e.payment_id, e.effective_date]),
    [[3, 79.03, paymentId, '2024-03-10']],
  );
  // everything stays in the ledger; the punitory posted is what the quote counted
  const after = await ledger(h, id);
  assert.deepEqual(
    netBy(
      after.filter((e) => e.type === 'punitory'),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 87.75, '#2': 22.5 },
  );
  assert.deepEqual(
    (await detail(h, id)).installments.map((i: any) => i.status),
    ['paid', 'paid', 'paid'],
  );
});

// 1000 on 2024-03-01 (P35) → 450 due 03-31, 04-30, 05-31; read on 03-10, nothing due yet. The
// current period is 03-01 → 03-31 (30 days), 9 days elapsed: #1's interest 116.67 × 9 / 30 =
// 35.001 → 35.00; principal 333.33 + 333.33 + 333.34 = 1,000; the later periods' interest is not
// owed: the quote is 1,035.00. Then 100 is prepaid.
async function prepaid(t: any) {
  const h = await build(t, { clock: settableClock('2024-03-10') });
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-03-01' });
  const id = d.credit.id;
  const no = new Map<string, number>(d.installments.map((i: any) => [i.id, i.number]));
  assert.equal((await payoff(h, id)).amount, 1035);
  const r = await pay(h, id, { amount: 100, paid_on: '2024-03-10' });
  return { h, id, no, r };
}

test('a partial prepayment is an ordinary payment in installment order: nothing rebated, the credit stays active', async (t) => {
  const { no, r } = await prepaid(t);
  assert.equal(r.credit.status, 'active');
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => [e.type, e.origin, no.get(e.installment_id), e.amount]),
    [['payment', 'payment', 1, 100]],
  );
  assert.deepEqual(
    r.installments.map((i: any) => [i.number, i.status, i.paid, i.outstanding]),
    [
      [1, 'partial', 100, 350],
      [2, 'pending', 0, 450],
      [3, 'pending', 0, 450],
    ],
  );
  assert.equal(r.balance.outstanding, 1250); // the schedule still stands: 1,350 − 100
});

// "Future interest is not owed" and the quote is what is owed less payments: 100 paid before the
// quote lowers it by 100. The service lowers it by 35 only (1,035 → 1,000): it counts the 100 as
// #1's interest first (VAT, interest, principal), keeps all 100 as interest though only 35.00 was
// owed, and asks the full principal again, so the client who prepaid pays 65 of future interest.
test('the quote after a partial prepayment is 100 less, and paying it closes the credit with the rest of the interest rebated', {}, async (t) => {
  const { h, id, no } = await prepaid(t);
  // 1,035.00 − 100 = 935.00
  assert.equal((await payoff(h, id, '2024-03-10')).amount, 935);
  // 935.00 closes it; not owed: #1 116.67 − 35.00 = 81.67, #2 116.67, #3 116.66 = 315.00
  // (= 1,350 − 100 − 935)
  const r2 = await pay(h, id, { amount: 935, paid_on: '2024-03-10' });
  assert.equal(r2.credit.status, 'closed');
  const rebates = r2.ledgerEntries.filter((e: any) => e.origin === 'rebate');
  assert.deepEqual(
    netBy(
      rebates.map((e: any) => ({ ...e, amount: Math.abs(e.amount) })),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 81.67, '#2': 116.67, '#3': 116.66 },
  );
  assert.equal(total(rebates.map((e: any) => ({ amount: Math.abs(e.amount) }))), 315);
});

test('payoff of a French credit with VAT mid-period: remaining principal plus pro rata interest and its VAT', async (t) => {
  const h = await build(t, { clock: settableClock('2024-02-15') });
  const p = await plan(h, {
    amortization: 'french',
    interest_rate: 1.2,
    vat_rate: 0.21,
    installments_count: 12,
    days_until_first_payment: 30,
    cut_type: 'fixed',
  });
  const c = await client(h);
  // the schedule of french-vat.test.ts: #1 16,776.33 (principal 4,676.33) due 01-31; #2 due 02-29
  // with interest 9,532.37 and VAT 2,001.80; total 192,100.40
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 100000, start_date: '2024-01-01' });
  const id = d.credit.id;
  const no = new Map<string, number>(d.installments.map((i: any) => [i.id, i.number]));
  await pay(h, id, { amount: 16776.33, paid_on: '2024-01-31' });
  // as of 02-15: nothing due unpaid; principal left 100,000 − 4,676.33 = 95,323.67; #2's period
  // 01-31 → 02-29 is 29 days, 15 elapsed: interest 9,532.37 × 15 / 29 = 4,930.536… → 4,930.54,
  // VAT 4,930.54 × 0.21 = 1,035.4134 → 1,035.41; 95,323.67 + 4,930.54 + 1,035.41 = 101,289.62
  const q = await payoff(h, id, '2024-02-15');
  assert.equal(q.amount, 101289.62);
  const r = await pay(h, id, { amount: 101289.62, paid_on: '2024-02-15' });
  assert.equal(r.credit.status, 'closed');
  // not owed: #2 (9,532.37 − 4,930.54) + (2,001.80 − 1,035.41) = 4,601.83 + 966.39 = 5,568.22;
  // #3..#12 all their interest and VAT, e.g. #12 1,334.22 + 280.19 = 1,614.41; in all
  // 192,100.40 − 16,776.33 − 101,289.62 = 74,034.45
  const rebates = r.ledgerEntries
    .filter((e: any) => e.origin === 'rebate')
    .map((e: any) => ({ ...e, amount: Math.abs(e.amount) }));
  const byInst = netBy(rebates, (e) => `#${no.get(e.installment_id)}`);
  assert.equal(byInst['#1'], undefined);
  assert.equal(byInst['#2'], 5568.22);
  assert.equal(byInst['#3'], 10911.74); // 9,017.97 + 1,893.77
  assert.equal(byInst['#12'], 1614.41);
  assert.equal(total(rebates), 74034.45);
  assert.deepEqual(
    r.installments.map((i: any) => i.status),
    Array(12).fill('paid'),
  );
  assert.equal(json(await h.get(`/api/credits/${id}`)).balance.outstanding, 0);
});

// 3000 at 30 % flat in three installments of 1300 (principal 1000, interest 300 each), first due
// 30 days after the start, no punitory.
const P30 = { installments_count: 3, interest_rate: 0.3, days_until_first_payment: 30, cut_type: 'fixed' };

test('a payoff that a reversal leaves short of the payoff is an ordinary payment: its rebate is reversed', async (t) => {
  const h = await build(t, { clock: settableClock('2026-11-26') });
  const p = await plan(h, P30);
  const c = await client(h);
  // from 2026-10-17: 1300 due 11-16, 12-16, 2027-01-16
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 3000, start_date: '2026-10-17' });
  const id = d.credit.id;
  const no = new Map<string, number>(d.installments.map((i: any) => [i.id, i.number]));
  const first = await pay(h, id, { amount: 1300, paid_on: '2026-11-16' });
  const firstId = first.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  // the payoff of 11-26: #2's period 11-16 → 12-16 (30 days), 10 elapsed: 1000 + 300 × 10 / 30 =
  // 1100; #3 its principal 1000: 2100, not owed 200 + 300 = 500
  const q = await payoff(h, id, '2026-11-26');
  assert.deepEqual([q.amount, q.breakdown.rebate], [2100, 500]);
  const r = await pay(h, id, { amount: 2100, paid_on: '2026-11-26' });
  assert.equal(r.credit.status, 'closed');
  const payoffId = r.ledgerEntries.find((e: any) => e.origin === 'payment' && e.payment_id !== firstId).payment_id;

  // the first payment bounces: the 2100 of 11-26 is no longer the payoff of its day (that is now
  // 1300 + 1100 + 1000 = 3400), so it is an ordinary payment: #1 1300, #2 800; its rebate of 500
  // is reversed, and the credit owes 3900 − 2100 = 1800 (#2 500, #3 1300)
  const res = await h.post(`/api/credits/${id}/payments/${firstId}/reverse`, { reason: 'bounced' });
  assert.equal(res.statusCode, 200, res.body);
  const after = json(res);
  assert.equal(after.credit.status, 'active');
  assert.equal(after.balance.outstanding, 1800);
  assert.deepEqual(
    after.installments.map((i: any) => [i.number, i.status, i.outstanding]),
    [
      [1, 'paid', 0],
      [2, 'partial', 500],
      [3, 'pending', 1300],
    ],
  );
  const rebates = after.ledgerEntries.filter((e: any) => e.origin === 'rebate');
  assert.equal(total(rebates), 0);
  assert.ok(
    rebates.every((e: any) => e.payment_id === payoffId),
    'every e of rebates: e.payment_id === payoffId',
  );
  assert.deepEqual(
    netBy(
      after.ledgerEntries.filter((e: any) => e.payment_id === payoffId && e.origin !== 'rebate'),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 1300, '#2': 800, '#3': 0 },
  );
  assert.equal((await payoff(h, id, '2026-11-26')).amount, 1300); // #2 1100 − 800 + #3 1000
});

test('what was prepaid toward installments due later counts in full against the payoff', async (t) => {
  const h = await build(t, { clock: settableClock('2026-11-26') });
  const p = await plan(h, P30);
  const c = await client(h);
  // from 2026-11-16: 1300 due 12-16, 2027-01-16, 02-16
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 3000, start_date: '2026-11-16' });
  const id = d.credit.id;
  const no = new Map<string, number>(d.installments.map((i: any) => [i.id, i.number]));
  const pre = await pay(h, id, { amount: 2600, paid_on: '2026-11-17' });
  assert.deepEqual(
    pre.installments.map((i: any) => i.status),
    ['paid', 'paid', 'pending'],
  );
  // as of 11-26: #1's period 11-16 → 12-16 (30 days), 10 elapsed: interest 300 × 10 / 30 = 100;
  // the later periods earn nothing: owed 3000 + 100, paid 2600: 500 (not owed: 200 + 300 + 300)
  const q = await payoff(h, id, '2026-11-26');
  assert.deepEqual([q.amount, q.breakdown.rebate, q.refundable], [500, 800, 0]);
  const r = await pay(h, id, { amount: 500, paid_on: '2026-11-26' });
  assert.equal(r.credit.status, 'closed');
  assert.equal(r.balance.outstanding, 0);
  assert.deepEqual(
    r.installments.map((i: any) => [i.number, i.status, i.outstanding]),
    [
      [1, 'paid', 0],
      [2, 'paid', 0],
      [3, 'paid', 0],
    ],
  );
  // the interest not owed is rebated: 200 of #1, 300 of #2, 300 of #3; the 500 prepaid beyond
  // what #1 and #2 owe after it moves to #3 within the payoff payment (−200, −300, +1000)
  const payoffId = r.ledgerEntries.find((e: any) => e.origin === 'rebate').payment_id;
  assert.deepEqual(
    netBy(
      r.ledgerEntries.filter((e: any) => e.origin === 'rebate').map((e: any) => ({ ...e, amount: Math.abs(e.amount) })),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 200, '#2': 300, '#3': 300 },
  );
  // (the negative slices are corrections: only a payment's own cash is written as `payment`)
  const cash = r.ledgerEntries.filter((e: any) => e.payment_id === payoffId && e.origin !== 'rebate');
  assert.equal(total(cash), 500);
  assert.deepEqual(
    netBy(cash, (e) => `#${no.get(e.installment_id)}`),
    { '#1': -200, '#2': -300, '#3': 1000 },
  );
  // reversing the payoff brings back the credit as the prepayment left it
  const res = await h.post(`/api/credits/${id}/payments/${payoffId}/reverse`, { reason: 'bounced' });
  assert.equal(res.statusCode, 200, res.body);
  const back = json(res);
  assert.equal(back.credit.status, 'active');
  assert.deepEqual(
    back.installments.map((i: any) => [i.number, i.status, i.outstanding]),
    [
      [1, 'paid', 0],
      [2, 'paid', 0],
      [3, 'pending', 1300],
    ],
  );
  assert.equal((await payoff(h, id, '2026-11-26')).amount, 500);
});

test('prepayments beyond what settles the credit: the quote is 0 and says what is refundable', async (t) => {
  const h = await build(t, { clock: settableClock('2026-11-26') });
  const p = await plan(h, P30);
  const c = await client(h);
  // from 2026-11-16: 1300 due 12-16, 2027-01-16, 02-16; 3800 paid on 11-17 (#1 and #2 in full,
  // 1200 of #3). As of 11-26 what settles it is 3000 + 100 of interest (10 of #1's 30 days):
  // 3100, so 700 was paid beyond it (interest of periods not begun)
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 3000, start_date: '2026-11-16' });
  const paid = await pay(h, d.credit.id, { amount: 3800, paid_on: '2026-11-17' });
  assert.deepEqual(
    paid.installments.map((i: any) => i.status),
    ['paid', 'paid', 'partial'],
  );
  const q = await payoff(h, d.credit.id, '2026-11-26');
  assert.deepEqual([q.amount, q.refundable], [0, 700]);
  // on the day after the start: 1 of 30 days, 10 of interest: 3010 settles it, 790 refundable
  const early = await payoff(h, d.credit.id, '2026-11-17');
  assert.deepEqual([early.amount, early.refundable], [0, 790]);
});

test('a credit that no longer accrues quotes 0, and so does every figure of its breakdown', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  const p = await plan(h, { installments_count: 2, daily_punitory_rate: 0.01, days_until_first_payment: 10 });
  const c = await client(h);
  // cancelled the day it was granted (500 due 03-11 and 04-11); read on 05-20, when both dates
  // have passed: it owes nothing, so its quote breaks down into nothing (it once said 1000 due
  // and 545 of punitory beside an amount of 0)
  const cancelled = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  assert.equal((await h.post(`/api/credits/${cancelled.credit.id}/cancel`)).statusCode, 200);
  // closed on 03-20 (9 days late on #1: 45 of punitory); quoted as of 03-15, before it closed
  const closed = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  clock.set('2026-03-20');
  const paid = await pay(h, closed.credit.id, { amount: 1045 });
  assert.equal(paid.credit.status, 'closed');
  clock.set('2026-05-20');
  const zero = { due: 0, punitory: 0, charges: 0, principal: 0, interest: 0, vat: 0, insurance: 0, fees: 0, rebate: 0 };
  for (const [id, asOf] of [
    [cancelled.credit.id, undefined],
    [cancelled.credit.id, '2026-04-30'],
    [closed.credit.id, '2026-03-15'],
    [closed.credit.id, undefined],
  ] as const) {
    const q = await payoff(h, id, asOf);
    assert.deepEqual([q.amount, q.refundable, q.breakdown], [0, 0, zero], `${id} as of ${asOf ?? 'today'}`);
  }
});
