// Defects found in refinance, cancel, punitory and the summary, pinned through the API (docs/domain.md "Write-off", "Refinance", "Cancel",
// "Punitory" on amounts that cannot be stored, "Reports"):
// - refinance starts today: another start_date is 422;
// - cancel only before the first due date and without payments;
// - an unstorable punitory never fails a payment or the daily run;
// - the summary's `collected` is cash only and `disbursed` leaves refinancing credits apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, json, settableClock } from '../../helpers/app.ts';
import { P35, accrue, client, credit, detail, ledger, netBy, pay, payoff, plan } from '../../helpers/book-in-cents.ts';

test('refinance starts today: another start_date is 422 and changes nothing; today or omitted is 201', async (t) => {
  const h = await build(t, { clock: settableClock('2024-03-10') });
  const p = await plan(h, P35);
  const c = await client(h);
  // 1000 on 2024-01-01 → 450 due 01-31, 02-29, 03-31. On 03-10 it owes 1,350 + #1's 39 days
  // (Feb 1..29, Mar 1..10) × 2.25 = 87.75 + #2's 10 days × 2.25 = 22.50 = 1,460.25.
  const old = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' });
  const id = old.credit.id;
  const no = new Map<string, number>(old.installments.map((i: any) => [i.id, i.number]));
  const before = await ledger(h, id);
  for (const start_date of ['2024-03-11', '2024-03-09', '2024-01-01']) {
    const res = await h.post(`/api/credits/${id}/refinance`, { credit_config_id: p.id, start_date });
    assert.equal(res.statusCode, 422, `${start_date}: ${res.body}`);
    assert.equal(json(res).code, 'unprocessable');
  }
  // less than the balance is 422 too
  const less = await h.post(`/api/credits/${id}/refinance`, { credit_config_id: p.id, amount: 1460.24 });
  assert.equal(less.statusCode, 422, less.body);
  assert.deepEqual(await ledger(h, id), before, 'a refused refinance wrote to the ledger');
  assert.equal((await detail(h, id)).credit.status, 'active');
  assert.equal(json(await h.get(`/api/credits?client_id=${c.id}`)).total, 1);

  // today, given explicitly: the new credit is for the balance and starts today
  const res = await h.post(`/api/credits/${id}/refinance`, { credit_config_id: p.id, start_date: '2024-03-10' });
  assert.equal(res.statusCode, 201, res.body);
  const fresh = json(res);
  assert.deepEqual(
    [fresh.credit.refinanced_from_id, fresh.credit.client_id, fresh.credit.amount, fresh.credit.start_date],
    [id, c.id, 1460.25, '2024-03-10'],
  );
  // 1,460.25 × 1.35 = 1,971.3375 → 1,971.34; 1,971.34 / 3 = 657.113… → 657.11, 657.11, 657.12;
  // due 30 days after today (04-09), then the 9th of each month
  assert.deepEqual(
    fresh.installments.map((i: any) => [i.amount, i.due_date]),
    [
      [657.11, '2024-04-09'],
      [657.11, '2024-05-09'],
      [657.12, '2024-06-09'],
    ],
  );
  // the old credit: punitory posted up to today, then settled by refinance entries (not cash)
  const was = await detail(h, id);
  assert.equal(was.credit.status, 'refinanced');
  assert.deepEqual(
    was.installments.map((i: any) => [i.status, i.outstanding]),
    [
      ['paid', 0],
      ['paid', 0],
      ['paid', 0],
    ],
  );
  const entries = await ledger(h, id);
  assert.deepEqual(
    netBy(
      entries.filter((e) => e.type === 'punitory'),
      (e) => `#${no.get(e.installment_id)}`,
    ),
    { '#1': 87.75, '#2': 22.5 },
  );
  const settled = entries.filter((e) => e.origin === 'refinance');
  assert.deepEqual(
    netBy(settled, (e) => `#${no.get(e.installment_id)}`),
    { '#1': 537.75, '#2': 472.5, '#3': 450 },
  );
  assert.ok(!entries.some((e) => e.origin === 'payment'), 'a refinance settlement is not a payment');

  // omitted: today as well
  const other = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-03-01' });
  const r2 = await h.post(`/api/credits/${other.credit.id}/refinance`, { credit_config_id: p.id });
  assert.equal(r2.statusCode, 201, r2.body);
  // nothing due yet on the old one: 1,350 owed
  assert.deepEqual([json(r2).credit.start_date, json(r2).credit.amount], ['2024-03-10', 1350]);
});

test('cancel: before the first due date without payments 200 (inactive); after it, or with a payment, 409', async (t) => {
  const h = await build(t, { clock: settableClock('2024-03-10') });
  const p = await plan(h, P35);
  const c = await client(h);
  const make = (start_date: string) => credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date });
  const cancel = (id: string) => h.post(`/api/credits/${id}/cancel`);

  // first due 01-31, long past
  const late = await make('2024-01-01');
  const r1 = await cancel(late.credit.id);
  assert.equal(r1.statusCode, 409, r1.body);
  assert.equal(json(r1).code, 'conflict');
  // first due 03-09, yesterday: past it by one day
  const yesterday = await make('2024-02-08');
  assert.equal(yesterday.installments[0].due_date, '2024-03-09');
  assert.equal((await cancel(yesterday.credit.id)).statusCode, 409);
  // first due 03-31 but a payment was made
  const paid = await make('2024-03-01');
  await pay(h, paid.credit.id, { amount: 10, paid_on: '2024-03-05' });
  assert.equal((await cancel(paid.credit.id)).statusCode, 409);
  for (const d of [late, yesterday, paid]) assert.equal((await detail(h, d.credit.id)).credit.status, 'active');

  // first due 03-31, nothing paid: a credit granted by mistake
  const mistake = await make('2024-03-01');
  const ok = await cancel(mistake.credit.id);
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual([json(ok).id, json(ok).status], [mistake.credit.id, 'inactive']);
  // its installments stay as history; it takes no payment
  assert.equal((await detail(h, mistake.credit.id)).installments.length, 3);
  assert.equal((await h.post(`/api/credits/${mistake.credit.id}/payments`, { amount: 1 })).statusCode, 409);
  // and it leaves every figure: outstanding is the three active credits only. On 03-10:
  // late: 1,350 + 87.75 (#1, 39 days) + 22.50 (#2, 10 days) = 1,460.25; yesterday: 1,350 (#1 due
  // Saturday 03-09 is not late before the end of Monday 03-11: no punitory yet on Sunday 03-10);
  // paid: 1,350 − 10 = 1,340; in all 4,150.25
  const summary = json(await h.get('/api/reports/summary'));
  assert.equal(summary.credits.inactive, 1);
  assert.equal(summary.credits.active, 3);
  assert.equal(summary.outstanding, 4150.25);
});

test('a punitory too large to store fails neither a payment nor the daily run, which goes on to the other credits', async (t) => {
  const h = await build(t, { clock: settableClock('2024-06-15') });
  // 1,000,000,000 in one installment due 01-31 at 1000 (100,000 %) a day: 10^12 of punitory on the
  // first day late, past numeric(14,2)'s 999,999,999,999.99
  const huge = await plan(h, { installments_count: 1, days_until_first_payment: 30, daily_punitory_rate: 1000 });
  const normal = await plan(h, P35);
  const c = await client(h);
  const big = await credit(h, c.id, { credit_config_id: huge.id, amount: 1000000000, start_date: '2024-01-01' });
  // created after the huge one, so a run that stopped there would not reach it
  const small = await credit(h, c.id, { credit_config_id: normal.id, amount: 1000, start_date: '2024-01-01' });

  // reads do not fail
  const read = await h.get(`/api/credits/${big.credit.id}`);
  assert.equal(read.statusCode, 200, read.body);
  // a payment before any run posts the punitory up to its date first: accepted, not a 400
  const first = await h.post(`/api/credits/${big.credit.id}/payments`, { amount: 100, paid_on: '2024-03-01' });
  assert.equal(first.statusCode, 201, first.body);
  assert.ok(
    json(first).ledgerEntries.some((e: any) => e.type === 'punitory' && e.amount > 0 && e.amount <= 999999999999.99),
    first.body,
  );

  // the daily run on 06-15 closes the months through 05-31 and succeeds
  const run = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(run.code, 0, run.err);
  assert.equal(run.out.businesses[0].closed_through, '2024-05-31');
  // the ordinary credit got its punitory through 05-31: #1 due 01-31, Feb 1..May 31 = 121 days ×
  // 2.25 = 272.25; #2 due 02-29, Mar 1..May 31 = 92 days → 207.00; #3 due 03-31, Apr 1..May 31 =
  // 61 days → 137.25
  const s = await detail(h, small.credit.id);
  assert.deepEqual(
    s.installments.map((i: any) => i.punitory_posted),
    [272.25, 207, 137.25],
  );
  // the huge one's punitory stopped at what can be stored
  const b = await detail(h, big.credit.id);
  assert.ok(b.installments[0].punitory_posted <= 999999999999.99, JSON.stringify(b.installments[0]));
  assert.ok(b.installments[0].punitory_posted > 0, JSON.stringify(b.installments[0]));

  // a payment on it is accepted (not a 400 for a number out of range): it goes to the punitory first
  const res = await h.post(`/api/credits/${big.credit.id}/payments`, { amount: 100, paid_on: '2024-06-15' });
  assert.equal(res.statusCode, 201, res.body);
  assert.equal((await h.get(`/api/credits/${big.credit.id}/payoff`)).statusCode, 200);
  assert.equal((await h.get('/api/reports/summary')).statusCode, 200);
  assert.deepEqual(
    json(res)
      .ledgerEntries.filter((e: any) => e.type === 'payment')
      .map((e: any) => e.amount),
    [100],
  );
  assert.equal(json(res).installments[0].status, 'partial');
  // the ordinary credit is unaffected: on 06-15 #1 is late 136 days (Feb 1..Jun 15) × 2.25 =
  // 306.00; 306 + 450 = 756 pays it exactly
  const r = await pay(h, small.credit.id, { amount: 756, paid_on: '2024-06-15' });
  assert.deepEqual(
    r.installments.map((i: any) => i.status),
    ['paid', 'pending', 'pending'],
  );
  // and the run again succeeds
  const again = await accrue(h, '--business', h.tenant.businessId);
  assert.equal(again.code, 0, again.err);
});

test('the summary: collected is cash only (no refinance settlement, no rebate), disbursed leaves refinancing credits apart', async (t) => {
  // real time: the summary reads today
  const h = await build(t);
  const today = new Date().toISOString().slice(0, 10);
  const ago9 = new Date(Date.parse(today) - 9 * 86_400_000).toISOString().slice(0, 10);
  const p = await plan(h, P35);
  const c = await client(h);

  // A: 1000, 100 paid today in cash, then refinanced: the balance 1,350 − 100 = 1,250 (nothing due
  // yet: first due 30 days after the start, 21 days from now) settled by refinance entries
  const a = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: ago9 });
  await pay(h, a.credit.id, { amount: 100, paid_on: today });
  const ref = await h.post(`/api/credits/${a.credit.id}/refinance`, { credit_config_id: p.id });
  assert.equal(ref.statusCode, 201, ref.body);
  const b = json(ref);
  assert.equal(b.credit.amount, 1250);

  // C: 1000, paid off today: 9 of the first period's 30 days → #1's interest 116.67 × 9 / 30 =
  // 35.001 → 35.00; 1,000 + 35.00 = 1,035.00 in cash, 315.00 rebated
  const cc = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: ago9 });
  assert.equal((await payoff(h, cc.credit.id)).amount, 1035);
  const closed = await pay(h, cc.credit.id, { amount: 1035, paid_on: today });
  assert.equal(closed.credit.status, 'closed');

  const res = await h.get('/api/reports/summary');
  assert.equal(res.statusCode, 200, res.body);
  const s = json(res);
  assert.equal(s.as_of, today);
  assert.deepEqual(s.credits, { active: 1, refinanced: 1, closed: 1, written_off: 0, inactive: 0 });
  // cash lent: A and C; B lent no cash
  assert.equal(s.disbursed, 2000);
  assert.equal(s.disbursed_refinanced, 1250);
  // cash in today: 100 + 1,035 (not A's 1,250 settlement, not C's 315 rebate)
  assert.deepEqual(s.collected, { day: 1135, month: 1135 });
  // what is owed: B only, 1,250 × 1.35 = 1,687.50
  assert.equal(s.outstanding, 1687.5);
});
