// Closing a credit paid beyond its payoff from the console's credit page, in Chromium
// (docs/console.md, "Closing a credit paid beyond its payoff"): the quote shows 0 and what is to be
// refunded, the confirmation says what will happen with the amounts, and after it the credit is
// closed, the refund is said, and the close is listed among the payments. axe-core on each state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { json } from '../helpers/app.ts';
import { axe, consoleApp, noBrowser, shot } from './harness.ts';

const DAY = 86_400_000;
const ymd = (d: Date) => d.toLocaleDateString('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' });

test('an employee closes a credit paid beyond its payoff and is told the refund', {
  skip: noBrowser,
  timeout: 300_000,
}, async (t) => {
  const { h, base, signedIn } = await consoleApp(t);
  const plan = json(
    await h.post('/api/credit-configs', {
      name: 'Plan 3 cuotas 30 %',
      installments_count: 3,
      cut_type: 'fixed',
      days_until_first_payment: 30,
      interest_rate: 0.3,
    }),
  );
  const dni = String(30_000_000 + Math.floor(Math.random() * 9_000_000));
  const client = json(await h.post('/api/clients', { dni, first_name: 'Pablo', last_name: 'Adelantado' }));
  // 3,000 granted 10 days ago: 3 × 1,300 (1,000 principal, 300 interest), the first due in 30
  // days. 3,800 paid the day after: on day 10 of 30 what settles it is 3,000 + 100 of interest, so
  // 700 was paid beyond it and 800 of interest is not owed
  const now = Date.now();
  const start = ymd(new Date(now - 10 * DAY));
  const granted = await h.post(`/api/clients/${client.id}/credits`, {
    credit_config_id: plan.id,
    amount: 3000,
    start_date: start,
  });
  assert.equal(granted.statusCode, 201, granted.body);
  const creditId = json(granted).credit.id;
  const paid = await h.post(`/api/credits/${creditId}/payments`, {
    amount: 3800,
    paid_on: ymd(new Date(now - 9 * DAY)),
  });
  assert.equal(paid.statusCode, 201, paid.body);
  const quote = json(await h.get(`/api/credits/${creditId}/payoff`));
  assert.deepEqual([quote.amount, quote.refundable, quote.breakdown.rebate], [0, 700, 800]);

  const { page } = await signedIn(t, 'employee', { name: 'Elena Caja' });
  await page.goto(`${base}/app/credits/${creditId}`);
  await page.getByRole('heading', { name: 'Cancelación anticipada' }).waitFor();
  await page.getByRole('button', { name: 'Cotizar' }).click();
  // the quote: 0 to pay, 700 to refund, and no "pay it off" button
  const box = page.locator('section', { has: page.getByRole('button', { name: 'Cancelar y devolver' }) });
  await box.waitFor();
  const quoted = (await box.innerText()).replace(/\s/g, ' ');
  // the parts as owed, in Spanish, none negative (the API's principal is −700: the prepayment
  // beyond), the rebate, and the refund on a line of its own
  assert.deepEqual(await box.locator('.card-label').allInnerTexts(), [
    `Total (${quote.as_of.split('-').reverse().join('/')})`,
    'Capital',
    'Interés',
    'Bonificación',
  ]);
  assert.doesNotMatch(quoted, /-\$/, 'no negative figure in the quote');
  assert.match(quoted, /Bonificación \$ 800,00/);
  assert.match(
    (await box.locator('.payoff-refund').innerText()).replace(/\s/g, ' '),
    /^A devolver al cliente \$ 700,00$/,
  );
  assert.match(quoted, /Lo pagado supera en \$ 700,00 lo que cancela el crédito/);
  // the quote at the top of the window for its picture
  await page.getByRole('heading', { name: 'Cancelación anticipada' }).evaluate((e) => e.scrollIntoView());
  await shot(page, 'payoff-refund');
  assert.equal(await page.getByRole('button', { name: 'Cancelar el total' }).count(), 0, 'nothing to pay off');
  await axe(page, 'the quote of a credit paid beyond its payoff');

  // the confirmation says what will happen, with the rebate and the refund
  await page.getByRole('button', { name: 'Cancelar y devolver' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancelar el crédito y devolver $ 700,00' });
  await dialog.waitFor();
  const said = (await dialog.innerText()).replace(/\s/g, ' ');
  assert.match(said, /se bonifican \$ 800,00 de interés no devengado .* devolverle al cliente \$ 700,00/);
  await axe(page, 'the close confirmation');
  await shot(page, 'payoff-close-dialog');
  await dialog.getByRole('button', { name: 'Confirmar' }).click();

  // closed: the refund said, the close listed among the payments
  await page.getByRole('status').filter({ hasText: 'Devolverle al cliente' }).waitFor();
  assert.match(
    (await page.getByRole('status').filter({ hasText: 'Devolverle al cliente' }).innerText()).replace(/\s/g, ' '),
    /Devolverle al cliente: \$ 700,00/,
  );
  await page.getByRole('cell', { name: /Cancelado con devolución de \$\s700,00/ }).waitFor();
  const after = json(await h.get(`/api/credits/${creditId}`));
  assert.equal(after.credit.status, 'closed');
  assert.equal(after.balance.outstanding, 0);
  const list = json(await h.get(`/api/credits/${creditId}/payments`));
  assert.deepEqual(
    list.map((p: any) => [p.kind, p.amount]),
    [
      ['payment', 3800],
      ['payoff_close', -700],
    ],
  );
  await axe(page, 'the credit closed with a refund');
  await shot(page, 'payoff-close');
});
