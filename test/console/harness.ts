// What the console's browser tests share: a Chromium with a fresh profile whose script errors and
// CSP refusals fail the test, axe-core on a page (no serious or critical violation), a screenshot
// and signing in, and the app they drive (consoleApp). CONSOLE_SCREENSHOTS=docs/console keeps the screenshots there (the user's
// guide's pictures); otherwise they go to a temporary directory.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import type { Clock } from '../../src/domain/index.ts';
import type { Role } from '../../src/domain/access.ts';
import { build, type Harness } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.ts';
import { PASSWORD, newUser } from '../helpers/sessions.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const SHOTS = process.env.CONSOLE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'lending-console-'));
mkdirSync(SHOTS, { recursive: true });

/** The reason to skip a browser test, or false when Chromium is there. */
export const noBrowser = existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM} (apt-get install -y chromium to run this test)`;

/** A browser with a fresh profile (its own --user-data-dir: cookies, storage) and the page's errors collected. */
export async function openBrowser(t: TestContext, viewport = { width: 1366, height: 768 }) {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'lending-chromium-')), {
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, '--lang=es-AR'],
    locale: 'es-AR',
    viewport,
    acceptDownloads: true,
    timeout: 60_000,
  });
  t.after(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  failOnScriptErrors(t, page);
  return page;
}

/** The page's script errors and CSP refusals fail the test when it ends. */
export function failOnScriptErrors(t: TestContext, page: Page) {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    // an API refusal the page shows (a 401 before signing in, a 403 or 409 the test provokes) is no script error
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  t.after(() => assert.deepEqual(errors, [], 'no script error or CSP refusal on the pages'));
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function axe(page: Page, what: string) {
  // evaluated through the DevTools protocol: the page's own CSP (no inline script) stays as it is
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return r.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(violations, [], `accessibility of ${what}`);
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

export async function signIn(page: Page, base: string, email: string, password = PASSWORD) {
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Ingresar' }).waitFor();
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
}

/** Signs in and waits for the portfolio summary, the first page of a business's user. */
export async function signInHome(page: Page, base: string, email: string) {
  await signIn(page, base, email);
  await page.getByRole('heading', { name: 'Resumen de cartera' }).waitFor();
}

export interface ConsoleApp {
  h: Harness;
  /** where the app listens: http://127.0.0.1:port */
  base: string;
  /** A new user of the business with this role in a fresh browser (closed when `t` ends), signed in on the portfolio summary. */
  signedIn(
    t: TestContext,
    role: Role,
    opts?: { name?: string; viewport?: { width: number; height: number } },
  ): Promise<{ page: Page; user: { id: string; email: string } }>;
}

/** The app of a browser test: built on Buenos Aires time (with the test's clock, if any) and listening on a port. */
export async function consoleApp(t: TestContext, opts: { clock?: Clock } = {}): Promise<ConsoleApp> {
  const h = await build(t, { ...opts, timezone: 'America/Argentina/Buenos_Aires' });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}`;
  return {
    h,
    base,
    async signedIn(t, role, o = {}) {
      const user = await newUser(h, h.tenant.businessId, role, o.name === undefined ? {} : { name: o.name });
      const page = await openBrowser(t, o.viewport);
      await signInHome(page, base, user.email);
      return { page, user };
    },
  };
}
