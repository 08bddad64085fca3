// Waivers on the console's credit page (docs/console.md, "Waivers"), in Chromium: an admin waives
// the punitory of a late installment through the dialog (prefilled with what is waivable; more is
// refused beside the field, in Spanish, and nothing changes), the balance drops by exactly the
// amount waived and the waiver is listed; an employee sees no such action. axe-core on each state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { json, settableClock } from '../helpers/app.ts';
import { axe, consoleApp, noBrowser, shot } from './harness.ts';

const DAY = 86_400_000;

test('an admin waives punitory on the credit page; an employee cannot', {
  skip: noBrowser,
  timeout: 300_000,
}, async (t) => {
  const now = new Date();
  // granted 45 days ago: the first installment (due on day 30) is 15 days late and has punitory
  const clock = settableClock(new Date(now.getTime() - 45 * DAY));
  const { h, base, signedIn } = await consoleApp(t, { clock });
  const plan = json(
    await h.post('/api/credit-configs', {
      name: 'Plan condonaciones',
      installments_count: 3,
      cut_type: 'fixed',
      days_until_first_payment: 30,
      interest_rate: 0.3,
      daily_punitory_rate: 0.003,
    }),
  );
  const dni = String(30_000_000 + Math.floor(Math.random() * 9_000_000));
  const client = json(await h.post('/api/clients', { dni, first_name: 'Carla', last_name: 'Condonada' }));
  const granted = await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 60000 });
  assert.equal(granted.statusCode, 201, granted.body);
  const creditId = json(granted).credit.id;
  clock.set(now);
  const detail = async () => json(await h.get(`/api/credits/${creditId}`));
  const before = await detail();
  const first = before.installments[0];
  const punitory = Math.round((first.punitory_posted + first.punitory_accrued) * 100) / 100;
  assert.ok(punitory > 0, `the first installment is late and owes punitory (${JSON.stringify(first)})`);

  await t.test('an employee sees no waive action', async (t) => {
    const { page } = await signedIn(t, 'employee', { name: 'Elena Caja' });
    await page.goto(`${base}/app/credits/${creditId}`);
    await page.getByRole('heading', { name: 'Cuotas' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /Condonar/ }).count(), 0, 'no waive button for an employee');
  });

  await t.test('an admin waives the punitory of the late installment', async (t) => {
    const { page } = await signedIn(t, 'admin', { name: 'Laura Pérez' });
    await page.goto(`${base}/app/credits/${creditId}`);
    // only the late installment has something to waive
    const open = page.getByRole('button', { name: 'Condonar en la cuota 1' });
    await open.waitFor();
    assert.equal(
      await page.getByRole('button', { name: /^Condonar en la cuota/ }).count(),
      1,
      'one installment to waive',
    );
    // with the keyboard: focus the button and press Enter
    await open.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Condonar en la cuota 1' });
    await dialog.waitFor();
    // prefilled with the punitory owed, and the confirmation says what will happen
    assert.equal(Number(await dialog.getByLabel('Monto *').inputValue()), punitory);
    assert.match(await dialog.innerText(), /Se condonan \$\s[\d.]+,\d\d de punitorios de la cuota 1.*No es un pago/s);
    // more than owed: the API's 422 beside the field, in Spanish, nothing written
    await dialog.getByLabel('Monto *').fill(String(punitory + 1));
    await dialog.getByLabel('Motivo *').fill('internación en marzo; acordado con la gerencia');
    await dialog.getByRole('button', { name: 'Condonar' }).click();
    await dialog.getByText(/^Como máximo \$/).waitFor();
    assert.equal(await dialog.getByLabel('Monto *').getAttribute('aria-invalid'), 'true');
    assert.equal((await detail()).balance.outstanding, before.balance.outstanding, 'nothing waived');
    await axe(page, 'the waiver dialog with a refusal');
    await shot(page, 'waiver-dialog');

    // what is waivable: the balance drops by exactly that
    await dialog.getByLabel('Monto *').fill(String(punitory));
    await dialog.getByRole('button', { name: 'Condonar' }).click();
    await dialog.waitFor({ state: 'detached' });
    const after = await detail();
    assert.equal(
      Math.round((before.balance.outstanding - after.balance.outstanding) * 100),
      Math.round(punitory * 100),
      'the balance drops by the amount waived',
    );
    assert.equal(after.installments[0].waived, punitory);
    // the page shows the new figures and lists the waiver
    const waivers = page.locator('section', { has: page.getByRole('heading', { name: 'Condonaciones' }) });
    await waivers.getByRole('row').nth(1).waitFor();
    // with its kind and reason (GET /api/credits/{id}/waivers)
    assert.match(
      await waivers.innerText(),
      /\b1\s+Punitorio\s+\S*\$\s[\d.]+,\d\d\s+internación en marzo; acordado con la gerencia/,
    );
    const balanceCard = await page.locator('.cards').first().innerText();
    const shown = new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS', minimumFractionDigits: 2 })
      .format(after.balance.outstanding)
      .replace(/\s/g, ' ');
    assert.ok(balanceCard.replace(/\s/g, ' ').includes(shown), `the balance card shows ${shown}: ${balanceCard}`);
    // nothing left to waive on that installment
    assert.equal(await page.getByRole('button', { name: /^Condonar en la cuota/ }).count(), 0, 'nothing left to waive');
    await page.getByRole('cell', { name: 'Condonación' }).first().waitFor();
    // the Condonado column of the installments with nothing waived says 0, not −0
    const schedule = page.locator('section', { has: page.getByRole('heading', { name: 'Cuotas' }) });
    assert.match(
      ((await schedule.textContent()) ?? '').replace(/\s/g, ' '),
      /-\$ [\d.]+,\d\d/,
      'the waived amount is negative',
    );
    assert.doesNotMatch(
      ((await page.locator('main').textContent()) ?? '').replace(/\s/g, ' '),
      /-\$ 0,00/,
      'no "-$ 0,00"',
    );
    await axe(page, 'the credit page with a waiver');
    await waivers.scrollIntoViewIfNeeded();
    // the schedule's box kept the sideways scroll that showed the Condonar button: back to its start
    await schedule.locator('.table-wrap').evaluate((e) => {
      e.scrollLeft = 0;
    });
    await shot(page, 'waivers');
  });
});
