// How a payment was made on the printed documents: the statement's payments table shows each
// payment's method, and its channel and reference when it has them; the A4 receipt and the 80 mm
// receipt show the three. Read back with pdftotext.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, createTenant, json, settableClock } from '../../../helpers/app.ts';

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

test('the statement and both receipts show the method, and the channel and reference when present', async (t) => {
  const h = await build(t, { clock: settableClock('2026-03-20') });
  const T = await createTenant(h.db, { name: 'Créditos Norte' });
  const as = (method: 'GET' | 'POST', url: string, body?: unknown, headers = {}) =>
    h.req({ method, url, key: T.fullKey, headers, ...(body === undefined ? {} : { payload: body as object }) });
  const created = async (url: string, body: unknown) => {
    const res = await as('POST', url, body);
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  };
  const plan = await created('/api/credit-configs', { name: 'Tres', installments_count: 3, interest_rate: 0.2 });
  const client = await created('/api/clients', { dni: '30999888', first_name: 'Marta', last_name: 'Ruiz' });
  const { credit } = await created(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 30000,
    start_date: '2026-01-15',
  });
  // one through a collection network with its reference, one in cash with neither
  await created(`/api/credits/${credit.id}/payments`, {
    amount: 12000,
    paid_on: '2026-02-14',
    method: 'collection_network',
    channel: 'Red Cobro Fácil',
    external_reference: 'RCF-000123',
  });
  await created(`/api/credits/${credit.id}/payments`, { amount: 1000, paid_on: '2026-03-01' });
  const payments = json(await as('GET', `/api/credits/${credit.id}/payments`));
  assert.deepEqual(
    payments.map((p: any) => [p.amount, p.method, p.channel, p.external_reference]),
    [
      [12000, 'collection_network', 'Red Cobro Fácil', 'RCF-000123'],
      [1000, 'cash', null, null],
    ],
  );
  if (!POPPLER) return t.skip('pdftotext not installed (apt-get install poppler-utils)');
  const pdf = { accept: 'application/pdf' };

  const statement = pdfText((await as('GET', `/api/credits/${credit.id}/statement`, undefined, pdf)).rawPayload);
  for (const expected of [
    'Fecha Importe Medio Sucursal Observaciones',
    '14/02/2026 $ 12.000,00 Red de cobranza — Canal: Red Cobro Fácil · Referencia: RCF-000123',
    '01/03/2026 $ 1.000,00 Efectivo —',
  ])
    assert.ok(statement.includes(expected), `the statement shows "${expected}":\n${statement}`);

  const [network, cash] = payments;
  const receipt = async (id: string, query = '') =>
    pdfText((await as('GET', `/api/credits/${credit.id}/payments/${id}/receipt${query}`, undefined, pdf)).rawPayload);
  const a4 = await receipt(network.id);
  assert.ok(
    a4.includes('Medio de pago: Red de cobranza · Canal: Red Cobro Fácil · Referencia: RCF-000123'),
    `the receipt shows the method, channel and reference:\n${a4}`,
  );
  const roll = await receipt(network.id, '?paper=80mm');
  for (const expected of ['Medio de pago Red de cobranza', 'Canal Red Cobro Fácil', 'Referencia: RCF-000123'])
    assert.ok(roll.includes(expected), `the 80 mm receipt shows "${expected}":\n${roll}`);

  const plain = await receipt(cash.id);
  assert.ok(plain.includes('Medio de pago: Efectivo'), plain);
  assert.ok(!plain.includes('Canal') && !plain.includes('Referencia'), `no channel or reference to show:\n${plain}`);
  const plainRoll = await receipt(cash.id, '?paper=80mm');
  assert.ok(plainRoll.includes('Medio de pago Efectivo'), plainRoll);
  assert.ok(!plainRoll.includes('Canal') && !plainRoll.includes('Referencia'), plainRoll);
});
