// The console's payments beyond the counter, in Chromium (docs/console.md): a payment with its
// method, channel and reference and the same reference refused as a duplicate beside the form; a
// guarantor added on the credit and shown on both clients' pages; a collection network's file
// imported, followed to its end, its rejected line downloaded, listed among the recent imports; the collections report's totals
// equal to the payments made; the grant simulation's fee and the cash handed over. One browser,
// one employee, one book for the whole file; every page checked with axe-core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { json } from '../helpers/app.ts';
import { axe, consoleApp, noBrowser, shot } from './harness.ts';

test('payments, imports, the collections report, guarantors and fees in the console', {
  skip: noBrowser,
  timeout: 300_000,
}, async (t) => {
  const { h, base, signedIn } = await consoleApp(t);
  const created = async (url: string, body: unknown) => {
    const r = await h.post(url, body);
    assert.equal(r.statusCode, 201, r.body);
    return json(r);
  };
  const plan = await created('/api/credit-configs', {
    name: 'Plan pagos 3 cuotas',
    installments_count: 3,
    cut_type: 'fixed',
    days_until_first_payment: 30,
    interest_rate: 0.3,
    daily_punitory_rate: 0.003,
  });
  // 3 % of the amount plus its VAT at the plan's rate, deducted from the cash handed over
  const feePlan = await created('/api/credit-configs', {
    name: 'Plan con comisión',
    installments_count: 3,
    cut_type: 'fixed',
    days_until_first_payment: 30,
    interest_rate: 0.3,
    daily_punitory_rate: 0.003,
    vat_rate: 0.21,
    fees: [{ type: 'origination', rate: 0.03, vat: true }],
  });
  // life insurance 1 % a month on the principal outstanding and an admin fee of 100, both with 21 % VAT
  await created('/api/credit-configs', {
    name: 'Plan con seguro y gastos',
    installments_count: 2,
    cut_type: 'fixed',
    days_until_first_payment: 30,
    interest_rate: 0.1,
    daily_punitory_rate: 0.003,
    vat_rate: 0.21,
    fees: [
      { type: 'insurance', rate: 0.01, vat: true },
      { type: 'admin', amount: 100, vat: true },
    ],
  });
  const dni = 40_000_000 + Math.floor(Math.random() * 9_000_000);
  const borrower = await created('/api/clients', { dni: String(dni), first_name: 'Bruno', last_name: 'Pagador' });
  const backer = await created('/api/clients', { dni: String(dni + 1), first_name: 'Gala', last_name: 'Garante' });
  const credit = (await created(`/api/clients/${borrower.id}/credits`, { credit_config_id: plan.id, amount: 30000 }))
    .credit;
  const { page } = await signedIn(t, 'employee', { name: 'Elena Caja' });
  const payments = async () => json(await h.get(`/api/credits/${credit.id}/payments`));

  await t.test('a payment with its method, channel and reference; the same reference again is refused', async () => {
    await page.goto(`${base}/app/credits/${credit.id}`);
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'Registrar un pago' }) });
    await form.getByLabel('Monto *').fill('1000');
    await form.getByLabel('Medio').selectOption({ label: 'Transferencia' });
    await form.getByLabel('Canal').fill('Banco Nación');
    await form.getByLabel('Referencia').fill('TR-0001');
    await form.getByRole('button', { name: 'Cobrar' }).click();
    await page.getByRole('cell', { name: 'Banco Nación · TR-0001' }).waitFor();
    const [p] = await payments();
    assert.deepEqual(
      [p.amount, p.method, p.channel, p.external_reference],
      [1000, 'transfer', 'Banco Nación', 'TR-0001'],
    );
    await page.getByRole('cell', { name: 'Transferencia' }).waitFor();

    // the same channel and reference: the API's 409, said beside the form, the field marked
    await form.getByLabel('Monto *').fill('700');
    // with the keyboard only: Enter in the field sends the form
    await form.getByLabel('Referencia').fill('TR-0001');
    await form.getByLabel('Referencia').press('Enter');
    const alert = form.getByRole('alert');
    await alert.getByText('Este pago ya estaba registrado.').waitFor();
    // the payment that holds it is on this page: named by its amount and date
    assert.match(await alert.innerText(), /TR-0001.*el pago de \$\s1\.000,00 del \d\d\/\d\d\/\d{4}/s);
    assert.equal(await form.getByLabel('Referencia').getAttribute('aria-invalid'), 'true');
    assert.equal((await payments()).length, 1, 'nothing paid twice');
    await axe(page, 'credit page with a duplicate payment');
    await form.scrollIntoViewIfNeeded();
    await shot(page, 'payment-duplicate');
    // the right reference: the same form pays (the refused request did not use up its key)
    await form.getByLabel('Referencia').fill('TR-0002');
    await form.getByRole('button', { name: 'Cobrar' }).click();
    await page.getByRole('cell', { name: 'Banco Nación · TR-0002' }).waitFor();
    assert.equal(await form.getByRole('alert').count(), 0);
    const both = await payments();
    assert.deepEqual(
      both.map((x: any) => [x.amount, x.external_reference]),
      [
        [1000, 'TR-0001'],
        [700, 'TR-0002'],
      ],
    );
    // reversed at once: the report below counts it among the reversed
    await page.getByRole('row').filter({ hasText: 'TR-0002' }).getByRole('button', { name: 'Anular' }).click();
    const dialog = page.getByRole('dialog', { name: 'Anular este pago' });
    await dialog.getByLabel('Motivo *').fill('referencia equivocada');
    await dialog.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Anulado: referencia equivocada').waitFor();
  });

  await t.test('a guarantor added on the credit, shown on both pages, and removed', async () => {
    const section = page.locator('section', { has: page.getByRole('heading', { name: 'Garantes', exact: true }) });
    const add = section.getByRole('form', { name: 'Agregar un garante' });
    await add.getByLabel('Buscar el cliente').fill(String(dni + 1));
    await add
      .getByRole('combobox', { name: 'Cliente *' })
      .getByRole('option', { name: /Garante, Gala/ })
      .waitFor({
        state: 'attached',
      });
    await add.getByLabel('Rol').selectOption({ label: 'Garante' });
    await add.getByRole('button', { name: 'Agregar' }).click();
    const row = section.getByRole('row').filter({ hasText: 'Garante, Gala' });
    await row.waitFor();
    const detail = json(await h.get(`/api/credits/${credit.id}`));
    assert.deepEqual(
      detail.guarantors.map((g: any) => [g.client_id, g.role]),
      [[backer.id, 'guarantor']],
    );
    await axe(page, 'credit page with a guarantor');
    await section.scrollIntoViewIfNeeded();
    await shot(page, 'guarantors');

    // the guarantor's page: the credit it backs, with its borrower
    await row.getByRole('link', { name: /Garante, Gala/ }).click();
    await page.getByRole('heading', { name: 'Garante, Gala', level: 1 }).waitFor();
    const backs = page.locator('section', { has: page.getByRole('heading', { name: 'Garantías' }) });
    await backs.getByRole('link', { name: `Crédito n.º ${credit.sequential_id}` }).waitFor();
    await backs.getByRole('link', { name: /Pagador, Bruno/ }).waitFor();
    await axe(page, "the guarantor's page");
    await backs.scrollIntoViewIfNeeded();
    await shot(page, 'guarantees');

    // removed from the credit, after a confirmation
    await backs.getByRole('link', { name: `Crédito n.º ${credit.sequential_id}` }).click();
    await row.getByRole('button', { name: 'Quitar' }).click();
    await page.getByRole('dialog', { name: 'Quitar este garante' }).getByRole('button', { name: 'Confirmar' }).click();
    await row.waitFor({ state: 'detached' });
    assert.deepEqual(json(await h.get(`/api/credits/${credit.id}`)).guarantors, []);
  });

  await t.test('an import uploaded, followed to its end, its rejected line downloaded', async () => {
    await page.getByRole('link', { name: 'Importar pagos' }).click();
    await page.getByRole('heading', { name: 'Importar pagos', level: 1 }).waitFor();
    await axe(page, 'imports');
    await shot(page, 'imports');
    const csv = [
      'credit,amount,method,channel,external_reference',
      `${credit.sequential_id},500,collection_network,Rapipago,RP-0001`,
      `999999,800,collection_network,Rapipago,RP-0002`,
      `${credit.sequential_id},700,transfer,Banco Nación,TR-0001`,
    ].join('\n');
    await page.getByLabel('Archivo CSV *').setInputFiles({
      name: 'rapipago.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${csv}\n`),
    });
    await page.getByRole('button', { name: 'Importar', exact: true }).click();
    await page.getByText('terminada').waitFor();
    await page.getByText('3 de 3 líneas procesadas').waitFor();
    const id = page.url().split('/').pop()!;
    const imp = json(await h.get(`/api/payment-imports/${id}`));
    assert.deepEqual([imp.status, imp.accepted, imp.rejected, imp.duplicates], ['done', 1, 1, 1]);
    await page.getByRole('cell', { name: 'rechazada' }).waitFor();
    await page.getByRole('cell', { name: 'duplicada' }).waitFor();
    await axe(page, 'an import');
    await shot(page, 'import');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar las líneas rechazadas (CSV)' }).click(),
    ]);
    const text = readFileSync((await download.path())!, 'utf8');
    const lines = text.trim().split(/\r\n/);
    assert.equal(lines[0], 'line,credit,amount,code,message');
    assert.equal(lines.length, 2, 'the one rejected line');
    assert.match(lines[1]!, /^3,999999,800,not_found,/);
    // the outcome filter narrows the lines the server pages
    await page.getByLabel('Resultado').selectOption({ label: 'aceptada' });
    await page.getByRole('cell', { name: 'rechazada' }).waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'aceptada' }).waitFor();

    // the list of recent imports: this one, with its status and counts, a link to its page
    await page.getByRole('link', { name: 'Importar pagos' }).click();
    const recent = page.locator('section', { has: page.getByRole('heading', { name: 'Importaciones recientes' }) });
    const row = recent.getByRole('row', { name: /terminada/ });
    await row.waitFor();
    assert.deepEqual(
      (await row.getByRole('cell').allInnerTexts()).slice(1, 6).map((c) => c.trim()),
      ['terminada', '3', '1', '1', '1'],
    );
    await axe(page, 'imports with the list');
    await shot(page, 'imports-list');
    await row.getByRole('link').click();
    await page.getByText('3 de 3 líneas procesadas').waitFor();
    assert.equal(page.url().split('/').pop(), id, 'the link leads to the import');
  });

  await t.test('the collections report: its totals are the payments made', async () => {
    await page.getByRole('link', { name: 'Reporte de cobranzas' }).click();
    await page.getByRole('heading', { name: 'Reporte de cobranzas' }).waitFor();
    // every payment dated in the period counts, reversed ones too, which are also counted apart
    const made = await payments();
    assert.equal(made.length, 3, 'two at the counter (one reversed) and the imported one');
    const sum = made.reduce((s: number, p: any) => s + p.amount, 0);
    const reversed = made.filter((p: any) => p.reversed_at);
    const money = (v: number) => new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS' }).format(v);
    const card = (label: string) => page.locator('.card', { has: page.getByText(label, { exact: true }) });
    await card('Cobrado').getByText(money(sum)).waitFor();
    assert.equal((await card('Pagos').locator('.card-value').innerText()).trim(), String(made.length));
    assert.equal((await card('Pagos anulados').locator('.card-value').innerText()).trim(), String(reversed.length));
    await card('Monto anulado').getByText(money(700)).waitFor();
    await card('Neto de anulaciones')
      .getByText(money(sum - 700))
      .waitFor();
    await page.getByLabel('Agrupar por').selectOption({ label: 'Medio' });
    const table = page.getByRole('table', { name: 'Cobranzas por medio' });
    await table.getByRole('row').filter({ hasText: 'Transferencia' }).getByText(money(1700)).waitFor();
    await table.getByRole('row').filter({ hasText: 'Red de cobranza' }).getByText(money(500)).waitFor();
    await page.getByLabel('Agrupar por').selectOption({ label: 'Canal' });
    await page.getByRole('table', { name: 'Cobranzas por canal' }).getByRole('cell', { name: 'Rapipago' }).waitFor();
    await axe(page, 'collections report');
    await shot(page, 'collections-report');
    // a phone's width: the filters and cards flow into one column, the table scrolls in its box
    await page.setViewportSize({ width: 375, height: 740 });
    await axe(page, 'collections report at 375 px');
    await shot(page, 'collections-report-375');
    await page.setViewportSize({ width: 1366, height: 768 });
    const api = json(await h.get('/api/reports/collections?group_by=channel'));
    assert.deepEqual(
      [api.totals.payments, api.totals.amount, api.totals.reversed_payments, api.totals.reversed_amount],
      [made.length, sum, 1, 700],
    );
  });

  await t.test('the grant simulation shows the origination fee and the cash handed over', async () => {
    await page.goto(`${base}/app/clients/${borrower.id}/grant`);
    await page.getByLabel('Plan').selectOption({ label: 'Plan con comisión' });
    await page.getByLabel('Monto').fill('10000');
    const fees = page.getByRole('table', { name: 'Comisiones' });
    await fees.getByRole('cell', { name: 'Comisión de otorgamiento' }).waitFor();
    const sim = json(await h.post(`/api/credit-configs/${feePlan.id}/simulate`, { amount: 10000 }));
    // 3 % of 10,000 = 300, its VAT 63: 9,637 handed over
    assert.deepEqual([sim.fees[0].amount, sim.fees[0].vat, sim.disbursed], [300, 63, 9637]);
    const money = (v: number) => new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS' }).format(v);
    await page.locator('.card', { hasText: 'Monto a entregar' }).getByText(money(9637)).waitFor();
    await fees.getByRole('cell', { name: money(363) }).waitFor();
    await axe(page, 'grant with a fee');
    await shot(page, 'grant-fees');
  });

  await t.test(
    'insurance and admin fees: their own columns in the simulation and the schedule, and the row adds up',
    async () => {
      const money = (v: number) => new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS' }).format(v);
      const spaces = (x: string) => x.replace(/\s+/g, ' ').trim();
      // one row of a table as { header: cell text }
      const row = async (table: ReturnType<typeof page.getByRole>, n: number) => {
        const headers = await table.locator('thead th').allInnerTexts();
        const cells = await table.locator('tbody tr').nth(n).locator('td').allInnerTexts();
        return Object.fromEntries(headers.map((hd, k) => [spaces(hd), spaces(cells[k] ?? '')]));
      };
      const pick = (r: Record<string, string>, keys: string[]) => keys.map((k) => r[k]);
      // 10,000 at a flat 10 % in 2: each installment 5,000 of principal and 500 of interest (VAT 105);
      // insurance 1 % of the principal outstanding: 100 (VAT 21), then 1 % of 5,000: 50 (VAT 10.50);
      // the admin fee 100 (VAT 21) in each. Installment 1 = 5,000 + 500 + 100 + 100 + (105 + 21 + 21)
      // = 5,847; installment 2 = 5,000 + 500 + 50 + 100 + (105 + 10.50 + 21) = 5,786.50
      const cols = ['Capital', 'Interés', 'Seguro', 'Gastos', 'IVA', 'Cuota'];
      const first = [5000, 500, 100, 100, 147, 5847].map((v) => spaces(money(v)));
      const second = [5000, 500, 50, 100, 136.5, 5786.5].map((v) => spaces(money(v)));
      await page.setViewportSize({ width: 1366, height: 768 });
      await page.goto(`${base}/app/clients/${backer.id}/grant`);
      await page.getByLabel('Plan').selectOption({ label: 'Plan con seguro y gastos' });
      await page.getByLabel('Monto').fill('10000');
      const parts = page.getByRole('table', { name: 'Composición de la cuota' });
      await parts.getByRole('cell', { name: money(5847) }).waitFor();
      assert.deepEqual(pick(await row(parts, 0), cols), first, 'the simulation: installment 1 in its parts');
      assert.deepEqual(pick(await row(parts, 1), cols), second, 'the simulation: installment 2 in its parts');
      await page
        .getByText('Cuota = Capital + Interés + Seguro + Gastos + IVA (IVA del interés, del seguro y de los gastos).')
        .waitFor();
      await axe(page, 'grant with insurance and admin fees');
      await shot(page, 'grant-insurance-fees');
      await page.setViewportSize({ width: 375, height: 740 });
      await axe(page, 'grant with insurance and admin fees at 375 px');
      await shot(page, 'grant-insurance-fees-375');
      await page.setViewportSize({ width: 1366, height: 768 });

      await page.getByRole('button', { name: 'Otorgar' }).click();
      await page.getByRole('heading', { name: 'Cuotas' }).waitFor();
      const schedule = page
        .locator('section', { has: page.getByRole('heading', { name: 'Cuotas' }) })
        .getByRole('table');
      await schedule
        .getByRole('cell', { name: money(5786.5) })
        .first()
        .waitFor();
      const r1 = await row(schedule, 0);
      assert.deepEqual(pick(r1, cols), first, 'the credit: installment 1 in its parts');
      assert.deepEqual(pick(await row(schedule, 1), cols), second, 'the credit: installment 2 in its parts');
      // nothing paid, charged or waived: the balance is the installment, and no Cargos or Condonado column
      assert.deepEqual(pick(r1, ['Pagado', 'Saldo']), [spaces(money(0)), spaces(money(5847))]);
      assert.deepEqual(
        ['Cargos', 'Condonado'].filter((c) => c in r1),
        [],
        `no charges or waivers: ${Object.keys(r1).join(', ')}`,
      );
      await page.getByText('Saldo = Cuota + Punitorio − Pagado.', { exact: false }).waitFor();
      // the credit's cards: the insurance (100 + 50) and the admin fees (100 + 100), VAT aside
      await page.locator('.card', { hasText: 'Seguro' }).getByText(money(150)).waitFor();
      await page.locator('.card', { hasText: 'Gastos' }).getByText(money(200)).waitFor();
      // the API's own figures for the credit granted from the console: the same
      const creditId = new URL(page.url()).pathname.split('/').pop();
      const i1 = json(await h.get(`/api/credits/${creditId}`)).installments[0];
      assert.deepEqual(
        [i1.principal, i1.interest, i1.insurance, i1.fees, i1.vat, i1.amount],
        [5000, 500, 100, 100, 147, 5847],
      );
      await axe(page, 'credit with insurance and admin fees');
      await shot(page, 'credit-insurance-fees');
      await page.setViewportSize({ width: 375, height: 740 });
      await axe(page, 'credit with insurance and admin fees at 375 px');
      await shot(page, 'credit-insurance-fees-375');
      await page.setViewportSize({ width: 1366, height: 768 });
    },
  );
});
