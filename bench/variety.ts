// Adds credits of every kind the bench book lacks to a running server's business, through its HTTP
// API (so the server's own services write them): plans with French amortization, VAT, origination
// fees (deducted and financed), the business-day rule; credits started in the past and paid on
// time, late (punitory posted), in part, reversed, paid off early (the rebate), written off,
// refinanced and cancelled. Only an HTTP client: it runs against an older version of the server
// too, which is its use (docs/deployment.md, "Checking a migration on a real book"). Never against
// production: it writes.
//
//   LENDING_API_KEY=<full key> npm run bench -- variety --url http://127.0.0.1:3101 [--credits 300] [--seed 1]
import { parseArgs } from 'node:util';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    credits: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
  },
});
const base = (o.url ?? '').replace(/\/+$/, '');
const key = o.key ?? process.env.LENDING_API_KEY;
const count = Number(o.credits);
if (!base || !key || !(Number.isInteger(count) && count > 0)) {
  console.error('usage: LENDING_API_KEY=<full key> npm run bench -- variety --url URL [--credits N] [--seed N]');
  process.exit(2);
}

// mulberry32: the same credits for the same seed
let state = Number(o.seed) >>> 0;
const rand = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

const outcomes = new Map<string, number>();
const count1 = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (res.status >= 500 || res.status === 401 || res.status === 403)
    throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  if (res.status >= 400) count1(`${method} ${path.replace(/[0-9a-f-]{36}/g, ':id')} → ${res.status} ${json?.code}`);
  return { status: res.status, json };
}

const addDays = (d: string, n: number) => {
  const t = new Date(`${d}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + n);
  return t.toISOString().slice(0, 10);
};
const today: string = (await call('GET', '/api/reports/summary')).json.as_of;

const PLANS = [
  { name: 'Variedad francés IVA', amortization: 'french', vat_rate: 0.21, interest_rate: 0.6, installments_count: 6 },
  {
    name: 'Variedad francés IVA comisión descontada',
    amortization: 'french',
    vat_rate: 0.21,
    interest_rate: 0.8,
    installments_count: 12,
    fees: [{ type: 'origination', rate: 0.03, vat: true, financed: false }],
  },
  {
    name: 'Variedad francés comisión financiada',
    amortization: 'french',
    vat_rate: 0,
    interest_rate: 0.7,
    installments_count: 9,
    fees: [{ type: 'origination', amount: 1500, vat: true, financed: true }],
  },
  {
    name: 'Variedad plano IVA mensual',
    amortization: 'flat',
    vat_rate: 0.105,
    interest_rate: 0.35,
    installments_count: 4,
    cut_type: 'monthly',
    payment_day: 15,
    business_day_rule: 'next',
    punitory_mode: 'compound',
  },
  {
    name: 'Variedad plano tope',
    amortization: 'flat',
    vat_rate: 0,
    interest_rate: 0.3,
    installments_count: 3,
    punitory_mode: 'full_amount',
    punitory_cap_pct: 40,
    max_punitory_days: 45,
    grace_days: 2,
  },
];
const plans: string[] = [];
for (const p of PLANS) {
  const r = await call('POST', '/api/credit-configs', {
    daily_punitory_rate: 0.004,
    ...p,
    name: `${p.name} ${o.seed}`,
  });
  if (r.status !== 201 && r.status !== 200) throw new Error(`plan ${p.name}: ${r.status} ${JSON.stringify(r.json)}`);
  plans.push(r.json.id);
}

const BEHAVIOURS = ['on_time', 'late', 'partial', 'reversed', 'payoff', 'write_off', 'refinance', 'cancel'] as const;
let made = 0;
for (let n = 0; n < count; n++) {
  const dni = String(40_000_000 + Number(o.seed) * 10_000 + n);
  const client = await call('POST', '/api/clients', { dni, first_name: 'Var', last_name: `Iedad ${n}` });
  if (client.status >= 400) continue;
  const start = addDays(today, -int(5, 420));
  const credit = await call('POST', `/api/clients/${client.json.id}/credits`, {
    credit_config_id: pick(plans),
    amount: int(20, 400) * 500,
    start_date: start,
  });
  if (credit.status >= 400) continue;
  made++;
  const id: string = credit.json.credit?.id ?? credit.json.id;
  const behaviour = pick(BEHAVIOURS);
  count1(`behaviour ${behaviour}`);
  const read = async () => (await call('GET', `/api/credits/${id}`)).json;
  const pay = (amount: number, paidOn: string) =>
    call('POST', `/api/credits/${id}/payments`, {
      amount: Math.round(amount * 100) / 100,
      paid_on: paidOn,
      method: pick(['cash', 'transfer', 'debit']),
    });
  if (behaviour === 'cancel') {
    await call('POST', `/api/credits/${id}/cancel`);
    continue;
  }
  const installments: { amount: number; due_date: string }[] = (await read()).installments;
  const due = installments.filter((i) => i.due_date <= today);
  // how many due installments get paid before the behaviour's end
  const upto = behaviour === 'on_time' ? due.length : int(0, due.length);
  let last = start;
  for (const inst of due.slice(0, upto)) {
    const late = behaviour === 'late' || (behaviour !== 'on_time' && rand() < 0.3) ? int(1, 40) : 0;
    let paidOn = addDays(inst.due_date, late);
    if (paidOn > today) paidOn = today;
    if (paidOn < last) paidOn = last;
    const amount = behaviour === 'partial' && rand() < 0.5 ? inst.amount * (0.2 + rand() * 0.6) : inst.amount;
    const p = await pay(amount, paidOn);
    last = paidOn;
    // the payment's id is on the entries it wrote
    const paymentId = (p.json?.ledgerEntries ?? []).find(
      (e: { payment_id: string | null }) => e.payment_id,
    )?.payment_id;
    if (behaviour === 'reversed' && paymentId && rand() < 0.5)
      await call('POST', `/api/credits/${id}/payments/${paymentId}/reverse`, { reason: 'rechazado' });
  }
  if (behaviour === 'payoff') {
    const on = addDays(last, int(0, 20)) > today ? today : addDays(last, int(0, 20));
    const q = await call('GET', `/api/credits/${id}/payoff?as_of=${on}`);
    if (q.status === 200 && q.json.amount > 0) await pay(q.json.amount, on);
  } else if (behaviour === 'write_off') {
    await call('POST', `/api/credits/${id}/write-off`, { reason: 'incobrable (bench)' });
  } else if (behaviour === 'refinance') {
    await call('POST', `/api/credits/${id}/refinance`, { credit_config_id: pick(plans) });
  }
}
console.log(`${made} credits added on ${plans.length} plans (today ${today})`);
for (const [what, n] of [...outcomes].sort()) console.log(`  ${what.padEnd(70)} ${n}`);
