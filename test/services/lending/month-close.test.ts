// Bounded growth, proved day by day (docs/lending-engine.md, "The daily run"): a book driven through the
// API on a settable clock — random plans (every punitory mode, grace, caps, maximum days, automatic
// write-off, flat or French amortization, VAT 0 or 21 %, due dates kept or moved to business
// days), random credits (due dates on weekends among them), random payments (some backdated, even
// before the credit's latest payment, some too large), reversals of accepted payments, waivers of
// punitory (some above what is unpaid), manual write-offs — across several month ends. Each simulated day the daily run runs as the scheduler would (first
// thing in the day), the day's payments and write-offs follow, and then everything the API shows
// (every installment's punitory_posted + punitory_accrued, waived, paid, outstanding and status, the
// credit's balance and status, its payments) and the summary report (outstanding, written-off
// outstanding, overdue, PAR1, disbursed, collected today and this month) must equal, to the cent,
// the reference model that posts punitory every day (reference-model.ts). The ledger must hold at most one punitory entry per installment per month
// plus one per event, and the run must post nothing on the days between month ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  addDays,
  dayNumber,
  fromDay,
  lastMonthEnd,
  money,
  round2,
  type PunitoryMode,
} from '../../../src/domain/index.ts';
import { build, json, type Harness } from '../../helpers/app.ts';
import {
  ReferenceModel,
  weekendTolerance,
  type CreditView,
  type ModelCredit,
  type ModelEvent,
  type ModelPayment,
} from './reference-model.ts';
import { accrue, assertLedgerInvariant, client, legacyDailyRun } from '../../helpers/book.ts';

const FIRST = '2024-01-10';
const LAST = '2024-04-03'; // closes 2023-12-31 (first run), 2024-01-31, 2024-02-29 and 2024-03-31

interface PlanSpec {
  installments_count: number;
  days_until_first_payment: number;
  cut_type: 'fixed' | 'monthly';
  payment_day: number;
  interest_rate: number;
  daily_punitory_rate: number;
  punitory_mode: PunitoryMode;
  grace_days: number;
  max_punitory_days: number;
  punitory_cap_pct: number;
  write_off_days: number;
  amortization: 'flat' | 'french';
  vat_rate: number;
  business_day_rule: 'none' | 'next';
}
interface Intent {
  credit: number;
  /** days after FIRST */
  day: number;
  kind: 'pay' | 'write-off' | 'reverse';
  /** paid_on = that day − lag */
  lag: number;
  /** share of today's outstanding, in thousandths (> 1000: more than owed, refused) */
  share: number;
  /** reverse: which of the credit's accepted payments (modulo their count; reversed ones included: 409) */
  pick: number;
}
interface Scenario {
  plans: PlanSpec[];
  credits: { plan: number; amount: number; startBack: number }[];
  intents: Intent[];
}

const micros = (n: number) => n / 1_000_000;
const arbPlan: fc.Arbitrary<PlanSpec> = fc.record({
  installments_count: fc.integer({ min: 1, max: 4 }),
  days_until_first_payment: fc.integer({ min: 0, max: 35 }),
  cut_type: fc.constantFrom('fixed' as const, 'monthly' as const),
  payment_day: fc.integer({ min: 1, max: 28 }),
  interest_rate: fc.integer({ min: 0, max: 400_000 }).map(micros),
  daily_punitory_rate: fc
    .oneof(fc.constantFrom(1_000, 2_000, 5_000, 10_000), fc.integer({ min: 100, max: 20_000 }))
    .map(micros),
  punitory_mode: fc.constantFrom('simple_outstanding' as const, 'compound' as const, 'full_amount' as const),
  grace_days: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 7 })),
  max_punitory_days: fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 10, max: 90 }) },
  ),
  punitory_cap_pct: fc
    .oneof(
      { weight: 2, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000_000, max: 200_000_000 }) },
    )
    .map(micros),
  write_off_days: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 25, max: 80 }) },
  ),
  amortization: fc.constantFrom('flat' as const, 'french' as const),
  vat_rate: fc.constantFrom(0, 0.21),
  business_day_rule: fc.oneof(
    { weight: 3, arbitrary: fc.constant('none' as const) },
    { weight: 1, arbitrary: fc.constant('next' as const) },
  ),
});
const DAYS = dayNumber(LAST) - dayNumber(FIRST);
const arbScenario: fc.Arbitrary<Scenario> = fc
  .record({
    plans: fc.array(arbPlan, { minLength: 3, maxLength: 3 }),
    credits: fc.array(
      fc.record({
        plan: fc.integer({ min: 0, max: 2 }),
        amount: fc.integer({ min: 1_000, max: 500_000 }).map((c) => c / 100),
        startBack: fc.integer({ min: 0, max: 70 }),
      }),
      { minLength: 7, maxLength: 7 },
    ),
    intents: fc.array(
      fc.record({
        credit: fc.integer({ min: 0, max: 6 }),
        day: fc.integer({ min: 0, max: DAYS }),
        kind: fc.oneof(
          { weight: 14, arbitrary: fc.constant('pay' as const) },
          { weight: 1, arbitrary: fc.constant('write-off' as const) },
          { weight: 2, arbitrary: fc.constant('reverse' as const) },
        ),
        lag: fc.oneof(
          { weight: 3, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }) },
        ),
        share: fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: 50, max: 600 }) },
          { weight: 1, arbitrary: fc.constant(1000) },
          { weight: 1, arbitrary: fc.constant(1020) },
        ),
        pick: fc.nat({ max: 99 }),
      }),
      { minLength: 22, maxLength: 28 },
    ),
  })
  .map((s) => ({ ...s, intents: [...s.intents].sort((a, b) => a.day - b.day) }));

const cents = (x: unknown) => money(x as number).toFixed(2);

/**
 * The insurance and admin fee of a plan, drawn from its other terms so the seeds keep their books:
 * plans with an odd grace carry life insurance of 0.2 % a month with VAT and an admin fee of 15
 * without; those whose payment day is even, an admin fee of 7.50 with VAT.
 */
function feesOf(p: PlanSpec): {
  type: 'insurance' | 'admin' | 'collection';
  rate?: number;
  amount?: number;
  vat: boolean;
  after_days?: number;
}[] {
  return [...periodFeesOf(p), ...collectionOf(p)];
}
function periodFeesOf(p: PlanSpec): { type: 'insurance' | 'admin'; rate?: number; amount?: number; vat: boolean }[] {
  if (p.grace_days % 2 === 1)
    return [
      { type: 'insurance', rate: 0.002, vat: true },
      { type: 'admin', amount: 15, vat: false },
    ];
  return p.payment_day % 2 === 0 ? [{ type: 'admin', amount: 7.5, vat: true }] : [];
}
/**
 * The collection charge, drawn the same way: monthly plans of two installments without grace are
 * charged 40 (with VAT when the payment day is odd) once an installment is 1 to 12 days late
 * (seed 139: one plan without VAT; seed 77: one with VAT).
 */
function collectionOf(p: PlanSpec): { type: 'collection'; amount: number; vat: boolean; after_days: number }[] {
  return p.cut_type === 'monthly' && p.grace_days === 0 && p.installments_count === 2
    ? [{ type: 'collection', amount: 40, vat: p.payment_day % 2 === 1, after_days: 1 + (p.payment_day % 12) }]
    : [];
}

/** The figures compared, as strings, from the API's credit detail and from the model's view. */
function apiFigures(detail: any) {
  return {
    status: detail.credit.status,
    outstanding: cents(detail.balance.outstanding),
    installments: detail.installments.map((i: any) => ({
      number: i.number,
      punitory: money(i.punitory_posted).plus(money(i.punitory_accrued)).toFixed(2),
      waived: cents(i.waived),
      charges: cents(i.charges),
      paid: cents(i.paid),
      outstanding: cents(i.outstanding),
      status: i.status,
    })),
  };
}
function modelFigures(v: CreditView) {
  return {
    status: v.status,
    outstanding: v.outstanding.toFixed(2),
    installments: v.installments.map((i) => ({
      number: i.number,
      punitory: i.punitory.toFixed(2),
      waived: i.waived.toFixed(2),
      charges: i.charges.toFixed(2),
      paid: i.paid.toFixed(2),
      outstanding: i.outstanding.toFixed(2),
      status: i.status,
    })),
  };
}

/**
 * Drives the scenario day by day. With `legacyUntil`, the days before it are run the way the daily
 * run worked before month closes (legacyDailyRun: punitory posted every day), and the checks on
 * the ledger's growth apply to what was written from that day on.
 */
async function runScenario(
  h: Harness & { clock: { set(at: string): void } },
  s: Scenario,
  o: { legacyUntil?: string } = {},
) {
  const legacyUntil = dayNumber(o.legacyUntil ?? FIRST);
  let legacyEntries = new Set<string>();
  const bid = h.tenant.businessId;
  h.clock.set(FIRST);
  const plans = [];
  for (const p of s.plans) {
    const res = await h.post('/api/credit-configs', { name: 'plan', ...p, fees: feesOf(p) });
    assert.equal(res.statusCode, 201, res.body);
    plans.push(json(res));
  }
  const owner = await client(h);
  const credits: ModelCredit[] = [];
  const writeOffDays: number[] = [];
  for (const c of s.credits) {
    const plan = s.plans[c.plan]!;
    const res = await h.post(`/api/clients/${owner.id}/credits`, {
      credit_config_id: plans[c.plan].id,
      amount: c.amount,
      start_date: addDays(FIRST, -c.startBack),
    });
    assert.equal(res.statusCode, 201, res.body);
    const d = json(res);
    // the insurance and the admin fee, computed here: the insurance on the principal outstanding
    // at the start of each period, each with its VAT when the fee says so
    const [ins, adm] = [feesOf(plan).find((f) => f.type === 'insurance'), feesOf(plan).find((f) => f.type === 'admin')];
    let principalLeft = money(d.credit.amount);
    const withVat = (x: ReturnType<typeof money>, vat: boolean) => (vat ? x.plus(round2(x.times(plan.vat_rate))) : x);
    credits.push({
      id: d.credit.id,
      startDate: d.credit.start_date,
      installments: d.installments.map((i: any) => {
        const insurance = ins ? round2(principalLeft.times(ins.rate!)) : money(0);
        const fees = adm ? money(adm.amount!) : money(0);
        principalLeft = principalLeft.minus(money(i.principal));
        // the API shows the same figures, and its vat holds their VAT
        assert.deepEqual(
          [cents(i.insurance), cents(i.fees)],
          [insurance.toFixed(2), fees.toFixed(2)],
          'insurance and fees',
        );
        const insuranceAll = withVat(insurance, ins?.vat ?? false);
        const feesAll = withVat(fees, adm?.vat ?? false);
        return {
          number: i.number,
          amount: String(i.amount),
          dueDate: i.due_date,
          interest: String(i.interest),
          vat: money(i.vat).minus(insuranceAll.minus(insurance)).minus(feesAll.minus(fees)).toFixed(2),
          insurance: insuranceAll.toFixed(2),
          fees: feesAll.toFixed(2),
        };
      }),
      terms: {
        dailyRate: money(plan.daily_punitory_rate),
        mode: plan.punitory_mode,
        graceDays: plan.grace_days,
        maxDays: plan.max_punitory_days,
        capPct: money(plan.punitory_cap_pct),
      },
      vatRate: plan.vat_rate,
      writtenOffOn: null,
      collection: collectionOf(plan).map((f) => ({
        total: money(f.amount).plus(f.vat ? round2(money(f.amount).times(plan.vat_rate)) : 0),
        afterDays: f.after_days,
      }))[0],
    });
    assert.deepEqual(
      [d.credit.amortization, d.credit.vat_rate],
      [plan.amortization, plan.vat_rate],
      'the credit keeps its plan',
    );
    writeOffDays.push(plan.write_off_days);
  }
  const tried: ModelEvent[] = [];
  /** per event tried: the payment's id when the API accepted it */
  const paymentIds: (string | null)[] = [];
  let model = new ReferenceModel(credits, tried, LAST);
  const rebuild = () => {
    model = new ReferenceModel(credits, tried, LAST);
  };
  /**
   * per credit: payments accepted, of which backdated and of which dated before the credit's
   * latest payment, reversals and write-offs (the events that may post punitory)
   */
  const events = credits.map(() => ({
    payments: 0,
    backdated: 0,
    beforeLatest: 0,
    reversals: 0,
    writeOffs: 0,
    waivers: 0,
  }));
  const runDays: string[] = [];

  for (let t = dayNumber(FIRST); t <= dayNumber(LAST); t++) {
    const today = fromDay(t);
    h.clock.set(today);

    // 1. the daily run, first thing in the day; it writes off the active credits with an unpaid
    //    installment write_off_days late as of today, as the model stood at the end of yesterday
    const due = credits.map((c, k) => {
      if (writeOffDays[k] === 0 || c.writtenOffOn) return false;
      const v = t > dayNumber(c.startDate) ? model.creditOn(c.id, fromDay(t - 1)) : null;
      return (
        v !== null &&
        v.status === 'active' &&
        v.installments.some((i) => i.status !== 'paid' && t - dayNumber(i.dueDate) >= writeOffDays[k]!)
      );
    });
    if (t < legacyUntil) {
      await legacyDailyRun(h.db, bid, today, {
        writeOff: credits.filter((_, k) => due[k]).map((c) => c.id),
        now: h.clock(),
      });
    } else {
      const run = await accrue(h, '--business', bid);
      assert.equal(run.code, 0, run.err);
      const r = run.out.businesses[0];
      runDays.push(today);
      assert.deepEqual([r.as_of, r.closed_through, r.clamped, r.skipped], [today, lastMonthEnd(today), 0, 0]);
      assert.equal(r.written_off, due.filter(Boolean).length, `${today}: automatic write-offs`);
      // between month ends (after the first run) the run finds nothing to close
      if (t > dayNumber(FIRST) && !today.endsWith('-01'))
        assert.equal(r.credits_accrued, 0, `${today}: the run closed a month on an ordinary day`);
    }
    const counted = t >= legacyUntil; // the events whose entries the growth checks bound
    due.forEach((d, k) => {
      if (!d) return;
      credits[k]!.writtenOffOn = today;
      if (counted) events[k]!.writeOffs++;
    });
    if (due.some(Boolean)) rebuild();

    // 2. the day's payments and manual write-offs
    const touched = new Set(credits.filter((_, k) => due[k]).map((c) => c.id));
    for (const it of s.intents.filter((x) => x.day === t - dayNumber(FIRST))) {
      const c = credits[it.credit]!;
      touched.add(c.id);
      if (it.kind === 'reverse') {
        // one of the credit's accepted payments, a reversed one among them (409)
        const candidates = tried.flatMap((e, n) => (e.creditId === c.id && paymentIds[n] ? [n] : []));
        if (candidates.length === 0) continue;
        const payment = candidates[it.pick % candidates.length]!;
        const res = await h.post(`/api/credits/${c.id}/payments/${paymentIds[payment]}/reverse`, {
          reason: 'bounced',
        });
        tried.push({ kind: 'reverse', creditId: c.id, recordedOn: today, payment });
        paymentIds.push(null);
        rebuild();
        const verdict = model.verdicts[tried.length - 1]!;
        const expected = verdict.accepted ? 200 : verdict.reason === 'already_reversed' ? 409 : 422;
        assert.equal(
          res.statusCode,
          expected,
          `${today}: reversal of the payment of ${(tried[payment] as ModelPayment).paidOn}: API ${res.statusCode} ${res.body.slice(0, 200)}, model ${JSON.stringify(verdict)}`,
        );
        if (verdict.accepted && counted) events[it.credit]!.reversals++;
        continue;
      }
      if (it.kind === 'write-off') {
        const res = await h.post(`/api/credits/${c.id}/write-off`, { reason: 'test' });
        const v = model.creditOn(c.id, today)!;
        assert.equal(res.statusCode, v.status === 'active' ? 200 : 409, res.body);
        if (res.statusCode === 200) {
          c.writtenOffOn = today;
          if (counted) events[it.credit]!.writeOffs++;
          rebuild();
        }
        continue;
      }
      const paidOn = addDays(today, -it.lag);
      const owed = money(json(await h.get(`/api/credits/${c.id}`)).balance.outstanding);
      const amount = owed.times(it.share).div(1000).toDecimalPlaces(2);
      if (amount.lte(0)) continue;
      const latest = model.creditOn(c.id, today)!.payments.at(-1)?.paidOn;
      const res = await h.post(`/api/credits/${c.id}/payments`, { amount: amount.toNumber(), paid_on: paidOn });
      tried.push({ creditId: c.id, recordedOn: today, paidOn, amount: amount.toFixed(2) });
      rebuild();
      const verdict = model.verdicts[tried.length - 1]!;
      assert.equal(
        res.statusCode,
        verdict.accepted ? 201 : verdict.reason === 'closed' ? 409 : 422,
        `${today}: payment of ${amount.toFixed(2)} on ${paidOn}: API ${res.statusCode} ${res.body.slice(0, 200)}, model ${JSON.stringify(verdict)}`,
      );
      // the payment's id: on the slices it wrote
      paymentIds.push(
        res.statusCode === 201 ? json(res).ledgerEntries.find((e: any) => e.origin === 'payment').payment_id : null,
      );
      if (verdict.accepted && counted) {
        events[it.credit]!.payments++;
        if (it.lag > 0) events[it.credit]!.backdated++;
        if (latest !== undefined && paidOn < latest) events[it.credit]!.beforeLatest++;
      }

      // every fourth payment intent also waives a share of the oldest unpaid punitory of the
      // credit (a share above 1000: more than is unpaid, refused): the intents drawn stay the same
      if (it.pick % 4 !== 0) continue;
      const inst = model
        .creditOn(c.id, today)!
        .installments.find((i) => i.punitory.minus(i.punitoryPaid).minus(i.waived).gt(0));
      if (!inst) continue;
      const unpaid = inst.punitory.minus(inst.punitoryPaid).minus(inst.waived);
      const waived = unpaid.times(it.share).div(1000).toDecimalPlaces(2);
      if (waived.lte(0)) continue;
      const ids = json(await h.get(`/api/credits/${c.id}`)).installments.map((i: any) => i.id);
      const wres = await h.post(`/api/credits/${c.id}/waivers`, {
        installment_id: ids[inst.number - 1],
        kind: 'punitory',
        amount: waived.toNumber(),
        reason: 'test',
      });
      tried.push({
        kind: 'waive',
        creditId: c.id,
        recordedOn: today,
        installment: inst.number,
        amount: waived.toFixed(2),
      });
      paymentIds.push(null);
      rebuild();
      const wv = model.verdicts[tried.length - 1]!;
      assert.equal(
        wres.statusCode,
        wv.accepted ? 201 : 422,
        `${today}: waiver of ${waived.toFixed(2)} on installment ${inst.number}: API ${wres.statusCode} ${wres.body.slice(0, 200)}, model ${JSON.stringify(wv)}`,
      );
      if (wv.accepted && counted) events[it.credit]!.waivers++;
    }

    // 3. what the API shows today is what posting every day would show: every installment (the
    //    worklist, one request), every credit's status, and the credit reads (balance included) of
    //    the credits an event touched today, of one more in turn, and of all of them around a month end
    const views = model.on(today);
    const worklist = json(await h.get('/api/installments?limit=100'));
    const statuses = new Map(json(await h.get('/api/credits?limit=100')).items.map((c: any) => [c.id, c.status]));
    for (const v of views) {
      const items = worklist.items
        .filter((i: any) => i.credit_id === v.id)
        .sort((a: any, b: any) => a.number - b.number);
      assert.deepEqual(
        apiFigures({ credit: { status: statuses.get(v.id) }, balance: { outstanding: 0 }, installments: items })
          .installments,
        modelFigures(v).installments,
        `${today}: installments of credit ${v.id}`,
      );
      assert.equal(statuses.get(v.id), v.status, `${today}: status of credit ${v.id}`);
    }
    const aroundMonthEnd = today.endsWith('-01') || addDays(today, 1).endsWith('-01');
    for (const [k, v] of views.entries()) {
      if (!aroundMonthEnd && !touched.has(v.id) && k !== t % views.length) continue;
      const detail = json(await h.get(`/api/credits/${v.id}`));
      assert.deepEqual(apiFigures(detail), modelFigures(v), `${today}: credit ${v.id}`);
      // the early-payoff quote of the day
      assert.equal(
        cents(json(await h.get(`/api/credits/${v.id}/payoff`)).amount),
        model.payoffOn(v.id, today).toFixed(2),
        `${today}: payoff of credit ${v.id}`,
      );
      // its payments in the order they apply, the reversed ones left out
      const payments = json(await h.get(`/api/credits/${v.id}/payments`));
      assert.deepEqual(
        payments.filter((p: any) => p.reversed_at === null).map((p: any) => [p.paid_on, cents(p.amount)]),
        v.payments.map((p) => [p.paidOn, p.amount.toFixed(2)]),
        `${today}: payments of credit ${v.id}`,
      );
    }
    const sum = (vs: CreditView[], f: (v: CreditView) => ReturnType<typeof money>) =>
      vs.reduce((a, v) => a.plus(f(v)), money(0)).toFixed(2);
    const active = views.filter((v) => v.status === 'active');
    const summary = json(await h.get('/api/reports/summary'));
    // cash collected: the payments known today (a reversed one is taken back on its own date)
    const cash = (from: string) =>
      views
        .flatMap((v) => v.payments)
        .filter((p) => p.paidOn >= from && p.paidOn <= today)
        .reduce((a, p) => a.plus(p.amount), money(0))
        .toFixed(2);
    assert.deepEqual(
      {
        outstanding: cents(summary.outstanding),
        written_off_outstanding: cents(summary.written_off_outstanding),
        overdue: cents(summary.overdue),
        par1: cents(summary.par.par1.amount),
        disbursed: cents(summary.disbursed),
        collected: [cents(summary.collected.day), cents(summary.collected.month)],
      },
      {
        disbursed: sum(views, (v) => money(s.credits[credits.findIndex((c) => c.id === v.id)]!.amount)),
        collected: [cash(today), cash(`${today.slice(0, 8)}01`)],
        outstanding: sum(active, (v) => v.outstanding),
        written_off_outstanding: sum(
          views.filter((v) => v.status === 'written_off'),
          (v) => v.outstanding,
        ),
        overdue: sum(active, (v) => v.overdue),
        par1: sum(
          active.filter((v) => v.daysLate >= 1),
          (v) => v.outstanding,
        ),
      },
      `${today}: summary`,
    );
    if (t === legacyUntil - 1) {
      // the old book on its last day: posted through today, every figure is the ledger's own sum
      for (const i of worklist.items) assert.equal(i.punitory_accrued, 0, `${today}: legacy book posted through today`);
      legacyEntries = new Set(
        (await h.db.kysely.selectFrom('ledger').select('id').where('business_id', '=', bid).execute()).map((e) => e.id),
      );
    }
  }

  // the ledger grew with months and events, not with days
  const ledger = (
    await h.db.kysely
      .selectFrom('ledger')
      .select(['id', 'credit_id', 'installment_id', 'effective_date', 'created_by', 'amount'])
      .where('business_id', '=', bid)
      .where('type', '=', 'punitory')
      .execute()
  ).filter((e) => !legacyEntries.has(e.id));
  const monthEnds = new Set(runDays.map(lastMonthEnd));
  for (const [k, c] of credits.entries()) {
    const own = ledger.filter((e) => e.credit_id === c.id);
    const ev = events[k]!;
    // a payment posts up to its date and, backdated, corrects the latest posting; a reversal posts
    // up to today, then corrects it without the payment
    const perInstallment = ev.payments + ev.backdated + ev.writeOffs + 2 * ev.reversals;
    for (const inst of new Set(own.map((e) => e.installment_id))) {
      const mine = own.filter((e) => e.installment_id === inst);
      // the run's entries: one per month end at most, or the automatic write-off's (an event)
      const byRun = mine.filter((e) => e.created_by === 'cli');
      for (const e of byRun)
        assert.ok(
          monthEnds.has(e.effective_date) || e.effective_date === c.writtenOffOn,
          `credit ${c.id}: a run entry on ${e.effective_date}, neither a month end nor its write-off`,
        );
      const closes = byRun.filter((e) => monthEnds.has(e.effective_date)).map((e) => e.effective_date);
      assert.equal(new Set(closes).size, closes.length, `credit ${c.id}: two close entries for one month`);
      assert.ok(
        mine.length <= monthEnds.size + perInstallment,
        `credit ${c.id}: ${mine.length} punitory entries on one installment for ${monthEnds.size} months and ${perInstallment} events`,
      );
    }
  }
  await assertLedgerInvariant(h.db, bid);
  const reallocated = await h.db.kysely
    .selectFrom('ledger')
    .select('id')
    .where('business_id', '=', bid)
    .where('type', '=', 'payment')
    .where('origin', '=', 'correction')
    .execute();
  // collection charges: each installment's net is 0 or the plan's charge (never charged twice)
  const charges = await h.db.kysely
    .selectFrom('ledger')
    .select(['credit_id', 'installment_id', 'amount'])
    .where('business_id', '=', bid)
    .where('type', '=', 'charge')
    .execute();
  for (const inst of new Set(charges.map((e) => e.installment_id))) {
    const mine = charges.filter((e) => e.installment_id === inst);
    const net = mine.reduce((a, e) => a.plus(money(e.amount)), money(0));
    const k = credits.findIndex((c) => c.id === mine[0]!.credit_id);
    const charge = credits[k]!.collection;
    assert.ok(
      charge && (net.isZero() || net.eq(money(charge.total))),
      `installment ${inst}: charges of ${net.toFixed(2)} net, not 0 nor the plan's charge`,
    );
  }
  const total = (f: (e: (typeof events)[number]) => number) => events.reduce((n, e) => n + f(e), 0);
  return {
    /** collection charge entries written (corrections included) */
    chargeEntries: charges.length,
    payments: total((e) => e.payments),
    backdated: total((e) => e.backdated),
    beforeLatest: total((e) => e.beforeLatest),
    reversals: total((e) => e.reversals),
    waivers: total((e) => e.waivers),
    /** payment slices of later payments allocated again (a payment placed before them, a reversal) */
    reallocated: reallocated.length,
    french: s.credits.filter((c) => s.plans[c.plan]!.amortization === 'french').length,
    vat: s.credits.filter((c) => s.plans[c.plan]!.vat_rate > 0).length,
    weekendDue: credits.flatMap((c) => c.installments).filter((i) => weekendTolerance(i.dueDate) > 0).length,
    entries: ledger.length,
    corrections: ledger.filter((e) => money(e.amount).lt(0)).length,
    statuses: model
      .on(LAST)
      .map((v) => `${v.status} (${v.installments.map((i) => i.punitory.toFixed(2)).join(', ')})`)
      .join('; '),
  };
}

test('day by day over three month ends, the API and the summary equal daily posting to the cent; the ledger grows with months and events', async (t) => {
  // fixed seeds: the same books on every run and both databases (a failure names its seed); 139
  // has compound plans with VAT whose punitory is paid in part
  for (const seed of [139, 121]) {
    const [scenario] = fc.sample(arbScenario, { seed, numRuns: 1 });
    const clock = Object.assign(() => new Date(now), {
      set(v: string) {
        now = new Date(`${v}T12:00:00Z`).getTime();
      },
    });
    let now = 0;
    const h = await build(t, { clock });
    await t.test(`seed ${seed}`, async () => {
      const r = await runScenario({ ...h, clock }, scenario!);
      // the seed is chosen so that a backdated payment reaches behind a month close (a negative entry),
      // a payment is placed before a credit's latest one and a reversal is accepted (later payments
      // allocated again), French and flat plans, with VAT and without, and due dates on weekends occur
      assert.ok(r.backdated > 0 && r.corrections > 0, `seed ${seed} no longer exercises a backdated correction`);
      assert.ok(r.beforeLatest > 0 && r.reallocated > 0, `seed ${seed} no longer places a payment before another`);
      assert.ok(r.reversals > 0, `seed ${seed} no longer reverses a payment`);
      assert.ok(r.waivers > 0, `seed ${seed} no longer waives punitory`);
      assert.ok(r.french > 0 && r.french < 7, `seed ${seed} no longer has French and flat credits`);
      assert.ok(r.vat > 0 && r.vat < 7, `seed ${seed} no longer has credits with VAT and without`);
      assert.ok(r.weekendDue > 0, `seed ${seed} no longer has an installment due on a weekend`);
      // seed 139 has a plan with a collection charge (collectionOf); 121 has none
      if (seed === 139) assert.ok(r.chargeEntries > 0, `seed ${seed} no longer posts a collection charge`);
      t.diagnostic(
        `seed ${seed}: ${r.payments} payments accepted (${r.backdated} backdated, ${r.beforeLatest} before a later one), ${r.reversals} reversals, ${r.waivers} waivers, ${r.reallocated} slices allocated again, ${r.french} French credits, ${r.vat} with VAT, ${r.weekendDue} installments due on a weekend, ${r.chargeEntries} collection charge entries, ${r.entries} punitory entries (${r.corrections} negative); on the last day: ${r.statuses}`,
      );
    });
  }
});

test('a book posted every day by the old daily run shows the same figures, and the month closes that follow post nothing wrong', async (t) => {
  const [scenario] = fc.sample(arbScenario, { seed: 77, numRuns: 1 });
  let now = 0;
  const clock = Object.assign(() => new Date(now), {
    set(v: string) {
      now = new Date(`${v}T12:00:00Z`).getTime();
    },
  });
  const h = await build(t, { clock });
  // daily postings from January 10th to February 14th; month closes from the 15th to April 3rd
  const r = await runScenario({ ...h, clock }, scenario!, { legacyUntil: '2024-02-15' });
  t.diagnostic(
    `seed 77: ${r.payments} payments accepted after the switch (${r.backdated} backdated, ${r.beforeLatest} before a later one), ${r.reversals} reversals, ${r.entries} punitory entries since (${r.corrections} negative)`,
  );
});
