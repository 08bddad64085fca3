// The console's applications, collections, settings and notifications pages in a real browser
// (docs/console.md): one Chromium for the file, one context (its own cookies) per person, on the
// real app listening on a port. The maker-checker path (an employee submits, the submitter and an
// employee over the limit are refused in Spanish, an admin approves and disburses, the credit
// exists), a collector's morning (the worklist narrowed to their credits, a promise and a note
// recorded from a row through dialogs, both on the credit page), the settings saved, the
// notifications listed. Every page checked with axe-core; screenshots at 1366x768.
// CONSOLE_SCREENSHOTS=docs/console keeps the screenshots there.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { type Browser, type Page, chromium } from 'playwright-core';
import { json, settableClock } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.ts';
import { newUser } from '../helpers/sessions.ts';
import { axe, type ConsoleApp, consoleApp, failOnScriptErrors, noBrowser, shot, signInHome } from './harness.ts';

const DAY = 86_400_000;

/** A person's own context (cookies, storage) in the file's one browser, the page's errors collected. */
async function person(t: TestContext, browser: Browser, base: string, email: string): Promise<Page> {
  const context = await browser.newContext({ locale: 'es-AR', viewport: { width: 1366, height: 768 } });
  t.after(() => context.close());
  const page = await context.newPage();
  failOnScriptErrors(t, page);
  await signInHome(page, base, email);
  return page;
}

/** The menu's link, then the page's heading. */
async function go(page: Page, link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Menú' }).getByRole('link', { name: link, exact: true }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

interface World extends ConsoleApp {
  browser: Browser;
  planId: string;
  clientId: string;
  /** two credits granted 45 days ago: their first installments are overdue */
  credits: { id: string; sequential_id: number; client: string }[];
  admin: { id: string; email: string };
  maker: { id: string; email: string };
  checker: { id: string; email: string };
}

async function setup(t: TestContext): Promise<World> {
  const now = new Date();
  // the credits are granted 45 days ago, then the clock comes back to today (before anyone signs in)
  const clock = settableClock(new Date(now.getTime() - 45 * DAY));
  const app = await consoleApp(t, { clock });
  const { h } = app;
  const plan = json(
    await h.post('/api/credit-configs', {
      name: 'Plan solicitudes 3 cuotas',
      installments_count: 3,
      cut_type: 'fixed',
      days_until_first_payment: 30,
      interest_rate: 0.3,
      daily_punitory_rate: 0.003,
      policy: { max_central_bank_situation: 2 },
    }),
  );
  const clients: { id: string; name: string }[] = [];
  for (const [first, last] of [
    ['Ana', 'Morales'],
    ['Bruno', 'Quiroga'],
  ] as const) {
    const dni = String(30_000_000 + Math.floor(Math.random() * 9_000_000));
    const c = await h.post('/api/clients', { dni, first_name: first, last_name: last, email: `${first}@example.com` });
    assert.equal(c.statusCode, 201, c.body);
    clients.push({ id: json(c).id, name: `${first} ${last}` });
  }
  const credits = [];
  for (const c of clients) {
    const r = await h.post(`/api/clients/${c.id}/credits`, { credit_config_id: plan.id, amount: 60000 });
    assert.equal(r.statusCode, 201, r.body);
    credits.push({ id: json(r).credit.id, sequential_id: json(r).credit.sequential_id, client: c.name });
  }
  clock.set(now);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--lang=es-AR'] });
  t.after(() => browser.close());
  const b = h.tenant.businessId;
  return {
    ...app,
    browser,
    planId: plan.id,
    clientId: clients[0]!.id,
    credits,
    admin: await newUser(h, b, 'admin', { name: 'Laura Pérez' }),
    maker: await newUser(h, b, 'employee', { name: 'Marcos Díaz' }),
    checker: await newUser(h, b, 'employee', { name: 'Julia Ruiz' }),
  };
}

test('applications, collections, settings and notifications in Chromium', {
  skip: noBrowser,
  timeout: 600_000,
}, async (t) => {
  const w = await setup(t);
  const { h } = w;
  const admin = await person(t, w.browser, w.base, w.admin.email);

  await t.test('settings: approval required with an employee limit, reminders, saved', async () => {
    await go(admin, 'Configuración', 'Configuración');
    await admin.getByLabel('Créditos solo con solicitudes aprobadas por una segunda persona').check();
    await admin.getByLabel('Monto máximo que aprueba un empleado').fill('50000');
    await admin.getByLabel('Enviar recordatorios por correo a los clientes').check();
    // a word where days go: said under the field, nothing sent
    await admin.getByLabel('Días después del vencimiento').fill('1, siete');
    await admin.getByRole('button', { name: 'Guardar' }).click();
    await admin.getByText('Escribí días enteros separados por comas.').first().waitFor();
    await admin.getByLabel('Días después del vencimiento').fill('1, 7, 15');
    await admin.getByRole('button', { name: 'Guardar' }).click();
    await admin.getByText('Configuración guardada.').waitFor();
    await axe(admin, 'settings');
    await shot(admin, 'settings');
    const s = json(await h.get('/api/settings'));
    assert.deepEqual(s.approval, { required: true, employee_limit: 50000 });
    assert.deepEqual(s.reminders, { enabled: true, before_due_days: [3], overdue_days: [1, 7, 15] });
  });

  await t.test(
    'maker-checker: submitted by one, refused to its submitter and over the limit, approved, disbursed',
    async (t) => {
      const maker = await person(t, w.browser, w.base, w.maker.email);
      await maker.goto(`${w.base}/app/clients/${w.clientId}`);
      await maker.getByRole('link', { name: 'Solicitar un crédito' }).click();
      await maker.getByRole('heading', { name: 'Nueva solicitud' }).waitFor();
      await maker.getByLabel('Plan').selectOption({ label: 'Plan solicitudes 3 cuotas' });
      await maker.getByLabel('Monto').fill('80000');
      await maker.getByLabel('Nota').fill('Para comprar una moto');
      await axe(maker, 'new application');
      await maker.getByRole('button', { name: 'Presentar' }).click();
      await maker
        .getByRole('heading', { name: /Solicitud/ })
        .getByText('presentada')
        .waitFor();
      const applicationUrl = maker.url();
      // the plan's policy: no central bank lookup yet, so the check is unknown and says why
      const checks = maker.getByRole('table', { name: 'Controles de la política' });
      await checks.getByText('Situación máxima en el BCRA').waitFor();
      await checks.getByText('sin datos').waitFor();
      await checks.getByText('No hay una consulta reciente al BCRA').waitFor();
      await axe(maker, 'application');
      await shot(maker, 'application');

      // the submitter may not approve it: the dialog says so in Spanish and stays open; Escape closes it
      await maker.getByRole('button', { name: 'Aprobar' }).click();
      const dialog = maker.getByRole('dialog', { name: 'Aprobar esta solicitud' });
      await dialog.waitFor();
      assert.equal(
        await maker.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('name')),
        'note',
      );
      await dialog.getByRole('button', { name: 'Aprobar' }).click();
      await dialog.getByText('Una solicitud la decide una persona distinta de quien la presentó').waitFor();
      await shot(maker, 'application-self-approval');
      await maker.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      // with approval required, the grant page turns the same figures into an application
      await maker.goto(`${w.base}/app/clients/${w.clientId}/grant`);
      await maker.getByLabel('Plan').selectOption({ label: 'Plan solicitudes 3 cuotas' });
      await maker.getByLabel('Monto').fill('20000');
      await maker.getByText('CFT (costo financiero total').waitFor();
      await maker.getByRole('button', { name: 'Otorgar', exact: true }).click();
      await maker.getByText('Este negocio otorga créditos solo con una solicitud aprobada').waitFor();
      await maker.getByRole('button', { name: 'Presentar como solicitud' }).click();
      await maker
        .getByRole('heading', { name: /Solicitud/ })
        .getByText('presentada')
        .waitFor();
      assert.equal(json(await h.get(`/api/applications/${maker.url().split('/').pop()}`)).amount, 20000);

      // another employee: over the employee limit
      const checker = await person(t, w.browser, w.base, w.checker.email);
      await go(checker, 'Solicitudes de crédito', 'Solicitudes de crédito');
      await checker.getByRole('table', { name: 'Solicitudes de crédito' }).getByText('Morales, Ana').first().waitFor();
      await axe(checker, 'applications');
      await shot(checker, 'applications');
      await checker.goto(applicationUrl);
      await checker.getByRole('button', { name: 'Aprobar' }).click();
      const d2 = checker.getByRole('dialog', { name: 'Aprobar esta solicitud' });
      await d2.getByRole('button', { name: 'Aprobar' }).click();
      await d2
        .getByText(/Los empleados aprueban hasta \$\s50\.000,00.*\$\s80\.000,00 la tiene que aprobar un administrador/)
        .waitFor();
      await d2.getByRole('button', { name: 'Cancelar' }).click();
      await d2.waitFor({ state: 'detached' });

      // an admin approves and disburses: the credit exists and carries the application
      await admin.goto(applicationUrl);
      await admin.getByRole('button', { name: 'Aprobar' }).click();
      const d3 = admin.getByRole('dialog', { name: 'Aprobar esta solicitud' });
      await d3.getByLabel('Nota').fill('Ingresos confirmados');
      await d3.getByRole('button', { name: 'Aprobar' }).click();
      await admin
        .getByRole('heading', { name: /Solicitud/ })
        .getByText('aprobada')
        .waitFor();
      await admin.getByRole('button', { name: 'Desembolsar' }).click();
      const d4 = admin.getByRole('dialog', { name: 'Desembolsar esta solicitud' });
      await d4.getByLabel('Medio').selectOption('transfer');
      await d4.getByLabel('Referencia externa').fill('TRF-0001');
      await axe(admin, 'disburse dialog');
      await shot(admin, 'application-disburse');
      await d4.getByRole('button', { name: 'Desembolsar' }).click();
      await admin.getByRole('link', { name: 'Ir al crédito' }).click();
      await admin.getByRole('heading', { name: /Crédito n\.º \d+/ }).waitFor();
      const creditId = admin.url().split('/').pop()!;
      const detail = json(await h.get(`/api/credits/${creditId}`));
      const application = json(await h.get(`/api/applications/${applicationUrl.split('/').pop()}`));
      assert.equal(detail.credit.application_id, application.id);
      assert.equal(detail.credit.amount, 80000);
      assert.equal(application.status, 'disbursed');
      assert.equal(application.decided_by, `user:${w.admin.id}`);
      assert.equal(application.disbursement_reference, 'TRF-0001');
    },
  );

  await t.test(
    "a collector's morning: their credits, a promise and a note from the worklist, on the credit page",
    async (t) => {
      const [mine, other] = w.credits as [World['credits'][0], World['credits'][0]];
      // the admin assigns the credit from the worklist's row
      await go(admin, 'Cobranzas', 'Lista de cobranza');
      await admin
        .getByRole('button', { name: `Asignar cobrador · Crédito n.º ${mine.sequential_id}` })
        .first()
        .click();
      const assign = admin.getByRole('dialog', { name: `Cobrador del crédito n.º ${mine.sequential_id}` });
      await assign.getByLabel('Cobrador').selectOption({ label: 'Julia Ruiz' });
      await assign.getByRole('button', { name: 'Asignar' }).click();
      await assign.waitFor({ state: 'detached' });
      assert.equal(json(await h.get(`/api/credits/${mine.id}`)).credit.collector_id, w.checker.id);

      const collector = await person(t, w.browser, w.base, w.checker.email);
      await go(collector, 'Cobranzas', 'Lista de cobranza');
      const list = collector.getByRole('table', { name: 'Lista de cobranza' });
      await list.getByText(other.client).waitFor();
      await collector.getByLabel('Cobrador', { exact: true }).selectOption({ label: 'Mis créditos' });
      await list.getByText(other.client).waitFor({ state: 'detached' });
      await list.getByText(mine.client).waitFor();
      assert.equal(await list.getByRole('row').count(), 2, 'the header and their one overdue installment');

      // a promise: the dialog takes the focus, Escape cancels it, then it is recorded
      await collector.getByRole('button', { name: `Registrar promesa · Crédito n.º ${mine.sequential_id}` }).click();
      const promise = collector.getByRole('dialog', { name: /Promesa de pago/ });
      await promise.waitFor();
      assert.equal(
        await collector.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('name')),
        'amount',
      );
      // Tab from the last control wraps to the first: the focus stays in the dialog
      await promise.getByRole('button', { name: 'Cancelar' }).focus();
      await collector.keyboard.press('Tab');
      assert.equal(
        await collector.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('name')),
        'amount',
      );
      await collector.keyboard.press('Escape');
      await promise.waitFor({ state: 'detached' });
      assert.deepEqual(json(await h.get(`/api/credits/${mine.id}/promises`)), []);
      await collector.getByRole('button', { name: `Registrar promesa · Crédito n.º ${mine.sequential_id}` }).click();
      await promise.getByLabel('Monto prometido').fill('15000');
      await promise.getByLabel('Nota').fill('Cobra el viernes');
      await axe(collector, 'promise dialog');
      await shot(collector, 'promise-dialog');
      await promise.getByRole('button', { name: 'Registrar promesa' }).click();
      await promise.waitFor({ state: 'detached' });
      await list.getByText('pendiente').waitFor();

      // a note, from the same row, with the keyboard only
      await collector.getByRole('button', { name: `Agregar nota · Crédito n.º ${mine.sequential_id}` }).focus();
      await collector.keyboard.press('Enter');
      const note = collector.getByRole('dialog', { name: /Nota de contacto/ });
      await note.waitFor();
      await collector.keyboard.press('Tab');
      await collector.keyboard.type('Atendió, confirma el pago del viernes');
      // from the text to the dialog's button, and press it
      await collector.keyboard.press('Tab');
      await collector.keyboard.press('Enter');
      await note.waitFor({ state: 'detached' });
      await list.getByText('Atendió, confirma el pago del viernes').waitFor();
      await collector.getByLabel('Promesa', { exact: true }).selectOption({ label: 'Promesa pendiente' });
      await list.getByText(mine.client).waitFor();
      await axe(collector, 'worklist');
      await shot(collector, 'worklist');

      // both on the credit page
      await list.getByRole('link', { name: `Crédito n.º ${mine.sequential_id}` }).click();
      await collector.getByRole('heading', { name: 'Promesas y notas' }).waitFor();
      await collector.getByRole('table', { name: 'Promesas' }).getByText('Cobra el viernes').waitFor();
      await collector
        .getByRole('table', { name: 'Notas' })
        .getByText('Atendió, confirma el pago del viernes')
        .waitFor();
      await collector.getByText('Cobrador: vos').waitFor();
      await collector.getByRole('table', { name: 'Notas' }).scrollIntoViewIfNeeded();
      await axe(collector, 'credit page with promises and notes');
      await shot(collector, 'credit-promises');
      const [p] = json(await h.get(`/api/credits/${mine.id}/promises`));
      assert.equal(p.amount, 15000);
      assert.equal(p.status, 'pending');
      assert.equal(p.created_by, `user:${w.checker.id}`);
      const notes = json(
        await h.get(`/api/clients/${json(await h.get(`/api/credits/${mine.id}`)).credit.client_id}/notes`),
      );
      assert.equal(notes.items[0].channel, 'call');
      assert.equal(notes.items[0].credit_id, mine.id);
    },
  );

  await t.test('notifications: the e-mails listed, by status and client', async () => {
    // an invitation is an e-mail; without SMTP it is recorded as not_configured
    const invited = await h.post('/api/users', { email: 'nueva@test.example', name: 'Nueva', role: 'viewer' });
    assert.equal(invited.statusCode, 201, invited.body);
    await go(admin, 'Notificaciones', 'Notificaciones');
    const table = admin.getByRole('table', { name: 'Notificaciones' });
    await table.getByText('nueva@test.example').waitFor();
    await table.getByText('enlace de contraseña').first().waitFor();
    await admin.getByLabel('Estado').selectOption({ label: 'enviado' });
    await admin.getByText('Notificaciones: todavía no hay.').waitFor();
    await admin.getByLabel('Estado').selectOption({ label: 'sin correo configurado' });
    await table.getByText('nueva@test.example').waitFor();
    await axe(admin, 'notifications');
    await shot(admin, 'notifications');
  });
});
