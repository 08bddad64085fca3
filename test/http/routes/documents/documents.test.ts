// The loan contract and the promissory note (GET /api/credits/{id}/documents/contract and
// /promissory-note) through the real app, read back with poppler: the figures of two credits
// computed by hand (a flat credit with VAT and a deducted origination fee, backed by a guarantor
// and a co-borrower; a one-installment credit with a financed fee and cents), the amount in words,
// the CFT with and without VAT solved here independently and printed larger and in bold than the
// other rates, the extra parts an installment may carry, and who may read them (404 across
// businesses, 403 for an operator not acting as a user, 401 without a key).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, createTenant, json, settableClock } from '../../../helpers/app.ts';
import { newUser, operatorSession, signIn, sessionOf, userSession } from '../../../helpers/sessions.ts';
import { withCheckDigit } from '../../../../src/domain/index.ts';
import { CFT_SIZE, RATE_SIZE, renderContractPdf } from '../../../../src/http/pdf/contract.ts';
import { creditDocuments, scheduleParts } from '../../../../src/services/creditDocuments.ts';
import { actorContext } from '../../../../src/services/context.ts';
import { installmentsOfCredit } from '../../../../src/db/repositories/installments.ts';

// ---------------------------------------------------------------- poppler

const POPPLER = spawnSync('pdftotext', ['-v']).error === undefined;
const NO_POPPLER = 'pdftotext/pdftohtml not installed (apt-get install poppler-utils): PDF checks skipped';

function withPdf<T>(pdf: Buffer, fn: (file: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'lending-doc-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The PDF's text in reading order, every run of white space one space. */
function pdfText(pdf: Buffer): string {
  return withPdf(pdf, (file) => {
    const r = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdftotext failed: ${r.stderr}`);
    return r.stdout.replace(/\s+/g, ' ');
  });
}

/** Every run of text with its font size and weight, as poppler's XML export reports them. */
function pdfRuns(pdf: Buffer): { text: string; size: number; bold: boolean }[] {
  return withPdf(pdf, (file) => {
    const r = spawnSync('pdftohtml', ['-xml', '-i', '-stdout', '-q', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdftohtml failed: ${r.stderr}`);
    const sizes = new Map<string, number>();
    for (const m of r.stdout.matchAll(/<fontspec id="(\d+)" size="([\d.]+)"/g)) sizes.set(m[1]!, Number(m[2]));
    return [...r.stdout.matchAll(/<text [^>]*font="(\d+)"[^>]*>(.*?)<\/text>/g)].map((m) => ({
      text: m[2]!.replace(/<\/?[bi]>/g, '').trim(),
      size: sizes.get(m[1]!)!,
      bold: /<b>/.test(m[2]!),
    }));
  });
}

const has = (text: string, expected: string[], what: string) => {
  for (const e of expected) assert.ok(text.includes(e), `the ${what} shows "${e}":\n${text}`);
};

// ---------------------------------------------------------------- the CFT, solved here

const DAY = 86_400_000;
const days = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY;

/** The annual rate r with Σ a / (1 + r)^(days / 365) = pv, by bisection in floating point. */
function annualRate(pv: number, flows: { days: number; amount: number }[]): number {
  const f = (r: number) => flows.reduce((s, x) => s + x.amount / (1 + r) ** (x.days / 365), 0) - pv;
  let lo = -0.99;
  let hi = 1e6;
  for (let k = 0; k < 400; k++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** A fraction as the documents print a rate: "238,12 %". */
const pct = (fraction: number) =>
  `${(Math.round(fraction * 10000) / 100).toLocaleString('es-AR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} %`;

// ---------------------------------------------------------------- the stories

const BUSINESS = 'Préstamos del Sur Ñandú S.A.';

async function story(t: TestContext) {
  const clock = settableClock('2026-01-15');
  const h = await build(t, { clock });
  const T = await createTenant(h.db, { name: BUSINESS });
  const as = (method: 'GET' | 'POST', url: string, body?: unknown, key: string | null = T.fullKey) =>
    h.req({ method, url, key, ...(body === undefined ? {} : { payload: body as object }) });
  const created = async (url: string, body: unknown) => {
    const res = await as('POST', url, body);
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  };
  const cuit = withCheckDigit('2030123456')!;
  const branch = await created('/api/branches', { name: 'Centro', address: 'Av. Colón 1234, Córdoba' });
  // flat 20 % over the credit, VAT 21 % on the interest, origination 5 % plus VAT deducted
  const plan = await created('/api/credit-configs', {
    name: 'Mensual 3 con IVA',
    installments_count: 3,
    cut_type: 'monthly',
    payment_day: 10,
    interest_rate: 0.2,
    daily_punitory_rate: 0.002,
    grace_days: 3,
    vat_rate: 0.21,
    fees: [{ type: 'origination', rate: 0.05, vat: true }],
  });
  const client = await created('/api/clients', {
    dni: '30123456',
    first_name: 'José María',
    last_name: 'Peña',
    cuit,
    street: 'San Martín',
    street_number: '550',
    city: 'Córdoba',
    zip_code: '5000',
    state: 'Córdoba',
  });
  const guarantor = await created('/api/clients', { dni: '25111222', first_name: 'Ana', last_name: 'Gómez' });
  const coBorrower = await created('/api/clients', { dni: '27333444', first_name: 'Luis', last_name: 'Pérez' });
  const detail = await created(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 100000,
    branch_id: branch.id,
    start_date: '2026-01-15',
  });
  await created(`/api/credits/${detail.credit.id}/guarantors`, { client_id: guarantor.id, role: 'guarantor' });
  await created(`/api/credits/${detail.credit.id}/guarantors`, { client_id: coBorrower.id, role: 'co_borrower' });
  return { h, T, as, created, cuit, plan, client, credit: detail.credit, read: detail };
}

const documentOf = (s: Awaited<ReturnType<typeof story>>, kind: string, id = s.credit.id, key?: string | null) =>
  s.as('GET', `/api/credits/${id}/documents/${kind}`, undefined, key);

test('the contract of a flat credit with VAT and a deducted fee: parties, money, schedule, fees and rates by hand; the CFT larger and bold', async (t) => {
  const s = await story(t);
  const n = s.credit.sequential_id;
  const res = await documentOf(s, 'contract');
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/pdf');
  assert.equal(res.headers['content-disposition'], `attachment; filename="contrato-credito-${n}.pdf"`);
  assert.equal(res.headers['cache-control'], 'private, no-store');
  assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
  assert.equal(res.rawPayload.subarray(0, 5).toString(), '%PDF-');
  if (!POPPLER) return t.skip(NO_POPPLER);

  // by hand: the fee 5 % of 100,000 = 5,000 plus 21 % VAT 1,050 = 6,050, deducted: 93,950 handed
  // over. Interest 20 % = 20,000 and its VAT 4,200, in three installments: principal 33,333.33,
  // 33,333.33 and 33,333.34 (the last takes the remainder), interest 6,666.67, 6,666.67, 6,666.66,
  // VAT 1,400 each: 41,400 each, 124,200 in all. Due on the 10th, the first after 30 days: 10/03.
  const text = pdfText(res.rawPayload);
  const cuit = `${s.cuit.slice(0, 2)}-${s.cuit.slice(2, 10)}-${s.cuit.slice(10)}`;
  has(
    text,
    [
      BUSINESS,
      'CONTRATO DE PRÉSTAMO',
      `Crédito Nº ${n} · 15/01/2026`,
      'Centro · Av. Colón 1234, Córdoba',
      `Entre ${BUSINESS}, con domicilio en Av. Colón 1234, Córdoba (en adelante, «EL ACREEDOR»)`,
      `José María Peña, DNI 30.123.456, CUIT/CUIL ${cuit}, con domicilio en San Martín 550, Córdoba (5000), Córdoba (en adelante, «EL DEUDOR»)`,
      'Luis Pérez, DNI 27.333.444 (en adelante, «EL CODEUDOR»)',
      'Ana Gómez, DNI 25.111.222 (en adelante, «EL FIADOR»)',
      'la suma de $ 100.000,00 (pesos cien mil con 00/100)',
      'comisión de otorgamiento de $ 6.050,00 (IVA incluido)',
      'el neto de $ 93.950,00',
      'Monto del préstamo $ 100.000,00',
      'Comisión de otorgamiento (descontada, IVA incl.) $ 6.050,00',
      'Monto neto desembolsado $ 93.950,00',
      'Total a devolver $ 124.200,00',
      'en 3 cuotas mensuales y consecutivas',
      'la primera con vencimiento el 10/03/2026',
      'Cuota Vencimiento Capital Interés IVA Importe de la cuota',
      '1 10/03/2026 $ 33.333,33 $ 6.666,67 $ 1.400,00 $ 41.400,00',
      '2 10/04/2026 $ 33.333,33 $ 6.666,67 $ 1.400,00 $ 41.400,00',
      '3 10/05/2026 $ 33.333,34 $ 6.666,66 $ 1.400,00 $ 41.400,00',
      'Total $ 100.000,00 $ 20.000,00 $ 4.200,00 $ 124.200,00',
      'Comisión de otorgamiento: 5 % del monto del préstamo más IVA, descontada del monto entregado. Importe: $ 5.000,00 más IVA $ 1.050,00 (total $ 6.050,00).',
      'intereses punitorios del 0,2 % diario sobre el importe impago de la cuota más IVA',
      'dentro de los 3 días siguientes',
      'pagaré a la vista, sin protesto, por $ 124.200,00',
      'fiador solidario, liso, llano y principal pagador',
      'en Av. Colón 1234, Córdoba, el 15/01/2026',
      'EL DEUDOR',
      'EL ACREEDOR',
      'EL FIADOR',
      'EL CODEUDOR',
    ],
    'contract',
  );

  // the rates: TNA and TEA are the credit read's; the CFT solved here from the installments on
  // their days (54, 85 and 115 after the start) against the cash handed over: with VAT 41,400
  // each against 93,950; without VAT 40,000 each against 93,950 + the fee's VAT 1,050 = 95,000
  const at = [days('2026-01-15', '2026-03-10'), days('2026-01-15', '2026-04-10'), days('2026-01-15', '2026-05-10')];
  assert.deepEqual(at, [54, 85, 115]);
  const withVat = annualRate(
    93950,
    at.map((d) => ({ days: d, amount: 41400 })),
  );
  const withoutVat = annualRate(
    95000,
    at.map((d) => ({ days: d, amount: 40000 })),
  );
  assert.equal(pct(withVat), pct(s.read.cost.cft_tea), 'the CFT solved here is the credit read`s');
  const rates = {
    tna: pct(s.read.cost.tna),
    tea: pct(s.read.cost.tea),
    cft: pct(withVat),
    cftWithoutVat: pct(withoutVat),
  };
  has(
    text,
    [
      `Tasa nominal anual (TNA) ${rates.tna}`,
      `Tasa efectiva anual (TEA) ${rates.tea}`,
      `COSTO FINANCIERO TOTAL (CFT) efectivo anual con IVA ${rates.cft}`,
      `COSTO FINANCIERO TOTAL (CFT) efectivo anual sin IVA ${rates.cftWithoutVat}`,
    ],
    'contract',
  );
  assert.ok(withoutVat < withVat, 'VAT adds to the cost');

  // the CFT larger and bolder than every other rate
  const runs = pdfRuns(res.rawPayload);
  const run = (value: string) => {
    const found = runs.filter((r) => r.text === value);
    assert.equal(
      found.length,
      1,
      `one run reads "${value}": ${JSON.stringify(runs.filter((r) => r.text.includes('%')))}`,
    );
    return found[0]!;
  };
  const [tna, tea, cft, cftWithoutVat] = [rates.tna, rates.tea, rates.cft, rates.cftWithoutVat].map(run);
  for (const c of [cft!, cftWithoutVat!]) {
    assert.ok(c.bold, `the CFT ${c.text} is bold`);
    for (const other of [tna!, tea!]) {
      assert.ok(!other.bold, `the rate ${other.text} is not bold`);
      assert.ok(c.size > other.size, `the CFT (${c.size}) is larger than ${other.text} (${other.size})`);
    }
  }
  assert.ok(CFT_SIZE > RATE_SIZE, 'holds: CFT_SIZE > RATE_SIZE');
});

test('the promissory note: the total in figures and in words, place and date, the debtor, "sin protesto", co-borrower and guarantor', async (t) => {
  const s = await story(t);
  const n = s.credit.sequential_id;
  const res = await documentOf(s, 'promissory-note');
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/pdf');
  assert.equal(res.headers['content-disposition'], `attachment; filename="pagare-credito-${n}.pdf"`);
  assert.equal(res.headers['cache-control'], 'private, no-store');
  if (!POPPLER) return t.skip(NO_POPPLER);
  const text = pdfText(res.rawPayload);
  has(
    text,
    [
      'PAGARÉ',
      'Por $ 124.200,00',
      `Crédito Nº ${n}`,
      'Vencimiento: a la vista',
      'Lugar y fecha de emisión: Av. Colón 1234, Córdoba, 15/01/2026',
      'A la vista pagaremos en forma solidaria sin protesto',
      `a ${BUSINESS} o a su orden la cantidad de PESOS CIENTO VEINTICUATRO MIL DOSCIENTOS CON 00/100 ($ 124.200,00)`,
      'Pagadero en Av. Colón 1234, Córdoba.',
      'LIBRADOR',
      'Nombre y apellido José María Peña',
      'DNI 30.123.456',
      `CUIT/CUIL ${s.cuit.slice(0, 2)}-${s.cuit.slice(2, 10)}-${s.cuit.slice(10)}`,
      'Domicilio San Martín 550, Córdoba (5000), Córdoba',
      'LIBRADOR (CODEUDOR SOLIDARIO)',
      'Nombre y apellido Luis Pérez',
      'POR AVAL',
      'Nombre y apellido Ana Gómez',
      'DNI 25.111.222',
    ],
    'promissory note',
  );
});

test('a financed fee with cents, one installment, no branch: "veintiún mil" in words, the capital with the fee', async (t) => {
  const s = await story(t);
  // 16,500.25 lent, a fixed fee of 1,000 (no VAT) financed: principal 17,500.25, flat 20 %
  // interest 3,500.05, one installment of 21,000.30 due 30 days after the start (14/02); the
  // cash handed over is the amount
  const plan = await s.created('/api/credit-configs', {
    name: 'Un pago',
    installments_count: 1,
    interest_rate: 0.2,
    fees: [{ type: 'origination', amount: 1000, vat: false, financed: true }],
  });
  const lone = await s.created('/api/clients', { dni: '31222333', first_name: 'Rocío', last_name: 'Ibáñez' });
  const d = await s.created(`/api/clients/${lone.id}/credits`, {
    credit_config_id: plan.id,
    amount: 16500.25,
    start_date: '2026-01-15',
  });
  assert.deepEqual(
    [d.credit.total, d.credit.disbursed, d.installments[0].principal, d.installments[0].interest],
    [21000.3, 16500.25, 17500.25, 3500.05],
  );
  if (!POPPLER) return t.skip(NO_POPPLER);
  const note = pdfText((await documentOf(s, 'promissory-note', d.credit.id)).rawPayload);
  has(
    note,
    [
      'Por $ 21.000,30',
      'A la vista pagaré sin protesto',
      'la cantidad de PESOS VEINTIÚN MIL CON 30/100 ($ 21.000,30)',
      'Lugar y fecha de emisión: …',
      'Pagadero en el domicilio de EL ACREEDOR.',
      'Nombre y apellido Rocío Ibáñez',
      'DNI 31.222.333',
      'CUIT/CUIL —',
    ],
    'promissory note',
  );
  assert.ok(!note.includes('POR AVAL') && !note.includes('CODEUDOR'), note);

  const contract = pdfText((await documentOf(s, 'contract', d.credit.id)).rawPayload);
  has(
    contract,
    [
      'la suma de $ 16.500,25 (pesos dieciséis mil quinientos con 25/100)',
      'La comisión de otorgamiento de $ 1.000,00 (IVA incluido) se financia',
      'Comisión de otorgamiento (financiada, IVA incl.) $ 1.000,00',
      'Monto neto desembolsado $ 16.500,25',
      'Capital a devolver $ 17.500,25',
      'Total a devolver $ 21.000,30',
      'en 1 cuota (interés directo sobre el monto prestado), con vencimiento el 14/02/2026',
      '1 14/02/2026 $ 17.500,25 $ 3.500,05 $ 0,00 $ 21.000,30',
      'Comisión de otorgamiento: $ 1.000,00, financiada: se suma al capital a devolver.',
      'El préstamo no prevé intereses punitorios.',
    ],
    'contract',
  );
  assert.ok(!contract.includes('FIADOR') && !contract.includes('OCTAVA'), 'no guarantor, no guarantee clause');
});

test('who may read them: a read key and a viewer do; another business, unknown or malformed ids are 404; an operator not acting as a user is 403; no key is 401', async (t) => {
  const s = await story(t);
  for (const kind of ['contract', 'promissory-note']) {
    assert.equal((await documentOf(s, kind, s.credit.id, s.T.readKey)).statusCode, 200, `${kind}: a read key`);
    const B = await s.h.newTenant();
    for (const [id, key, what] of [
      [s.credit.id, B.fullKey, 'another business'],
      [crypto.randomUUID(), s.T.fullKey, 'an unknown id'],
      ['not-a-uuid', s.T.fullKey, 'a malformed id'],
    ] as const) {
      const res = await documentOf(s, kind, id, key);
      assert.equal(res.statusCode, 404, `${kind}, ${what}: ${res.body}`);
      assert.equal(json(res).code, 'not_found');
    }
    assert.equal((await documentOf(s, kind, s.credit.id, null)).statusCode, 401, `${kind}: no key`);

    const viewer = await userSession(s.h, s.T.businessId, 'viewer');
    const url = `/api/credits/${s.credit.id}/documents/${kind}`;
    const seen = await s.h.app.inject({ method: 'GET', url, headers: viewer.read });
    assert.equal(seen.statusCode, 200, `${kind}: a viewer: ${seen.body}`);
    const operator = await operatorSession(s.h);
    const refused = await s.h.app.inject({ method: 'GET', url, headers: operator.read });
    assert.equal(refused.statusCode, 403, `${kind}: an operator: ${refused.body}`);
    assert.equal(json(refused).code, 'forbidden');
  }
  // a user of another business reads nothing of this one
  const B = await s.h.newTenant();
  const u = await newUser(s.h, B.businessId, 'admin');
  const other = sessionOf(u.id, u.email, await signIn(s.h, u.email));
  const res = await s.h.app.inject({
    method: 'GET',
    url: `/api/credits/${s.credit.id}/documents/contract`,
    headers: other.read,
  });
  assert.equal(res.statusCode, 404, res.body);
});

test('the schedule shows every money part an installment record carries, each when it is not zero', async (t) => {
  if (!POPPLER) return t.skip(NO_POPPLER);
  const s = await story(t);
  const ctx = actorContext({ businessId: s.T.businessId, timezone: 'UTC' }, 'test', s.h.clock);
  const doc = await creditDocuments(s.h.db.kysely, ctx, s.credit.id);
  assert.deepEqual(doc.parts, ['principal', 'interest', 'vat']);
  // the same installments with the parts fees and insurance add to the record: the ones not zero
  // on some installment become columns, in the record's order
  const rows = (await installmentsOfCredit(s.h.db.kysely, s.T.businessId, s.credit.id)).map((r, k) => ({
    ...r,
    insurance: k === 0 ? '120.50' : '80.25',
    insurance_vat: k === 0 ? '25.31' : '16.85',
    admin_fee: '0.00',
    collection_charge: k === 2 ? '500.00' : '0',
  }));
  const schedule = scheduleParts(rows);
  assert.deepEqual(schedule.parts, ['principal', 'interest', 'vat', 'insurance', 'insurance_vat', 'collection_charge']);
  const text = pdfText(await renderContractPdf({ ...doc, ...schedule }, { now: new Date('2026-01-15T12:00:00Z') }));
  has(
    text,
    [
      'Cuota Vencimiento Capital Interés IVA Seguro IVA seguro Collection charge Importe de la cuota',
      '1 10/03/2026 $ 33.333,33 $ 6.666,67 $ 1.400,00 $ 120,50 $ 25,31 $ 0,00 $ 41.400,00',
      '3 10/05/2026 $ 33.333,34 $ 6.666,66 $ 1.400,00 $ 80,25 $ 16,85 $ 500,00 $ 41.400,00',
      'Total $ 100.000,00 $ 20.000,00 $ 4.200,00 $ 281,00 $ 59,01 $ 500,00 $ 124.200,00',
    ],
    'contract',
  );
});
