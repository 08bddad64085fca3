// /docs in a real browser: headless Chromium loads the page from a test server
// and waits for Swagger UI to list the operations, with their operationIds, and for no script
// error (the page's Content-Security-Policy included); a screenshot is kept in a temp directory.
// Needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium): skipped without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from '../helpers/app.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/browser.ts';

test('/docs renders in headless Chromium and lists every operation by its operationId', {
  skip: existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium to run this test)`,
  timeout: 180_000,
}, async (t) => {
  const h = await build(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = h.app.server.address() as { port: number };
  // the operations of the paths, and the webhooks section's (one per event type)
  const doc = h.app.swagger() as { paths?: Record<string, object>; webhooks?: Record<string, object> };
  const operations = [...Object.values(doc.paths ?? {}), ...Object.values(doc.webhooks ?? {})].flatMap((item) =>
    Object.keys(item ?? {}),
  ).length;

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });

  const res = await page.goto(`http://127.0.0.1:${port}/docs`, { waitUntil: 'load', timeout: 60_000 });
  assert.equal(res?.status(), 200);
  // Swagger UI fetches the document and draws one block per operation
  await page
    .locator('.opblock')
    .nth(operations - 1)
    .waitFor({ timeout: 60_000 });
  const listed = await page.locator('.opblock').count();
  assert.equal(listed, operations, 'every operation of the document is listed');
  const ids = await page.locator('.opblock .opblock-summary-operation-id').allTextContents();
  for (const id of ['getClient', 'createCredit', 'registerPayment', 'listAuditLog'])
    assert.ok(ids.includes(id), `${id} is shown (${ids.length} operationIds)`);
  assert.match(await page.locator('.info .title').innerText(), /Lending management service/);

  const dir = mkdtempSync(join(tmpdir(), 'lending-docs-page-'));
  const shot = join(dir, 'docs.png');
  await page.screenshot({ path: shot, fullPage: false });
  assert.ok(statSync(shot).size > 10_000, 'a screenshot of the page');
  t.diagnostic(`screenshot: ${shot}`);
  assert.deepEqual(errors, [], 'no script error on the page');
});
