// Interest methods, VAT and disclosed cost through the API (docs/domain.md "Interest methods, VAT and
// disclosed cost"): a French plan with VAT, its simulation and credit to the cent, the cost
// (tna, tea, cft_tea against an XIRR written here), allocation inside an installment, and a flat
// plan with VAT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { client, credit, detail, pay, plan, total } from '../../helpers/book-in-cents.ts';

const FRENCH = {
  amortization: 'french',
  interest_rate: 1.2,
  vat_rate: 0.21,
  installments_count: 12,
  days_until_first_payment: 30,
  cut_type: 'fixed',
};

// 100,000 at TNA 120 %: i = 1.2 / 12 = 0.10, n = 12.
// A = P·i / (1 − (1 + i)^−12) = 10,000 / (1 − 1.1^−12); 1.1^12 = 3.138428376721, 1.1^−12 =
// 0.318630818..., A = 10,000 / 0.681369182 = 14,676.3315... → 14,676.33.
// Each period: interest = round(balance × 0.10), principal = A − interest, VAT = round(interest ×
// 0.21), amount = principal + interest + VAT; the last takes the remaining principal.
//   k  balance before  interest   principal   VAT       amount      balance after
//   1  100,000.00      10,000.00  4,676.33    2,100.00  16,776.33   95,323.67
//   2   95,323.67       9,532.37  5,143.96    2,001.80  16,678.13   90,179.71   (9,532.367; 2,001.7977)
//   3   90,179.71       9,017.97  5,658.36    1,893.77  16,570.10   84,521.35   (9,017.971; 1,893.7737)
//   4   84,521.35       8,452.14  6,224.19    1,774.95  16,451.28   78,297.16   (8,452.135; 1,774.9494)
//   5   78,297.16       7,829.72  6,846.61    1,644.24  16,320.57   71,450.55   (7,829.716; 1,644.2412)
//   6   71,450.55       7,145.06  7,531.27    1,500.46  16,176.79   63,919.28   (7,145.055; 1,500.4626)
//   7   63,919.28       6,391.93  8,284.40    1,342.31  16,018.64   55,634.88   (6,391.928; 1,342.3053)
//   8   55,634.88       5,563.49  9,112.84    1,168.33  15,844.66   46,522.04   (5,563.488; 1,168.3329)
//   9   46,522.04       4,652.20  10,024.13     976.96  15,653.29   36,497.91   (4,652.204;   976.962)
//  10   36,497.91       3,649.79  11,026.54     766.46  15,442.79   25,471.37   (3,649.791;   766.4559)
//  11   25,471.37       2,547.14  12,129.19     534.90  15,211.23   13,342.18   (2,547.137;   534.8994)
//  12   13,342.18       1,334.22  13,342.18     280.19  14,956.59        0.00   (1,334.218;   280.1862)
// Interest 76,116.03, VAT 15,984.37, total 100,000 + 76,116.03 + 15,984.37 = 192,100.40.
// Due dates from 2024-01-01: first + 30 days = 01-31, then the 31st or the month's last day.
const SCHEDULE: [number, number, number, number, number, string][] = [
  // number, principal, interest, vat, amount, due_date
  [1, 4676.33, 10000, 2100, 16776.33, '2024-01-31'],
  [2, 5143.96, 9532.37, 2001.8, 16678.13, '2024-02-29'],
  [3, 5658.36, 9017.97, 1893.77, 16570.1, '2024-03-31'],
  [4, 6224.19, 8452.14, 1774.95, 16451.28, '2024-04-30'],
  [5, 6846.61, 7829.72, 1644.24, 16320.57, '2024-05-31'],
  [6, 7531.27, 7145.06, 1500.46, 16176.79, '2024-06-30'],
  [7, 8284.4, 6391.93, 1342.31, 16018.64, '2024-07-31'],
  [8, 9112.84, 5563.49, 1168.33, 15844.66, '2024-08-31'],
  [9, 10024.13, 4652.2, 976.96, 15653.29, '2024-09-30'],
  [10, 11026.54, 3649.79, 766.46, 15442.79, '2024-10-31'],
  [11, 12129.19, 2547.14, 534.9, 15211.23, '2024-11-30'],
  [12, 13342.18, 1334.22, 280.19, 14956.59, '2024-12-31'],
];
const TOTAL = 192100.4;
// tea = (1 + 1.2/12)^12 − 1 = 1.1^12 − 1 = 2.138428376721 → 2.138428
const TEA = 2.138428;

const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86_400_000;

/**
 * The annual effective rate r with Σ flow / (1 + r)^(days since the first flow / 365) = 0 (XIRR),
 * by Newton's method in floating point: an independent check of cft_tea, not money arithmetic.
 */
function xirr(flows: { date: string; amount: number }[]): number {
  const t0 = flows[0]!.date;
  const ts = flows.map((f) => days(t0, f.date) / 365);
  let r = 0.5;
  for (let k = 0; k < 200; k++) {
    let f = 0;
    let df = 0;
    flows.forEach((fl, j) => {
      const t = ts[j]!;
      f += fl.amount / (1 + r) ** t;
      df += (-t * fl.amount) / (1 + r) ** (t + 1);
    });
    const next = r - f / df;
    if (Math.abs(next - r) < 1e-13) return next;
    r = next;
  }
  throw new Error('xirr did not converge');
}

const cftOf = (start: string, lent: number, rows: { due_date: string; amount: number }[]) =>
  xirr([{ date: start, amount: -lent }, ...rows.map((i) => ({ date: i.due_date, amount: i.amount }))]);

const parts = (i: any) => [i.number, i.principal, i.interest, i.vat, i.amount, i.due_date];

test('xirr (the check of cft_tea) finds the rate of a known yearly flow', () => {
  // −100 now, +121 in two years of 365 days: (1 + r)^2 = 1.21 → r = 0.10
  assert.ok(
    Math.abs(
      xirr([
        { date: '2023-01-01', amount: -100 },
        { date: '2025-01-01', amount: 121 }, // 731 days (2024 is leap): r = 1.21^(365/731) − 1
      ]) -
        (1.21 ** (365 / 731) - 1),
    ) < 1e-12,
    'xirr of -100 then 121 two years later (731 days) is 1.21^(365/731) - 1',
  );
});

test('a French credit of 100,000 at TNA 120 % with 21 % VAT: every installment to the cent, the balance and the cost', async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, FRENCH);
  assert.deepEqual([p.amortization, p.vat_rate, p.business_day_rule], ['french', 0.21, 'none']);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 100000, start_date: '2024-01-01' });
  assert.deepEqual(d.installments.map(parts), SCHEDULE);
  for (const i of d.installments) {
    assert.deepEqual(
      [i.status, i.paid, i.outstanding, i.punitory_posted, i.punitory_accrued],
      ['pending', 0, i.amount, 0, 0],
    );
  }
  assert.equal(total(d.installments), TOTAL);
  assert.equal(d.credit.total, TOTAL);
  assert.deepEqual(d.balance, {
    principal: 100000,
    interest: 76116.03,
    vat: 15984.37,
    punitory_posted: 0,
    punitory_accrued: 0,
    charges: 0,
    waived: 0,
    paid: 0,
    outstanding: TOTAL,
    insurance: 0,
    fees: 0,
  });
  // each installment's entry is its amount (VAT included), origin schedule, effective the start date
  assert.deepEqual(
    d.ledgerEntries.map((e: any) => [e.type, e.origin, e.amount, e.effective_date, e.payment_id]),
    SCHEDULE.map((s) => ['installment', 'schedule', s[4], '2024-01-01', null]),
  );
  // the disclosed cost: tna as given, tea = 1.1^12 − 1, cft_tea the XIRR of −100,000 on 01-01 and
  // the 12 amounts on their due dates (actual days / 365, VAT included), to 6 decimals
  assert.equal(d.cost.tna, 1.2);
  assert.equal(d.cost.tea, TEA);
  const cft = cftOf('2024-01-01', 100000, d.installments);
  assert.ok(Math.abs(d.cost.cft_tea - cft) <= 0.000001, `cft_tea ${d.cost.cft_tea}, xirr ${cft}`);
  // VAT makes the total cost dearer than the rate alone
  assert.ok(d.cost.cft_tea > TEA, 'holds: d.cost.cft_tea > TEA');
  // a read gives the same
  const again = await detail(h, d.credit.id);
  assert.deepEqual(again.installments.map(parts), SCHEDULE);
  assert.deepEqual(again.cost, d.cost);
});

test('simulating the French plan gives the schedule and total of the credit, storing nothing', async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, FRENCH);
  const res = await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 100000, start_date: '2024-01-01' });
  assert.equal(res.statusCode, 200, res.body);
  const sim = json(res);
  assert.deepEqual(
    sim.installments.map((i: any) => [i.number, i.amount, i.due_date]),
    SCHEDULE.map((s) => [s[0], s[4], s[5]]),
  );
  assert.equal(sim.total, TOTAL);
  assert.equal(json(await h.get('/api/credits')).total, 0);
});

// docs/api.md: "simulate returns `cost` and each installment's parts too".
test("simulating shows each installment's principal, interest and VAT and the disclosed cost", {}, async (t) => {
  const h = await build(t, { clock: settableClock('2024-01-01') });
  const p = await plan(h, FRENCH);
  const sim = json(await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 100000, start_date: '2024-01-01' }));
  assert.deepEqual(sim.installments.map(parts), SCHEDULE);
  assert.ok(sim.cost, 'no cost in the simulation');
  assert.equal(sim.cost.tna, 1.2);
  assert.equal(sim.cost.tea, TEA);
  const cft = cftOf('2024-01-01', 100000, sim.installments);
  assert.ok(Math.abs(sim.cost.cft_tea - cft) <= 0.000001, `cft_tea ${sim.cost.cft_tea}, xirr ${cft}`);
});

test('a partial payment on a French installment: one payment slice, the installment partial with the rest outstanding', async (t) => {
  // On the due date (no punitory): 3,000 of #1's 16,776.33 pays its VAT (2,100.00) and 900.00 of
  // its interest (docs/domain.md: VAT, then interest, then principal); the installment shows 3,000 paid
  // and 13,776.33 outstanding, the rest of the schedule untouched.
  const h = await build(t, { clock: settableClock('2024-01-31') });
  const p = await plan(h, FRENCH);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 100000, start_date: '2024-01-01' });
  const r = await pay(h, d.credit.id, { amount: 3000, paid_on: '2024-01-31' });
  const paymentId = r.ledgerEntries[0].payment_id;
  assert.match(paymentId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => [e.type, e.origin, e.installment_id, e.amount, e.effective_date, e.payment_id]),
    [['payment', 'payment', d.installments[0].id, 3000, '2024-01-31', paymentId]],
  );
  assert.deepEqual(
    r.installments.slice(0, 2).map((i: any) => [i.number, i.status, i.overdue, i.paid, i.outstanding]),
    [
      [1, 'partial', false, 3000, 13776.33],
      [2, 'pending', false, 0, 16678.13],
    ],
  );
  // the parts of the installment are its schedule; what was paid does not rewrite them
  assert.deepEqual(parts(r.installments[0]), SCHEDULE[0]);
  assert.deepEqual([r.balance.paid, r.balance.outstanding], [3000, 189100.4]); // 192,100.40 − 3,000
  // the rest of #1 pays it
  const r2 = await pay(h, d.credit.id, { amount: 13776.33, paid_on: '2024-01-31' });
  assert.deepEqual(
    r2.installments.slice(0, 2).map((i: any) => [i.number, i.status, i.days_late, i.paid, i.outstanding]),
    [
      [1, 'paid', 0, 16776.33, 0],
      [2, 'pending', 0, 0, 16678.13],
    ],
  );
  assert.equal(r2.credit.status, 'active');
});

// Flat with VAT: 1,000 at 35 % flat, 21 % VAT, 4 installments. Interest 350.00, VAT 73.50,
// total 1,423.50; each installment round(1,423.50 / 4) = round(355.875) = 355.88, the last
// 1,423.50 − 3 × 355.88 = 355.86. Spread like the amount: principal 1,000 / 4 = 250.00; interest
// 350 / 4 = 87.50; VAT 73.50 / 4 = 18.375 → 18.38, the last 73.50 − 3 × 18.38 = 18.36. Each
// installment: 250 + 87.50 + 18.38 = 355.88; the last 250 + 87.50 + 18.36 = 355.86.
const FLAT_VAT = {
  interest_rate: 0.35,
  vat_rate: 0.21,
  installments_count: 4,
  days_until_first_payment: 30,
  cut_type: 'fixed',
  daily_punitory_rate: 0.01,
};
const FLAT_SCHEDULE = [
  [1, 250, 87.5, 18.38, 355.88, '2024-01-31'],
  [2, 250, 87.5, 18.38, 355.88, '2024-02-29'],
  [3, 250, 87.5, 18.38, 355.88, '2024-03-31'],
  [4, 250, 87.5, 18.36, 355.86, '2024-04-30'],
];

test('a flat plan with VAT: interest and VAT spread like the amount; punitory carries VAT and is paid first', async (t) => {
  const h = await build(t, { clock: settableClock('2024-02-10') });
  const p = await plan(h, FLAT_VAT);
  assert.equal(p.amortization, 'flat');
  const sim = json(await h.post(`/api/credit-configs/${p.id}/simulate`, { amount: 1000, start_date: '2024-01-01' }));
  assert.deepEqual(
    sim.installments.map((i: any) => [i.number, i.amount, i.due_date]),
    FLAT_SCHEDULE.map((s) => [s[0], s[4], s[5]]),
  );
  assert.equal(sim.total, 1423.5);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  assert.deepEqual(d.installments.map(parts), FLAT_SCHEDULE);
  // read on 02-10, the balance adds #1's punitory with its VAT (43.06, worked out below)
  assert.deepEqual(
    [d.balance.principal, d.balance.interest, d.balance.vat, d.balance.punitory_accrued, d.balance.outstanding],
    [1000, 350, 73.5, 43.06, 1466.56],
  );
  const cft = cftOf('2024-01-01', 1000, d.installments);
  assert.ok(Math.abs(d.cost.cft_tea - cft) <= 0.000001, `cft_tea ${d.cost.cft_tea}, xirr ${cft}`);

  // Read on 02-10, #1 is late 10 days (Feb 1..10): 355.88 × 0.01 × 10 = 35.588 punitory, plus
  // its 21 % VAT 7.47348 = 43.06148 → 43.06
  assert.equal(d.installments[0].punitory_accrued, 43.06);
  // paying 43.06 posts the punitory and pays it first: the installment amount is all still owed
  const r = await pay(h, d.credit.id, { amount: 43.06, paid_on: '2024-02-10' });
  assert.deepEqual(
    r.ledgerEntries.map((e: any) => [e.type, e.origin, e.amount]),
    [
      ['punitory', 'accrual', 43.06],
      ['payment', 'payment', 43.06],
    ],
  );
  assert.deepEqual(
    [r.installments[0].status, r.installments[0].punitory_posted, r.installments[0].outstanding],
    ['partial', 43.06, 355.88],
  );
  const r2 = await pay(h, d.credit.id, { amount: 355.88, paid_on: '2024-02-10' });
  assert.deepEqual([r2.installments[0].status, r2.installments[0].days_late], ['paid', 10]);
  assert.equal(r2.balance.outstanding, 1067.62); // 1,423.50 − 355.88
});
