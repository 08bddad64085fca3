// A credit with life insurance, an admin fee with VAT, a collection charge and a waiver of
// punitory: the receipt's JSON splits what a payment paid of the charges (it used to count them as
// principal), and the statement and both receipts as PDF show the insurance, the fees, the
// charges and what was waived, in Spanish and written the Argentine way. Figures worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, json, settableClock } from '../../../helpers/app.ts';
import { P35, P35_FEES, client, credit, detail, pay, plan } from '../../../helpers/book-in-cents.ts';

const POPPLER = spawnSync('pdftotext', ['-v']).error === undefined;

function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'lending-pdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const r = spawnSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `pdftotext failed: ${r.stderr}`);
    return r.stdout.replace(/\s+/g, ' ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const shows = (text: string, what: string, expected: string[]) => {
  for (const e of expected) assert.ok(text.includes(e), `the ${what} shows "${e}":\n${text}`);
};

test('insurance, admin fees, a charge and a waiver on the receipt (JSON and PDF) and on the statement PDF', async (t) => {
  const clock = settableClock('2026-03-01');
  const h = await build(t, { clock });
  // P35 with 21 % VAT, life insurance 1 % a month without VAT, an admin fee of 20 with VAT
  // (test/services/lending/fees.test.ts works out the schedule): amounts 508.70, 505.37, 502.03;
  // insurance 10, 6.67, 3.33; fees 20 each; vat 24.50 of the interest + 4.20 of the fee = 28.70
  // each; total 1516.10, due 03-31, 04-30, 05-31
  const p = await plan(h, {
    ...P35_FEES,
    fees: [...P35_FEES.fees, { type: 'collection', amount: 100, vat: true, after_days: 5 }],
  });
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  const i1 = d.installments[0];
  // 30 on 03-10: the fee with its VAT (24.20), then 5.80 of the insurance
  clock.set('2026-03-10');
  const first = await pay(h, d.credit.id, { amount: 30, paid_on: '2026-03-10' });
  const firstId = first.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;

  // the plan's collection charge, 100 + 21 VAT, falls on installment 1 five days after its due
  // date (04-05), as it still owed most of its amount then: posted by the next event (the waiver)
  clock.set('2026-04-10');
  // on 04-10 installment 1 is 10 days late on 508.70 − 30 = 478.70: 0.5 % a day is 2.39 (rounded),
  // 23.94 in 10 days, its VAT 5.03: punitory 28.97; 5 of it waived
  const w = await h.post(`/api/credits/${d.credit.id}/waivers`, {
    installment_id: i1.id,
    kind: 'punitory',
    amount: 5,
    reason: 'buen pagador',
  });
  assert.equal(w.statusCode, 201, w.body);
  // 200 on 04-10: the charge 121, the punitory left 23.97, the insurance left 4.20, the interest's
  // VAT 24.50, interest 200 − 121 − 23.97 − 4.20 − 24.50 = 26.33; no principal. The installment
  // owes 508.70 + 28.97 + 121 − 5 − 230 = 423.67
  const second = await pay(h, d.credit.id, { amount: 200, paid_on: '2026-04-10' });
  const secondId = second.ledgerEntries.find((e: any) => e.origin === 'payment').payment_id;
  const receipt = json(await h.get(`/api/credits/${d.credit.id}/payments/${secondId}/receipt`));
  assert.deepEqual(
    receipt.applied.map((a: any) => [
      a.number,
      a.amount,
      a.charges,
      a.punitory,
      a.fees,
      a.insurance,
      a.vat,
      a.interest,
      a.principal,
      a.outstanding_after,
    ]),
    [[1, 200, 121, 23.97, 0, 4.2, 24.5, 26.33, 0, 423.67]],
  );
  // the credit owes 1516.10 + 28.97 + 121 − 5 − 230 = 1431.07
  const read = await detail(h, d.credit.id);
  assert.deepEqual(
    [read.balance.charges, read.balance.waived, read.balance.paid, read.balance.outstanding],
    [121, 5, 230, 1431.07],
  );
  assert.deepEqual(receipt.balance_after, read.balance);
  if (!POPPLER) return t.skip('pdftotext not installed (apt-get install poppler-utils)');
  const pdf = { accept: 'application/pdf' };
  const get = async (url: string) => {
    const res = await h.req({ method: 'GET', url, headers: pdf });
    assert.equal(res.statusCode, 200, res.body);
    return pdfText(res.rawPayload);
  };

  const statement = await get(`/api/credits/${d.credit.id}/statement`);
  shows(statement, 'statement', [
    'Importe Capital Interés IVA Seguro Gastos adm. Punitorios Cargos Condonado Pagado Saldo Estado',
    '1 31/03/2026 $ 508,70 $ 333,33 $ 116,67 $ 28,70 $ 10,00 $ 20,00 $ 28,97 $ 121,00 -$ 5,00 $ 230,00 $ 423,67 Vencida, 10 días',
    '2 30/04/2026 $ 505,37 $ 333,33 $ 116,67 $ 28,70 $ 6,67 $ 20,00 $ 0,00 $ 0,00 $ 0,00 $ 0,00 $ 505,37 A vencer',
    '3 31/05/2026 $ 502,03 $ 333,34 $ 116,66 $ 28,70 $ 3,33 $ 20,00',
    'Total $ 1.516,10 $ 1.000,00 $ 350,00 $ 86,10 $ 20,00 $ 60,00 $ 28,97 $ 121,00 -$ 5,00 $ 230,00 $ 1.431,07',
    'Cargos por gestión de cobranza $ 121,00',
    'Condonado - $ 5,00',
    'Total pagado - $ 230,00',
    'Saldo adeudado $ 1.431,07',
    'el seguro de vida y los gastos administrativos',
  ]);

  const a4 = await get(`/api/credits/${d.credit.id}/payments/${secondId}/receipt`);
  shows(a4, 'receipt', [
    'Cuota Vencimiento Cargos Punitorios Seguro IVA Interés Capital Total aplicado Saldo de la cuota',
    '1 31/03/2026 $ 121,00 $ 23,97 $ 4,20 $ 24,50 $ 26,33 $ 0,00 $ 200,00 $ 423,67',
    'Cargos por gestión de cobranza $ 121,00',
    'Condonado $ 5,00',
    'Saldo adeudado $ 1.431,07',
  ]);
  // no admin fee paid by this payment: no column for it
  assert.ok(!a4.includes('Gastos adm.'), a4);
  const roll = await get(`/api/credits/${d.credit.id}/payments/${secondId}/receipt?paper=80mm`);
  shows(roll, '80 mm receipt', [
    'Cuota 1 · vto. 31/03/2026 $ 200,00',
    'Cargos $ 121,00',
    'Punitorios $ 23,97',
    'Seguro $ 4,20',
    'IVA $ 24,50',
    'Interés $ 26,33',
    'Cargos por gestión de cobranza $ 121,00',
    'Condonado $ 5,00',
  ]);

  // the first payment: the admin fee and part of the insurance, each a column of its own
  const firstA4 = await get(`/api/credits/${d.credit.id}/payments/${firstId}/receipt`);
  shows(firstA4, 'first receipt', [
    'Cuota Vencimiento Punitorios Gastos adm. Seguro IVA Interés Capital Total aplicado',
    '1 31/03/2026 $ 0,00 $ 24,20 $ 5,80 $ 0,00 $ 0,00 $ 0,00 $ 30,00',
  ]);
  assert.ok(!firstA4.includes('Cargos'), `no charges paid, none shown:\n${firstA4}`);
  const firstRoll = await get(`/api/credits/${d.credit.id}/payments/${firstId}/receipt?paper=80mm`);
  shows(firstRoll, 'first 80 mm receipt', ['Gastos adm. $ 24,20', 'Seguro $ 5,80']);
});

test('a credit without fees, charges or waivers: its statement has no columns for them', async (t) => {
  if (!POPPLER) return t.skip('pdftotext not installed (apt-get install poppler-utils)');
  const h = await build(t, { clock: settableClock('2026-03-01') });
  const p = await plan(h, P35);
  const c = await client(h);
  const d = await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2026-03-01' });
  const res = await h.req({
    method: 'GET',
    url: `/api/credits/${d.credit.id}/statement`,
    headers: { accept: 'application/pdf' },
  });
  const text = pdfText(res.rawPayload);
  shows(text, 'statement', ['Cuota Vencimiento Importe Capital Interés IVA Punitorios Pagado Saldo Estado']);
  for (const absent of ['Seguro', 'Gastos', 'Cargos', 'Condonado'])
    assert.ok(!text.includes(absent), `no "${absent}" on a credit without it:\n${text}`);
});
