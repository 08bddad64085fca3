// GET /api/reports/summary on a book built through the API, its figures worked out by hand below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, type Harness } from '../../../helpers/app.ts';
import { cli, day, newBranch, newClient, newPlan, ok, today } from './helpers.ts';

/*
 * Every credit is one installment due 30 days after its start (plan: 1 installment, fixed cut,
 * 30 days to the first payment, no interest), started so that as of today (T) it is `late` days
 * late: start = T − 30 − late, due = T − late. Plan "punitory" charges 1 % a day on the unpaid
 * amount; the others charge nothing.
 *
 *  credit client branch amount late  what happens                      as of T
 *  a      Ana    Norte  1000   29                                      active  1000 overdue 29 d
 *  f      Ana    Norte  1000    0    due today: not overdue            active  1000
 *  b      Bea    Norte  2000   30                                      active  2000 overdue 30 d
 *  g      Fer    Norte   800   45    pays 300 on T (the as-of day)     active   500 overdue 45 d
 *  c      Cid    Sur    3000   31                                      active  3000 overdue 31 d
 *  d      Dan    Sur     400   60                                      active   400 overdue 60 d
 *  e      Eva    Sur     500   90                                      active   500 overdue 90 d
 *  i      Hal    Sur     900   -5    cancelled (not yet due: due T+5)  inactive (void)
 *  h      Gus    -       700   70    paid in full on T−40              closed
 *  j      Ivo    -      1200  100    written off on T, recovers 200 on T   written off 1000
 *  k      Jon    -      1000   10    punitory plan: +100 (read)         active  1100 overdue 10 d
 *  l      Kim    -       100  180                                      active   100 overdue 180 d
 *  m      Lea    -       100  365                                      active   100 overdue 365 d
 *  n      Max    -       100  366                                      active   100 overdue 366 d
 *  r      Nat    -       500    5    refinanced on T into r2 (500, starts T)  refinanced
 *  r2     Nat    -       500   -30   (due T+30)                         active   500
 */
async function buildBook(h: Harness) {
  const plain = await newPlan(h, { installments_count: 1, days_until_first_payment: 30, cut_type: 'fixed' });
  const punitory = await newPlan(h, {
    installments_count: 1,
    days_until_first_payment: 30,
    cut_type: 'fixed',
    daily_punitory_rate: 0.01,
  });
  const norte = await newBranch(h, 'Norte');
  const sur = await newBranch(h, 'Sur');
  const names = [
    'Ana',
    'Bea',
    'Cid',
    'Dan',
    'Eva',
    'Fer',
    'Gus',
    'Hal',
    'Ivo',
    'Jon',
    'Kim',
    'Lea',
    'Max',
    'Nat',
  ] as const;
  const cl: Record<string, any> = {};
  for (const n of names) cl[n] = await newClient(h, n);
  const credit = async (who: string, amount: number, late: number, branch: any, plan = plain) => {
    const body: Record<string, unknown> = { credit_config_id: plan.id, amount, start_date: day(-30 - late) };
    if (branch) body.branch_id = branch.id;
    const d = await ok(h.post(`/api/clients/${cl[who].id}/credits`, body));
    assert.equal(d.installments[0].due_date, day(-late), 'fixture: due date');
    return d.credit;
  };
  const c: Record<string, any> = {};
  c.a = await credit('Ana', 1000, 29, norte);
  c.f = await credit('Ana', 1000, 0, norte);
  c.b = await credit('Bea', 2000, 30, norte);
  c.g = await credit('Fer', 800, 45, norte);
  c.c = await credit('Cid', 3000, 31, sur);
  c.d = await credit('Dan', 400, 60, sur);
  c.e = await credit('Eva', 500, 90, sur);
  c.i = await credit('Hal', 900, -5, sur);
  c.h = await credit('Gus', 700, 70, null);
  c.j = await credit('Ivo', 1200, 100, null);
  c.k = await credit('Jon', 1000, 10, null, punitory);
  c.l = await credit('Kim', 100, 180, null);
  c.m = await credit('Lea', 100, 365, null);
  c.n = await credit('Max', 100, 366, null);
  c.r = await credit('Nat', 500, 5, null);

  await ok(h.post(`/api/credits/${c.g.id}/payments`, { amount: 300, paid_on: today() }));
  await ok(h.post(`/api/credits/${c.i.id}/cancel`), 200);
  await ok(h.post(`/api/credits/${c.h.id}/payments`, { amount: 700, paid_on: day(-40) }));
  await ok(h.post(`/api/credits/${c.j.id}/write-off`, { reason: 'test' }), 200);
  await ok(h.post(`/api/credits/${c.j.id}/payments`, { amount: 200, paid_on: today() }));
  const r2 = await ok(h.post(`/api/credits/${c.r.id}/refinance`, { credit_config_id: plain.id }));
  assert.equal(r2.credit.amount, 500, 'fixture: refinanced for the balance');
  const acc = await cli(h, 'accrue', '--business', h.tenant.businessId, '--as-of', today());
  assert.equal(acc.code, 0, acc.err);
  // posted by the month close or not (that depends on the day of the month), a read shows it all
  const kBalance = (await ok(h.get(`/api/credits/${c.k.id}`), 200)).balance;
  assert.equal(kBalance.punitory_posted + kBalance.punitory_accrued, 100, 'fixture: 10 days × 1 % × 1000 on k');
  return { norte, sur, c, cl };
}

test('summary as of today: statuses, balances, PAR edges, situations, collections, branches', async (t) => {
  const h = await build(t);
  const { norte, sur } = await buildBook(h);

  const s = await ok(h.get('/api/reports/summary', h.tenant.readKey), 200);
  assert.equal(s.as_of, today(), 'as_of defaults to the business today');
  assert.equal(s.clients, 14);
  assert.deepEqual(s.credits, { active: 12, refinanced: 1, closed: 1, written_off: 1, inactive: 1 });
  // cash lent: every credit but the cancelled one and the refinancing r2:
  // 1000+1000+2000+800+3000+400+500+700+1200+1000+100+100+100+500; r2's 500 lent no cash
  assert.equal(s.disbursed, 12400);
  assert.equal(s.disbursed_refinanced, 500);
  // a 1000 + f 1000 + b 2000 + g 500 + c 3000 + d 400 + e 500 + k 1100 + l,m,n 300 + r2 500
  assert.equal(s.outstanding, 10300);
  assert.equal(s.written_off_outstanding, 1000);
  // all of the above but f and r2 (not yet due); k with its punitory
  assert.equal(s.overdue, 8800);
  assert.deepEqual(s.par, {
    par1: { amount: 8800, ratio: 0.8544 }, // 8800 / 10300 = 0.85436…
    par30: { amount: 6700, ratio: 0.6505 }, // b 2000 + g 500 + c 3000 + d 400 + e 500 + l,m,n 300 (a at 29 days is out)
    par60: { amount: 1200, ratio: 0.1165 }, // d 400 + e 500 + l,m,n 300
    par90: { amount: 800, ratio: 0.0777 }, // e 500 (exactly 90) + l,m,n 300
  });
  assert.deepEqual(s.situations, {
    '1': { clients: 5, outstanding: 8600 }, // Ana (worst 29: a 1000 + f 1000), Bea 30, Cid 31, Jon 10 (1100), Nat 0 (500)
    '2': { clients: 3, outstanding: 1400 }, // Dan 60, Eva 90, Fer 45
    '3': { clients: 1, outstanding: 100 }, // Kim 180
    '4': { clients: 1, outstanding: 100 }, // Lea 365
    '5': { clients: 1, outstanding: 100 }, // Max 366
  });
  // g's 300 and j's recovery of 200; the entries settling the refinanced r are no cash
  assert.deepEqual(s.collected, { day: 500, month: 500 });
  assert.deepEqual(s.branches, [
    { branch_id: norte.id, name: 'Norte', outstanding: 4500, overdue: 3500, par30: { amount: 2500, ratio: 0.5556 } },
    { branch_id: sur.id, name: 'Sur', outstanding: 3900, overdue: 3900, par30: { amount: 3900, ratio: 1 } },
    { branch_id: null, name: null, outstanding: 1900, overdue: 1400, par30: { amount: 300, ratio: 0.1579 } },
  ]);

  // one branch: only its credits; clients are those with a credit there
  const n = await ok(h.get(`/api/reports/summary?branch_id=${norte.id}`), 200);
  assert.equal(n.clients, 3);
  assert.deepEqual(n.credits, { active: 4, refinanced: 0, closed: 0, written_off: 0, inactive: 0 });
  assert.equal(n.disbursed, 4800);
  assert.equal(n.disbursed_refinanced, 0);
  assert.equal(n.outstanding, 4500);
  assert.equal(n.overdue, 3500);
  assert.deepEqual(n.par, {
    par1: { amount: 3500, ratio: 0.7778 },
    par30: { amount: 2500, ratio: 0.5556 },
    par60: { amount: 0, ratio: 0 },
    par90: { amount: 0, ratio: 0 },
  });
  assert.deepEqual(n.situations['1'], { clients: 2, outstanding: 4000 });
  assert.deepEqual(n.situations['2'], { clients: 1, outstanding: 500 });
  assert.deepEqual(n.collected, { day: 300, month: 300 });
  assert.deepEqual(n.branches, [s.branches[0]]);

  // the command line prints the same document
  const c = await cli(h, 'report', 'summary', '--business', h.tenant.businessId, '--json');
  assert.equal(c.code, 0, c.err);
  assert.deepEqual(JSON.parse(c.out), s);
  const human = await cli(h, 'report', 'summary', '--business', h.tenant.businessId, '--branch', norte.id);
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, /branch Norte/);
  assert.match(human.out, /outstanding\s+4500\.00/);
  assert.match(human.out, /par30\s+2500\.00\s+55\.56 %/);
});

test('summary as of a past date reads effective dates: later credits, payments, punitory and write-offs do not exist yet', async (t) => {
  const h = await build(t);
  await buildBook(h);
  const asOf = day(-40); // the day h was paid in full
  const s = await ok(h.get(`/api/reports/summary?as_of=${asOf}`), 200);
  assert.equal(s.as_of, asOf);
  // f, i, r and r2 start later; everyone else has a credit by then
  assert.equal(s.clients, 12);
  // j is written off only on T: active then; h closed on this very day
  assert.deepEqual(s.credits, { active: 11, refinanced: 0, closed: 1, written_off: 0, inactive: 0 });
  assert.equal(s.disbursed, 10900);
  assert.equal(s.disbursed_refinanced, 0);
  // a 1000 b 2000 c 3000 d 400 e 500 g 800 (its payment is on T) j 1200 k 1000 (not yet due) l,m,n 300
  assert.equal(s.outstanding, 10200);
  assert.equal(s.written_off_outstanding, 0);
  // days late = late − 40: d 20, e 50, g 5, j 60, l 140, m 325, n 326; a, b, c, k not yet due
  assert.equal(s.overdue, 3200);
  assert.deepEqual(s.par, {
    par1: { amount: 3200, ratio: 0.3137 },
    par30: { amount: 2000, ratio: 0.1961 }, // e 500 + j 1200 + l,m,n 300
    par60: { amount: 1500, ratio: 0.1471 }, // j 1200 (exactly 60) + l,m,n
    par90: { amount: 300, ratio: 0.0294 },
  });
  assert.deepEqual(s.situations, {
    '1': { clients: 6, outstanding: 8200 }, // Ana 1000, Bea 2000, Cid 3000, Dan 400 (20 d), Fer 800 (5 d), Jon 1000
    '2': { clients: 2, outstanding: 1700 }, // Eva 500 (50 d), Ivo 1200 (60 d)
    '3': { clients: 1, outstanding: 100 }, // Kim 140 d
    '4': { clients: 2, outstanding: 200 }, // Lea 325 d, Max 326 d
    '5': { clients: 0, outstanding: 0 },
  });
  assert.deepEqual(s.collected, { day: 700, month: 700 });

  // the day before today: the write-off has not happened, the recovery and g's payment neither
  const y = await ok(h.get(`/api/reports/summary?as_of=${day(-1)}`), 200);
  assert.equal(y.credits.written_off, 0);
  assert.equal(y.written_off_outstanding, 0);
  assert.equal(y.collected.day, 0);
  // T's figures + j 1200 back in the book + g's 300 − r2 500 + r 500 − k's punitory 100 + the 90
  // k had accrued by T − 1 (9 days × 1 % × 1000): a read adds what posting every day would have
  // posted by its date, whatever was posted when
  assert.equal(y.outstanding, 10300 + 1200 + 300 - 500 + 500 - 100 + 90);
});

test('summary input: bad dates are 400, a future as_of is 400, another tenant branch is 404, keys are required', async (t) => {
  const h = await build(t);
  const other = await h.newTenant();
  const theirs = await ok(h.post('/api/branches', { name: 'Theirs' }, other.fullKey));
  for (const q of [
    'as_of=2024-02-30',
    'as_of=yesterday',
    'as_of=2024-1-1',
    'branch_id=nope',
    'x=1',
    `as_of=${day(1)}`,
  ]) {
    const r = await h.get(`/api/reports/summary?${q}`);
    assert.equal(r.statusCode, 400, q);
    assert.equal(JSON.parse(r.body).code, 'validation_failed');
  }
  const r = await h.get(`/api/reports/summary?branch_id=${theirs.id}`);
  assert.equal(r.statusCode, 404);
  assert.equal(JSON.parse(r.body).code, 'not_found');
  assert.equal((await h.get('/api/reports/summary', null)).statusCode, 401);
  assert.equal((await h.get('/api/reports/summary', 'lk_nope')).statusCode, 401);
  const empty = await ok(h.get('/api/reports/summary?as_of=2000-01-01', h.tenant.readKey), 200);
  assert.equal(empty.outstanding, 0);
  assert.deepEqual(empty.par.par30, { amount: 0, ratio: 0 });
  assert.equal((await cli(h, 'report', 'summary', '--business', h.tenant.businessId, '--branch', theirs.id)).code, 2);
  assert.equal((await cli(h, 'report', 'summary', '--business', h.tenant.businessId, '--as-of', '2024-13-01')).code, 2);
});

test('a refinance into a plan that deducts an origination fee: disbursed_refinanced counts what the new credit disbursed, the balance moved, not its fee', async (t) => {
  const h = await build(t);
  const plain = await newPlan(h, { installments_count: 1, days_until_first_payment: 30 });
  const withFee = await newPlan(h, {
    installments_count: 1,
    days_until_first_payment: 30,
    fees: [{ type: 'origination', rate: 0.05, vat: false }],
  });
  const c = await newClient(h, 'Ana');
  const old = await ok(h.post(`/api/clients/${c.id}/credits`, { credit_config_id: plain.id, amount: 1000 }));
  const r = await ok(h.post(`/api/credits/${old.credit.id}/refinance`, { credit_config_id: withFee.id }));
  // the balance 1000 is settled: the least amount whose 5 % fee leaves 1000 handed over is
  // 1052.63 (fee 52.63; 1052.62 would leave 999.99)
  assert.deepEqual([r.credit.amount, r.credit.disbursed], [1052.63, 1000]);
  const s = await ok(h.get('/api/reports/summary'), 200);
  // cash lent: the first credit; moved by the refinance: the 1000 the new credit disbursed
  assert.equal(s.disbursed, 1000);
  assert.equal(s.disbursed_refinanced, 1000);
});
