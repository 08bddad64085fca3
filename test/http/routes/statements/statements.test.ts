// The statement and the receipt (GET /api/credits/{id}/statement, GET
// /api/credits/{id}/payments/{paymentId}/receipt) through the real app: the JSON documents carry
// the figures of the credit read, the receipt the payment's slices and the balance right after it,
// tenancy holds, a read key reads them, Accept chooses JSON or PDF (406 when it allows neither),
// and the PDFs, rendered by poppler (pdftotext, pdftoppm), show what a client needs in Spanish
// with Argentine amounts and are not blank.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { build, createTenant, json, settableClock } from '../../../helpers/app.ts';
import { money, toMoneyString } from '../../../../src/domain/index.ts';
import { negotiate } from '../../../../src/http/negotiation.ts';
import { cuit, dni, pesos, winAnsi } from '../../../../src/http/pdf/format.ts';
import { renderReceiptPdf, renderStatementPdf } from '../../../../src/http/pdf/documents.ts';
import * as ex from '../../../../src/http/examples.ts';

// ---------------------------------------------------------------- poppler

const POPPLER = spawnSync('pdftoppm', ['-v']).error === undefined;
const NO_POPPLER =
  'pdftoppm/pdftotext not installed (apt-get install poppler-utils): PDF text and image checks skipped';

function withPdf<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'lending-pdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return fn(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The PDF's text as poppler extracts it, in reading order, every run of white space one space. */
function pdfText(pdf: Buffer): string {
  return withPdf(pdf, (file) => {
    const r = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdftotext failed: ${r.stderr}`);
    return r.stdout.replace(/\s+/g, ' ');
  });
}

/** Page 1 rendered in grey at 40 dpi: its size and the share of its pixels that are dark (ink). */
function inkOfFirstPage(pdf: Buffer): { width: number; height: number; ink: number } {
  return withPdf(pdf, (file, dir) => {
    const out = join(dir, 'page');
    const r = spawnSync('pdftoppm', ['-gray', '-r', '40', '-f', '1', '-l', '1', '-singlefile', file, out], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `pdftoppm failed: ${r.stderr}`);
    // PGM (P5): "P5 <width> <height> <maxval>" and one byte a pixel
    const img = readFileSync(`${out}.pgm`);
    const head = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(img.subarray(0, 64).toString('latin1'));
    assert.ok(head, 'pdftoppm wrote a PGM image');
    const [width, height] = [Number(head[1]), Number(head[2])];
    const pixels = img.subarray(head[0].length);
    assert.equal(pixels.length, width * height);
    let dark = 0;
    for (const p of pixels) if (p < 160) dark++;
    return { width, height, ink: dark / pixels.length };
  });
}

function checkImage(pdf: Buffer, what: string) {
  const { width, height, ink } = inkOfFirstPage(pdf);
  // A4 at 40 dpi
  assert.ok(Math.abs(width - 331) <= 1 && Math.abs(height - 468) <= 1, `${what}: page ${width}×${height}`);
  assert.ok(ink > 0.01, `${what}: the page is blank (${(ink * 100).toFixed(2)} % ink)`);
  assert.ok(ink < 0.4, `${what}: the page is mostly black (${(ink * 100).toFixed(2)} % ink)`);
}

// ---------------------------------------------------------------- the story of the examples

// src/http/examples.ts: 100,000 at 20 % flat in 3 monthly installments (day 10), 0.2 % a day of
// punitory after 3 days of grace, from 2026-01-15; 45,000 paid on 2026-03-20 (800 of punitory).
const PLAN = ex.planInput;
const BUSINESS_NAME = 'Préstamos del Sur Ñandú S.A.';

async function story(t: TestContext) {
  const clock = settableClock('2026-03-20');
  const h = await build(t, { clock });
  const T = await createTenant(h.db, { name: BUSINESS_NAME });
  const as = (method: 'GET' | 'POST', url: string, body?: unknown, key = T.fullKey, headers = {}) =>
    h.req({ method, url, key, headers, ...(body === undefined ? {} : { payload: body as object }) });
  const created = async (url: string, body: unknown) => {
    const res = await as('POST', url, body);
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  };
  const branch = await created('/api/branches', { name: 'Sucursal Córdoba' });
  const plan = await created('/api/credit-configs', { ...PLAN, name: 'Mensual 3' });
  const client = await created('/api/clients', { dni: '30123456', first_name: 'José María', last_name: 'Peña' });
  const detail = await created(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 100000,
    branch_id: branch.id,
    start_date: '2026-01-15',
  });
  return { h, T, clock, as, created, branch, plan, client, credit: detail.credit };
}

type Story = Awaited<ReturnType<typeof story>>;

const statementOf = async (s: Story, key?: string, headers?: Record<string, string>) =>
  s.as('GET', `/api/credits/${s.credit.id}/statement`, undefined, key, headers);
const receiptOf = async (s: Story, paymentId: string, creditId = s.credit.id, key?: string, headers = {}) =>
  s.as('GET', `/api/credits/${creditId}/payments/${paymentId}/receipt`, undefined, key, headers);

/** The statement's installment fields that the credit read has too, and its balance, must be the read's. */
function assertSameFigures(statement: any, read: any) {
  assert.deepEqual(statement.balance, read.balance);
  assert.equal(statement.installments.length, read.installments.length);
  statement.installments.forEach((i: any, k: number) => {
    const r = read.installments[k];
    for (const f of [
      'id',
      'number',
      'due_date',
      'amount',
      'status',
      'overdue',
      'days_late',
      'punitory_posted',
      'punitory_accrued',
      'paid',
      'outstanding',
    ])
      assert.deepEqual(i[f], r[f], `installment ${i.number}: ${f}`);
    // the parts, where recorded, add up to the amount
    if (i.principal !== null)
      assert.equal(toMoneyString(money(i.principal).plus(i.interest).plus(i.vat)), toMoneyString(money(i.amount)));
  });
  assert.deepEqual(
    { id: statement.credit.id, amount: statement.credit.amount, total: statement.credit.total },
    { id: read.credit.id, amount: read.credit.amount, total: read.credit.total },
  );
}

test('the statement shows the figures of the credit read, before and after payments, with its client, business and payments', async (t) => {
  const s = await story(t);
  const readCredit = async () => json(await s.as('GET', `/api/credits/${s.credit.id}`));

  // on 2026-03-20 installment 1 is 10 days late: punitory accrued, nothing posted or paid yet
  const res = await statementOf(s);
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.headers.vary, 'Accept');
  let st = json(res);
  assertSameFigures(st, await readCredit());
  assert.equal(st.as_of, '2026-03-20');
  assert.deepEqual(st.business, { id: s.T.businessId, name: BUSINESS_NAME });
  assert.deepEqual(st.client, {
    id: s.client.id,
    first_name: 'José María',
    last_name: 'Peña',
    dni: '30123456',
    cuit: s.client.cuit ?? null,
  });
  assert.deepEqual(st.credit, {
    id: s.credit.id,
    sequential_id: s.credit.sequential_id,
    status: 'active',
    amount: 100000,
    total: 120000,
    start_date: '2026-01-15',
    branch_id: s.branch.id,
    branch_name: 'Sucursal Córdoba',
  });
  assert.deepEqual(st.payments, []);
  assert.equal(st.balance.punitory_accrued, 800); // 10 days × 0.2 % × 40,000
  assert.equal(st.balance.outstanding, 120800);

  // the payment of the story: 800 of punitory posted, installment 1 paid, 4,200 to installment 2
  // taken by transfer: the statement and the receipt name the method, channel and reference
  const paid = json(
    await s.as('POST', `/api/credits/${s.credit.id}/payments`, {
      amount: 45000,
      method: 'transfer',
      channel: 'Banco Nación',
      external_reference: 'TRF-000123',
    }),
  );
  st = json(await statementOf(s));
  assertSameFigures(st, await readCredit());
  assert.deepEqual(st.balance, ex.statement.balance);
  assert.deepEqual(
    st.installments.map((i: any) => [i.number, i.amount, i.status, i.paid, i.outstanding]),
    ex.statement.installments.map((i) => [i.number, i.amount, i.status, i.paid, i.outstanding]),
  );
  assert.equal(st.payments.length, 1);
  const [p1] = st.payments;
  const paymentId = paid.ledgerEntries.find((e: any) => e.type === 'payment').payment_id ?? p1.id;
  assert.deepEqual(
    { ...p1, id: undefined, created_at: undefined, created_by: undefined },
    {
      ...ex.statement.payments[0],
      id: undefined,
      created_at: undefined,
      created_by: undefined,
      branch_id: s.branch.id,
      branch_name: 'Sucursal Córdoba',
    },
  );
  assert.equal(p1.id, paymentId);

  // a month later, a second payment at no branch: punitory on installment 2 first (12 days late)
  s.clock.set('2026-04-22');
  await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 10000, branch_id: null });
  st = json(await statementOf(s));
  assertSameFigures(st, await readCredit());
  assert.deepEqual(
    st.payments.map((p: any) => [p.paid_on, p.amount, p.branch_name, p.origin, p.reversed_at]),
    [
      ['2026-03-20', 45000, 'Sucursal Córdoba', 'payment', null],
      ['2026-04-22', 10000, null, 'payment', null],
    ],
  );
  // what was paid is the payments' sum
  assert.equal(st.balance.paid, 55000);
  assert.equal(st.as_of, '2026-04-22');
});

test("the receipt shows the payment's slices and the balance right after it, also once later payments are made", async (t) => {
  const s = await story(t);
  const first = json(await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 45000 }));
  const [p1] = json(await statementOf(s)).payments;

  let res = await receiptOf(s, p1.id);
  assert.equal(res.statusCode, 200, res.body);
  const r1 = json(res);
  assert.deepEqual(r1.balance_after, first.balance, 'the balance after it is the payment answer’s');
  assert.deepEqual(r1.payment, p1);
  assert.deepEqual(
    r1.applied.map((a: any) => [a.number, a.due_date, a.amount, a.punitory, a.outstanding_after]),
    ex.receipt.applied.map((a) => [a.number, a.due_date, a.amount, a.punitory, a.outstanding_after]),
  );
  // each slice's parts add up to what it paid
  for (const a of r1.applied)
    if (a.principal !== null)
      assert.equal(
        toMoneyString(money(a.punitory).plus(a.principal).plus(a.interest).plus(a.vat)),
        toMoneyString(money(a.amount)),
      );

  s.clock.set('2026-04-22');
  const second = json(await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 10000 }));
  const [, p2] = json(await statementOf(s)).payments;
  const r2 = json(await receiptOf(s, p2.id));
  assert.deepEqual(r2.balance_after, second.balance);
  // 12 days × 0.2 % × 35,800 = 859.20 of punitory first, then installment 2
  assert.deepEqual(
    r2.applied.map((a: any) => [a.number, a.amount, a.punitory]),
    [[2, 10000, 859.2]],
  );
  assert.equal(r2.as_of, '2026-04-22');

  // the first receipt, read again, still shows the balance right after the first payment
  res = await receiptOf(s, p1.id);
  assert.deepEqual(json(res).balance_after, first.balance);
});

test('a refinanced credit: the settlement is listed as origin refinance (no cash), and its receipt says so', async (t) => {
  const s = await story(t);
  await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 45000 });
  const res = await s.as('POST', `/api/credits/${s.credit.id}/refinance`, { credit_config_id: s.plan.id });
  assert.equal(res.statusCode, 201, res.body);
  const st = json(await statementOf(s));
  assert.equal(st.credit.status, 'refinanced');
  assert.deepEqual(
    st.payments.map((p: any) => [p.amount, p.origin]),
    [
      [45000, 'payment'],
      [75800, 'refinance'],
    ],
  );
  assert.equal(st.balance.outstanding, 0);
  if (!POPPLER) return t.skip(NO_POPPLER);
  const pdf = await receiptOf(s, st.payments[1].id, s.credit.id, undefined, { accept: 'application/pdf' });
  const text = pdfText(pdf.rawPayload);
  assert.ok(text.includes('por su refinanciación') && text.includes('sin movimiento de dinero'), text);
  assert.ok(!text.includes('Recibimos de'), text);
  assert.ok(
    pdfText((await statementOf(s, undefined, { accept: 'application/pdf' })).rawPayload).includes(
      'Cancelación por refinanciación',
    ),
    "the PDF statement names the refinance settlement ('Cancelación por refinanciación')",
  );
});

test('tenancy: another business, another credit, unknown ids are 404; a read key reads both documents', async (t) => {
  const s = await story(t);
  await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 45000 });
  const [p1] = json(await statementOf(s)).payments;
  const other = await s.created(`/api/clients/${s.client.id}/credits`, { credit_config_id: s.plan.id, amount: 5000 });
  const B = await s.h.newTenant();

  const notFound = (res: Awaited<ReturnType<typeof statementOf>>, what: string) => {
    assert.equal(res.statusCode, 404, `${what}: ${res.body}`);
    assert.equal(json(res).code, 'not_found', what);
  };
  notFound(await statementOf(s, B.fullKey), "another business's credit");
  notFound(await statementOf(s, B.readKey, { accept: 'application/pdf' }), "another business's credit as PDF");
  notFound(await receiptOf(s, p1.id, s.credit.id, B.fullKey), "another business's payment");
  notFound(await receiptOf(s, p1.id, other.credit.id), 'a payment of another credit');
  notFound(await receiptOf(s, crypto.randomUUID()), 'an unknown payment');
  notFound(await s.as('GET', `/api/credits/${crypto.randomUUID()}/statement`), 'an unknown credit');
  notFound(await receiptOf(s, 'not-a-uuid'), 'a malformed payment id');

  for (const accept of ['application/json', 'application/pdf']) {
    const st = await statementOf(s, s.T.readKey, { accept });
    assert.equal(st.statusCode, 200, st.body);
    const rc = await receiptOf(s, p1.id, s.credit.id, s.T.readKey, { accept });
    assert.equal(rc.statusCode, 200, rc.body);
  }
});

test('Accept chooses the representation: JSON by default, PDF when preferred, 406 when neither is allowed', async (t) => {
  const s = await story(t);
  await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 45000 });
  const [p1] = json(await statementOf(s)).payments;

  for (const accept of [
    undefined,
    '*/*',
    'application/json',
    'application/*',
    'text/html, */*;q=0.8',
    'application/pdf;q=0.5, application/json',
  ])
    assert.match(
      String((await statementOf(s, undefined, accept ? { accept } : {})).headers['content-type']),
      /^application\/json/,
      `Accept: ${accept}`,
    );
  for (const accept of ['application/pdf', 'application/pdf, application/json;q=0.9', 'application/pdf, */*']) {
    const st = await statementOf(s, undefined, { accept });
    assert.equal(st.statusCode, 200, st.body);
    assert.equal(st.headers['content-type'], 'application/pdf', `Accept: ${accept}`);
    assert.equal(st.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.equal(Number(st.headers['content-length']), st.rawPayload.length);
  }
  const pdf = await statementOf(s, undefined, { accept: 'application/pdf' });
  assert.equal(
    pdf.headers['content-disposition'],
    `inline; filename="estado-de-cuenta-credito-${s.credit.sequential_id}-2026-03-20.pdf"`,
  );
  assert.equal(pdf.headers.vary, 'Accept');
  assert.equal(pdf.headers['cache-control'], 'private, no-store');
  const receipt = await receiptOf(s, p1.id, s.credit.id, undefined, { accept: 'application/pdf' });
  assert.equal(receipt.headers['content-type'], 'application/pdf');
  assert.equal(
    receipt.headers['content-disposition'],
    `inline; filename="recibo-credito-${s.credit.sequential_id}-2026-03-20-${p1.id.slice(0, 8)}.pdf"`,
  );

  for (const accept of ['text/csv', 'application/json;q=0, application/pdf;q=0', 'image/*']) {
    for (const res of [
      await statementOf(s, undefined, { accept }),
      await receiptOf(s, p1.id, s.credit.id, undefined, { accept }),
    ]) {
      assert.equal(res.statusCode, 406, `Accept: ${accept}: ${res.body}`);
      assert.equal(json(res).code, 'not_acceptable');
    }
  }
});

test('the PDFs, rendered by poppler, show the business, the client, the schedule and the payment, in Spanish, and are not blank', async (t) => {
  if (!POPPLER) return t.skip(NO_POPPLER);
  const s = await story(t);
  await s.as('POST', `/api/credits/${s.credit.id}/payments`, { amount: 45000 });
  const [p1] = json(await statementOf(s)).payments;
  const n = s.credit.sequential_id;

  const statement = (await statementOf(s, undefined, { accept: 'application/pdf' })).rawPayload;
  const text = pdfText(statement);
  for (const expected of [
    BUSINESS_NAME,
    'ESTADO DE CUENTA',
    'Al 20/03/2026',
    'José María Peña',
    'DNI 30.123.456',
    'CUIT/CUIL —',
    `Crédito Nº ${n}`,
    'Monto otorgado $ 100.000,00',
    'Total a devolver $ 120.000,00',
    'Fecha de inicio 15/01/2026',
    'Sucursal Córdoba',
    'Cronograma de cuotas',
    // installment 1: due 10/03, 40,000, punitory 800, paid 40,800, nothing owed
    '1 10/03/2026 $ 40.000,00',
    '$ 800,00 $ 40.800,00 $ 0,00 Pagada',
    '2 10/04/2026 $ 40.000,00',
    '$ 4.200,00 $ 35.800,00 Pago parcial',
    '3 10/05/2026 $ 40.000,00',
    'Pagos registrados',
    '20/03/2026 $ 45.000,00 Efectivo Sucursal Córdoba',
    'Saldo adeudado $ 75.800,00',
    'Página 1 de 1',
  ])
    assert.ok(text.includes(expected), `the statement shows "${expected}":\n${text}`);
  checkImage(statement, 'statement');

  const receipt = (await receiptOf(s, p1.id, s.credit.id, undefined, { accept: 'application/pdf' })).rawPayload;
  const rtext = pdfText(receipt);
  for (const expected of [
    BUSINESS_NAME,
    'RECIBO DE PAGO',
    'Recibimos de José María Peña, DNI 30.123.456 la suma de $ 45.000,00',
    `en pago del crédito Nº ${n}, el 20/03/2026 en la sucursal Sucursal Córdoba.`,
    'Aplicación del pago',
    '1 10/03/2026 $ 800,00',
    '$ 40.800,00 $ 0,00',
    '2 10/04/2026 $ 0,00',
    '$ 4.200,00 $ 35.800,00',
    'Saldo adeudado $ 75.800,00',
    p1.id,
  ])
    assert.ok(rtext.includes(expected), `the receipt shows "${expected}":\n${rtext}`);
  assert.ok(!rtext.includes('ANULADO'), 'a payment not reversed is not marked');
  checkImage(receipt, 'receipt');
  assert.deepEqual(pageSizes(receipt), [[595.28, 841.89]], 'the receipt is one A4 page by default');

  // on 80 mm roll paper: one page 80 mm wide (226.77 pt), as tall as the receipt, the same facts
  const roll = await s.as(
    'GET',
    `/api/credits/${s.credit.id}/payments/${p1.id}/receipt?paper=80mm`,
    undefined,
    undefined,
    { accept: 'application/pdf' },
  );
  assert.equal(roll.statusCode, 200, roll.body);
  assert.equal(
    roll.headers['content-disposition'],
    `inline; filename="recibo-80mm-credito-${n}-2026-03-20-${p1.id.slice(0, 8)}.pdf"`,
  );
  // RECEIPT_80MM_PDF=file keeps it (docs/console/receipt-80mm.png is its picture)
  if (process.env.RECEIPT_80MM_PDF) writeFileSync(process.env.RECEIPT_80MM_PDF, roll.rawPayload);
  const sizes = pageSizes(roll.rawPayload);
  assert.equal(sizes.length, 1, 'one page: a roll has no page breaks');
  const [width, height] = sizes[0]!;
  assert.equal(Math.round(width * 100) / 100, 226.77, '80 mm = 226.77 pt');
  assert.ok(height > 300 && height < 700, `as tall as its content, not an A4 page: ${height} pt`);
  const roll_text = pdfText(roll.rawPayload);
  for (const expected of [
    BUSINESS_NAME,
    'RECIBO DE PAGO',
    'Cliente: José María Peña',
    'DNI 30.123.456',
    `Crédito Nº ${n}`,
    'Fecha de pago 20/03/2026',
    'Sucursal Sucursal Córdoba',
    'IMPORTE $ 45.000,00',
    'Cuota 1 · vto. 10/03/2026 $ 40.800,00',
    'Punitorios $ 800,00',
    'Cuota 2 · vto. 10/04/2026 $ 4.200,00',
    'Saldo de la cuota $ 35.800,00',
    'Saldo adeudado $ 75.800,00',
    p1.id,
  ])
    assert.ok(roll_text.includes(expected), `the 80 mm receipt shows "${expected}":\n${roll_text}`);
  // every word within the 72 mm printed: pdftotext's boxes end before 4 mm from the right edge
  for (const box of wordBoxes(roll.rawPayload))
    assert.ok(
      box.xMax <= 226.77 - 11.33 && box.xMin >= 11.33,
      `"${box.word}" inside the 72 mm: ${box.xMin}–${box.xMax}`,
    );
  // a JSON answer ignores the paper; any other paper is refused
  assert.equal((await s.as('GET', `/api/credits/${s.credit.id}/payments/${p1.id}/receipt?paper=80mm`)).statusCode, 200);
  const bad = await s.as(
    'GET',
    `/api/credits/${s.credit.id}/payments/${p1.id}/receipt?paper=letter`,
    undefined,
    undefined,
    {
      accept: 'application/pdf',
    },
  );
  assert.equal(bad.statusCode, 400, bad.body);
  assert.equal(json(bad).code, 'validation_failed');
});

/** Each page's width and height in points, as pdfinfo reports them. */
function pageSizes(pdf: Buffer): [number, number][] {
  return withPdf(pdf, (file) => {
    const r = spawnSync('pdfinfo', ['-l', '99', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdfinfo failed: ${r.stderr}`);
    return [...r.stdout.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
  });
}

/** The words of the PDF with their boxes (pdftotext -bbox), in points. */
function wordBoxes(pdf: Buffer): { word: string; xMin: number; xMax: number }[] {
  return withPdf(pdf, (file) => {
    const r = spawnSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdftotext failed: ${r.stderr}`);
    return [
      ...r.stdout.matchAll(/<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g),
    ].map((m) => ({
      word: m[3]!,
      xMin: Number(m[1]),
      xMax: Number(m[2]),
    }));
  });
}

test('the renderer: CUIT formatted, a reversed payment marked ANULADO with its reason, long schedules over pages', async (t) => {
  if (!POPPLER) return t.skip(NO_POPPLER);
  const at = { timezone: 'America/Argentina/Buenos_Aires', now: new Date('2026-04-01T15:00:00Z') };
  const client = { ...ex.receipt.client, cuit: '27301234564' };
  const reversed = {
    ...ex.receipt,
    client,
    payment: { ...ex.receipt.payment, reversed_at: '2026-03-21T02:30:00Z', reversal_reason: 'transferencia rechazada' },
  };
  const rtext = pdfText(await renderReceiptPdf(reversed, at));
  assert.ok(rtext.includes('CUIT/CUIL 27-30123456-4'), rtext);
  // 02:30 UTC on the 21st is still the 20th in Buenos Aires
  assert.ok(rtext.includes('PAGO ANULADO el 20/03/2026. Motivo: transferencia rechazada'), rtext);

  // 60 payments: the table continues on a second page, its header repeated, every page numbered
  const payments = Array.from({ length: 60 }, (_, k) => ({
    ...ex.statement.payments[0]!,
    id: crypto.randomUUID(),
    amount: 100 + k,
  }));
  const pdf = await renderStatementPdf({ ...ex.statement, client, payments }, at);
  const text = pdfText(pdf);
  assert.ok(text.includes('Página 1 de 2') && text.includes('Página 2 de 2'), text);
  assert.equal(text.match(/Fecha Importe Medio Sucursal Observaciones/g)?.length, 2, 'the header on both pages');
  assert.ok(text.includes('$ 159,00'), 'the last payment');
  checkImage(pdf, 'long statement');
});

test('amounts are written the Argentine way, exactly; text the fonts cannot show becomes "?"', () => {
  assert.equal(pesos(1234.56), '$ 1.234,56');
  assert.equal(pesos(0), '$ 0,00');
  assert.equal(pesos(-5), '-$ 5,00');
  assert.equal(pesos(1000000), '$ 1.000.000,00');
  assert.equal(pesos(999_999_999_999.99), '$ 999.999.999.999,99');
  assert.equal(pesos('0.1'), '$ 0,10');
  // through Intl.NumberFormat('es-AR') as decimal text: past a float's precision, rounded half
  // away from zero, no negative zero, a plain space after the sign
  assert.equal(pesos('12345678901234567.89'), '$ 12.345.678.901.234.567,89');
  assert.equal(pesos('2.345'), '$ 2,35');
  assert.equal(pesos('-2.345'), '-$ 2,35');
  assert.equal(pesos('-0.001'), '$ 0,00');
  assert.ok(!pesos(1).includes('\u00a0'), "pesos(1) does not include '\\u00a0'");
  assert.equal(dni('123456'), '123.456');
  fc.assert(
    fc.property(fc.integer({ min: -99_999_999_999_999, max: 99_999_999_999_999 }), (cents) => {
      const amount = money(cents).dividedBy(100);
      const back = pesos(amount.toNumber()).replace('$ ', '').replaceAll('.', '').replace(',', '.');
      assert.equal(back, toMoneyString(amount));
    }),
  );
  assert.equal(dni('30123456'), '30.123.456');
  assert.equal(dni('M1234567'), 'M1234567');
  assert.equal(cuit('20301234567'), '20-30123456-7');
  assert.equal(cuit(null), '—');
  assert.equal(winAnsi('Ñandú ¿Peña? €5 — ok'), 'Ñandú ¿Peña? €5 — ok');
  assert.equal(winAnsi('Zoë 漢字 🙂\u0007'), 'Zoë ?? ? ');
});

test('negotiate: the highest q wins, the most specific range gives a type its q, ties go to JSON', () => {
  const offered = ['application/json', 'application/pdf'] as const;
  const cases: [string | undefined, string | null][] = [
    [undefined, 'application/json'],
    ['', 'application/json'],
    ['garbage', 'application/json'],
    ['*/*', 'application/json'],
    ['application/pdf', 'application/pdf'],
    ['APPLICATION/PDF', 'application/pdf'],
    ['application/pdf, */*;q=0.1', 'application/pdf'],
    ['*/*, application/json;q=0', 'application/pdf'],
    ['application/pdf, */*', 'application/pdf'],
    ['application/*', 'application/json'],
    ['application/json, application/pdf', 'application/json'],
    ['application/pdf;q=0.4, application/json;q=0.5', 'application/json'],
    ['text/html', null],
    ['application/pdf;q=0', null],
  ];
  for (const [accept, expected] of cases) assert.equal(negotiate(accept, offered), expected, `Accept: ${accept}`);
});
