// The staff console in a real browser (docs/console.md): headless Chromium drives /app on the real
// app listening on a port, on the test database (embedded or PostgreSQL, as the run says), as an
// employee, an admin, an operator and a viewer would, and checks each page with axe-core (no
// serious or critical violation) and that no script error or CSP refusal happened. The session's
// expiry is real: the app's clock moves past the idle limit. Needs Debian's chromium at
// /usr/bin/chromium (apt-get install -y chromium): skipped, saying so, without it.
// CONSOLE_SCREENSHOTS=docs/console keeps the screenshots there (the user's guide's pictures);
// otherwise they go to a temporary directory.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTenant, json, settableClock } from '../helpers/app.ts';
import {
  axe,
  type ConsoleApp,
  consoleApp,
  noBrowser,
  openBrowser,
  shot,
  signIn as signInAt,
  signInHome,
} from './harness.ts';
import { PASSWORD, newUser } from '../helpers/sessions.ts';
import { createOperator } from '../../src/services/users.ts';
import { setPasswordWithLink } from '../../src/services/sessions.ts';

interface World extends ConsoleApp {
  clock: ReturnType<typeof settableClock>;
  planId: string;
  clientId: string;
  dni: string;
}

/** This file's window size. */
const viewport = { width: 1100, height: 760 };
/** A browser with a fresh profile, at this file's window size. */
const open = (t: TestContext) => openBrowser(t, viewport);
/** A new user of the business with this role, signed in on the portfolio summary, at this file's window size. */
const signedIn = (t: TestContext, w: World, role: 'admin' | 'employee' | 'viewer', name?: string) =>
  w.signedIn(t, role, { viewport, ...(name === undefined ? {} : { name }) }).then((s) => s.page);

const signIn = (page: Page, w: World, email: string, password = PASSWORD) => signInAt(page, w.base, email, password);

/** A client created by the page's own script: once without the X-CSRF-Token header, once with it. */
async function writeClient(page: Page, dni: string): Promise<{ withToken: number; without: number }> {
  // a string, not a function: the test's compiler would add helpers the page does not have
  return page.evaluate(`(async () => {
    const csrf = /(?:^|;\\s*)csrf=([^;]+)/.exec(document.cookie)?.[1] ?? '';
    const body = JSON.stringify({ dni: ${JSON.stringify(dni)} });
    const headers = { 'content-type': 'application/json' };
    const without = (await fetch('/api/clients', { method: 'POST', headers, body })).status;
    const withToken = (await fetch('/api/clients', { method: 'POST', headers: { ...headers, 'x-csrf-token': csrf }, body })).status;
    return { withToken, without };
  })()`);
}

async function setup(t: TestContext): Promise<World> {
  const clock = settableClock(new Date());
  const app = await consoleApp(t, { clock });
  const { h } = app;
  const plan = await h.post('/api/credit-configs', {
    name: 'Plan consola 3 cuotas',
    installments_count: 3,
    cut_type: 'fixed',
    days_until_first_payment: 30,
    interest_rate: 0.3,
    daily_punitory_rate: 0.003,
  });
  assert.equal(plan.statusCode, 201, plan.body);
  const dni = String(30_000_000 + Math.floor(Math.random() * 9_000_000));
  const client = await h.post('/api/clients', {
    dni,
    first_name: 'Ana',
    last_name: 'Consola',
    email: 'ana@example.com',
  });
  assert.equal(client.statusCode, 201, client.body);
  return { ...app, clock, planId: json(plan).id, clientId: json(client).id, dni };
}

test('the staff console in Chromium', {
  skip: noBrowser,
  timeout: 600_000,
}, async (t) => {
  const w = await setup(t);
  const { h } = w;

  await t.test(
    'serving: / leads to /app, the page has a strict CSP, assets are hashed, compressed and cached',
    async () => {
      const root = await fetch(`${w.base}/`, { redirect: 'manual' });
      assert.equal(root.status, 302);
      assert.equal(root.headers.get('location'), '/app');
      const page = await fetch(`${w.base}/app/clients/anything`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
      const csp = page.headers.get('content-security-policy')!;
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(page.headers.get('x-frame-options'), 'DENY');
      assert.equal(page.headers.get('cache-control'), 'no-cache');
      const html = await page.text();
      assert.doesNotMatch(html, /<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
      const js = /src="(\/app\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
      assert.ok(js, 'the page names a hashed script');
      const br = await fetch(`${w.base}${js}`, { headers: { 'accept-encoding': 'br' } });
      assert.equal(br.headers.get('content-encoding'), 'br');
      assert.match(br.headers.get('cache-control')!, /max-age=31536000, immutable/);
      // the first load's JavaScript: every script the page names, as brotli sends it (docs/benchmarks.md)
      let firstLoad = 0;
      for (const [, src] of html.matchAll(/(?:src|href)="(\/app\/assets\/[^"]+\.js)"/g)) {
        const r = await h.app.inject({ method: 'GET', url: src!, headers: { 'accept-encoding': 'br' } });
        firstLoad += r.rawPayload.length;
      }
      t.diagnostic(`first load: ${(firstLoad / 1024).toFixed(1)} KB of JavaScript (brotli)`);
      assert.ok(firstLoad > 0 && firstLoad <= 300 * 1024, `first load ${firstLoad} bytes, at most 300 KB`);
      const plain = await h.app.inject({ method: 'GET', url: js!, headers: { 'accept-encoding': 'identity' } });
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.rawPayload.length > Number(br.headers.get('content-length')), 'brotli is smaller');
      const gz = await h.app.inject({ method: 'GET', url: js!, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      const missing = await fetch(`${w.base}/app/assets/nothing-here.js`);
      assert.equal(missing.status, 404);
    },
  );

  await t.test(
    "an employee's day: sign in, find a client, grant, take a payment, its receipt, reverse it",
    async (t) => {
      const page = await signedIn(t, w, 'employee', 'Marcos Díaz');
      await axe(page, 'home');
      await shot(page, 'home');

      await page.getByRole('link', { name: 'Clientes' }).click();
      await page.getByLabel('Buscar').fill(w.dni.slice(0, 5));
      await page.getByRole('link', { name: 'Consola, Ana' }).waitFor();
      await axe(page, 'clients');
      await shot(page, 'clients');
      await page.getByRole('link', { name: 'Consola, Ana' }).click();
      await page.getByRole('heading', { name: 'Consola, Ana' }).waitFor();
      await axe(page, 'client page');
      await shot(page, 'client');

      await page.getByRole('link', { name: 'Otorgar un crédito' }).click();
      await page.getByLabel('Plan').selectOption({ label: 'Plan consola 3 cuotas' });
      await page.getByLabel('Monto').fill('30000');
      // the live simulation: three installments and the disclosed cost
      await page.getByText('CFT (costo financiero total').waitFor();
      await page.getByRole('table', { name: 'Composición de la cuota' }).getByRole('row').nth(3).waitFor();
      await axe(page, 'grant');
      await shot(page, 'grant');
      await page.getByRole('button', { name: 'Otorgar', exact: true }).click();
      await page.getByRole('heading', { name: /Crédito n\.º \d+/ }).waitFor();
      const creditId = page.url().split('/').pop()!;
      const detail = json(await h.get(`/api/credits/${creditId}`));
      assert.equal(detail.credit.amount, 30000);
      assert.equal(detail.credit.client_id, w.clientId);

      // the amount is prefilled (nothing due yet: the next installment); a double click pays once
      const amount = page.getByLabel('Monto *');
      assert.equal(Number(await amount.inputValue()), detail.installments[0].outstanding);
      await amount.fill('5000');
      await page.getByRole('button', { name: 'Cobrar' }).dblclick();
      await page.getByRole('table').filter({ hasText: 'Recibo' }).getByRole('row').nth(1).waitFor();
      await page.waitForTimeout(500);
      const payments = json(await h.get(`/api/credits/${creditId}/payments`));
      assert.equal(payments.length, 1, 'one payment for a double click');
      assert.equal(payments[0].amount, 5000);
      await axe(page, 'credit page');
      // the picture of the credit page starts at its top (the form left it scrolled to the payments)
      await page.evaluate('window.scrollTo(0, 0)');
      await shot(page, 'credit');

      // the receipt: a PDF the API answers to the page
      const [receipt] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/payments/${payments[0].id}/receipt`)),
        page.getByRole('button', { name: 'Recibo A4' }).click(),
      ]);
      assert.equal(receipt.status(), 200);
      assert.equal(receipt.headers()['content-type'], 'application/pdf');
      // and on 80 mm roll paper
      const [roll] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/payments/${payments[0].id}/receipt?paper=80mm`)),
        page.getByRole('button', { name: 'Recibo 80 mm' }).click(),
      ]);
      assert.equal(roll.status(), 200);
      assert.match(roll.headers()['content-disposition'] ?? '', /recibo-80mm-credito/);
      const pdf = await h.req({
        method: 'GET',
        url: `/api/credits/${creditId}/payments/${payments[0].id}/receipt`,
        headers: { accept: 'application/pdf' },
      });
      assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');

      // reverse it: a reason, a confirmation
      await page.getByRole('button', { name: 'Anular', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Anular este pago' });
      await dialog.getByLabel('Motivo *').fill('cobrado por error');
      await axe(page, 'reverse dialog');
      await dialog.getByRole('button', { name: 'Confirmar' }).click();
      await page.getByText('Anulado: cobrado por error').waitFor();
      const after = json(await h.get(`/api/credits/${creditId}/payments`));
      assert.equal(after[0].reversal_reason, 'cobrado por error');
      assert.ok(after[0].reversed_at, 'after[0].reversed_at is set');

      // a client with a wrong CUIT check digit: the API's message beside the field
      await page.getByRole('link', { name: 'Clientes' }).click();
      await page.getByRole('link', { name: 'Nuevo cliente' }).click();
      await page.getByLabel('DNI *').fill(String(Number(w.dni) + 1));
      await page.getByLabel('CUIT').fill('20301234560');
      await page.getByRole('button', { name: 'Guardar' }).click();
      const cuit = page.getByLabel('CUIT');
      await page
        .locator('.field.invalid')
        .getByText(/check digit/)
        .waitFor();
      assert.equal(await cuit.getAttribute('aria-invalid'), 'true');
      await axe(page, 'client form with an error');

      await page.getByRole('link', { name: 'Cobranzas', exact: true }).click();
      await page.getByRole('heading', { name: 'Lista de cobranza' }).waitFor();
      await axe(page, 'collections');
      await shot(page, 'collections');

      // a phone's width: the menu folds behind a button
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto(`${w.base}/app/credits/${creditId}`);
      await page.getByRole('button', { name: 'Menú' }).click();
      await page.getByRole('link', { name: 'Clientes' }).waitFor();
      await axe(page, 'credit page at 375 px');
      await shot(page, 'credit-375');
      await page.getByRole('button', { name: 'Salir' }).click();
      await page.getByText('Cerraste la sesión.').waitFor();
    },
  );

  await t.test("an admin's: invite a user, create a plan, revoke a key; English on request", async (t) => {
    const page = await signedIn(t, w, 'admin', 'Laura Pérez');
    await page.getByRole('link', { name: 'Usuarios' }).click();
    const email = `nuevo-${Date.now()}@example.com`;
    const invite = page.getByRole('form', { name: 'Invitar un usuario' });
    await invite.getByLabel('Correo electrónico').fill(email);
    await invite.getByLabel('Rol').selectOption('viewer');
    await invite.getByRole('button', { name: 'Invitar' }).click();
    await page.getByText(/set-password#token=sp_/).waitFor();
    await page.getByRole('cell', { name: email }).waitFor();
    await axe(page, 'users');
    await shot(page, 'users');

    // making the invited user an admin asks for the admin's own password in the console's dialog
    const roleOf = page.getByRole('combobox', { name: `Rol: ${email}` });
    await roleOf.selectOption('admin');
    const promote = page.getByRole('dialog', { name: `Hacer administrador a ${email}` });
    const password = promote.getByLabel('Tu contraseña *');
    await password.waitFor();
    assert.equal(await password.getAttribute('type'), 'password', 'the password is masked');
    assert.ok(
      await password.evaluate((el) => el === (globalThis as any).document.activeElement),
      'the focus starts in the field',
    );
    await axe(page, 'the admin password dialog');
    // the focus stays in the dialog: field → Hacer administrador → Cancelar → field, and back
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.ok(
      await password.evaluate((el) => el === (globalThis as any).document.activeElement),
      'Tab wraps to the field',
    );
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent), 'Cancelar');
    // Escape cancels: nothing sent, the role stays
    await page.keyboard.press('Escape');
    await promote.waitFor({ state: 'detached' });
    assert.equal(await roleOf.inputValue(), 'viewer');
    // no password: the API's details about current_password are written under the field
    await roleOf.selectOption('admin');
    await promote.getByRole('button', { name: 'Hacer administrador' }).click();
    await promote.locator('.field-error').waitFor();
    assert.equal(await password.getAttribute('aria-invalid'), 'true');
    const described = (await password.getAttribute('aria-describedby'))!;
    assert.ok((await page.locator(`[id="${described}"]`).innerText()).length > 0, 'the API says why, under the field');
    await shot(page, 'make-admin');
    // a wrong password is refused, the dialog stays open
    await password.fill('not-my-password');
    await page.keyboard.press('Enter');
    await promote.getByRole('alert').getByText('current_password is not your password').waitFor();
    // the right one: the dialog closes and the user is an admin, as the server says after a reload
    await password.fill(PASSWORD);
    await promote.getByRole('button', { name: 'Hacer administrador' }).click();
    await promote.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('combobox', { name: `Rol: ${email}` }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: `Rol: ${email}` }).inputValue(), 'admin');

    await page.getByRole('link', { name: 'Planes' }).click();
    const form = page.getByRole('form', { name: 'Nuevo plan' });
    await form.getByLabel('Nombre').fill('Plan admin 6');
    await form.getByRole('button', { name: 'Guardar' }).click();
    await page.getByRole('cell', { name: 'Plan admin 6' }).waitFor();
    const plans = json(await h.get('/api/credit-configs'));
    assert.ok(
      plans.some((p: { name: string }) => p.name === 'Plan admin 6'),
      "some p of plans: p.name === 'Plan admin 6'",
    );
    await page.getByText('CFT (costo financiero total').waitFor();
    await axe(page, 'plans');
    await shot(page, 'plans');

    await page.getByRole('link', { name: 'Claves de API' }).click();
    const keys = page.getByRole('form', { name: 'Nueva clave' });
    await keys.getByLabel('Nombre').fill('ERP de prueba');
    await keys.getByRole('button', { name: 'Guardar' }).click();
    const secret = await page.locator('.secret code').innerText();
    assert.match(secret, /^lk_read_/);
    const row = page.getByRole('row').filter({ hasText: 'ERP de prueba' });
    await row.getByRole('button', { name: 'Revocar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirmar' }).click();
    await row.getByText('Revocado').waitFor();
    assert.equal((await h.get('/api/clients', secret)).statusCode, 401, 'the revoked key is refused');
    await axe(page, 'keys');

    for (const [link, heading] of [
      ['Auditoría', 'Auditoría'],
      ['Webhooks', 'Webhooks'],
      ['Sucursales', 'Sucursales'],
      ['Feriados', 'Feriados'],
      ['Solicitudes web', 'Solicitudes web'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await axe(page, link);
    }
    // the audit log shows the key's revocation, old and new values
    await page.getByRole('link', { name: 'Auditoría' }).click();
    await page.getByRole('combobox', { name: 'Tabla' }).selectOption('api_keys');
    await page.getByRole('cell', { name: 'Cambio' }).first().waitFor();
    await page.locator('details summary').first().click();
    await page.getByRole('rowheader', { name: 'revoked_at' }).waitFor();
    await shot(page, 'audit');

    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  });

  await t.test("an operator's: act as a user with a permanent banner, then stop", async (t) => {
    const email = `operator-${Date.now()}@platform.example`;
    const { link } = await createOperator(h.db, { email }, h.clock());
    await setPasswordWithLink(h.db, link.token, PASSWORD, h.clock());
    // a business of its own name, among the many of the test database: found by the search, paged by the server
    const name = `Financiera Consola ${Date.now()}`;
    const { businessId } = await createTenant(h.db, { name, timezone: 'America/Argentina/Buenos_Aires' });
    const target = await newUser(h, businessId, 'employee', { name: 'Julia Ruiz' });
    const page = await open(t);
    await signIn(page, w, email);
    await page.getByRole('heading', { name: 'Empresas' }).waitFor();
    await page.getByLabel('Buscar').fill(name.slice(0, 24));
    await page.getByRole('button', { name: `Usuarios de ${name}` }).click();
    await page.getByRole('heading', { name: `Usuarios de ${name}` }).waitFor();
    const act = page.getByRole('button', { name: `Actuar como ${target.email}` });
    await act.waitFor();
    await axe(page, 'operator');
    await shot(page, 'operator');
    await act.click();
    const banner = page.getByRole('status').filter({ hasText: 'Actuando como Julia Ruiz' });
    await banner.waitFor();
    await page.getByRole('link', { name: 'Clientes' }).click();
    await banner.waitFor();
    await axe(page, 'impersonating');
    await shot(page, 'impersonation');
    await banner.getByRole('button', { name: 'Dejar de actuar' }).click();
    await page.getByRole('heading', { name: 'Empresas' }).waitFor();
    assert.equal(await page.getByText('Actuando como').count(), 0);
  });

  await t.test('the set-password link: the token from the fragment, then sign in', async (t) => {
    const invite = await h.app.inject({
      method: 'POST',
      url: '/api/users',
      headers: { authorization: `Bearer ${h.tenant.fullKey}` },
      payload: { email: `link-${Date.now()}@example.com`, role: 'employee' },
    });
    assert.equal(invite.statusCode, 201, invite.body);
    const token = new URL(json(invite).set_password_url).hash;
    const page = await open(t);
    await page.goto(`${w.base}/app/set-password${token}`);
    await page.getByRole('heading', { name: 'Elegir una contraseña' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the token leaves the address bar');
    await page.getByLabel('Contraseña', { exact: false }).first().fill('short');
    await page.getByLabel('Repetir la contraseña').fill('short');
    await page.getByRole('button', { name: 'Guardar contraseña' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Contraseña', { exact: false }).first().fill(PASSWORD);
    await page.getByLabel('Repetir la contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Guardar contraseña' }).click();
    await page.getByText('Tu contraseña quedó guardada').waitFor();
    await axe(page, 'set password');
    await signInHome(page, w.base, json(invite).email);
  });

  await t.test(
    'a viewer reads but is offered no write, and the API refuses a write without the CSRF token',
    async (t) => {
      const page = await signedIn(t, w, 'viewer');
      await page.goto(`${w.base}/app/clients/${w.clientId}`);
      await page.getByRole('heading', { name: 'Consola, Ana' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Otorgar un crédito' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Editar' }).count(), 0);
      // the form to create a client is not among a viewer's pages
      await page.goto(`${w.base}/app/clients/new`);
      await page.getByRole('alert').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Guardar' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Usuarios' }).count(), 0);
      // even the page's own script, with the CSRF token, cannot write as a viewer
      assert.deepEqual(await writeClient(page, String(Number(w.dni) + 7)), { withToken: 403, without: 403 });
    },
  );

  await t.test('a session that ends while the page is open sends back to sign in, saying why', async (t) => {
    const page = await signedIn(t, w, 'employee');
    // CSRF: a write needs the csrf cookie's value in X-CSRF-Token (another site cannot read it)
    assert.deepEqual(await writeClient(page, String(Number(w.dni) + 9)), { withToken: 201, without: 403 });
    // 31 idle minutes later (SESSION_IDLE_MINUTES is 30)
    w.clock.set(new Date(h.clock().getTime() + 31 * 60_000));
    await page.getByRole('link', { name: 'Clientes' }).click();
    await page.getByText('Tu sesión terminó. Volvé a ingresar.').waitFor();
    await page.getByRole('heading', { name: 'Ingresar' }).waitFor();
    await axe(page, 'sign in');
    await shot(page, 'sign-in');
  });
});
