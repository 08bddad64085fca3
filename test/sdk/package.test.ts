// @lending/sdk as an integrator gets it: sdk/ built by its own `tsc -p sdk` into sdk/dist (the
// package's exports), the JavaScript free of .ts import specifiers, imported by name by plain
// node (no TypeScript loader) from a project that installed it, and used against a real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from '../helpers/app.ts';

const sdk = fileURLToPath(new URL('../../sdk/', import.meta.url));
const root = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

test('sdk/ builds into a package plain node imports and uses against the server', async (t) => {
  const pkg = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8'));
  assert.equal(pkg.name, '@lending/sdk');
  assert.equal(pkg.version, root.version);
  assert.equal(pkg.type, 'module');
  assert.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
  assert.deepEqual(Object.keys(pkg.dependencies), ['openapi-fetch']);

  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', join(sdk, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(built.status, 0, built.stdout + built.stderr);
  const js = readdirSync(join(sdk, 'dist')).filter((f) => f.endsWith('.js'));
  assert.ok(
    js.includes('index.js') && readdirSync(join(sdk, 'dist')).includes('index.d.ts'),
    "holds: js.includes('index.js') && readdirSync(join(sdk, 'dist')).includes('index.d.ts')",
  );
  for (const f of js) {
    const text = readFileSync(join(sdk, 'dist', f), 'utf8');
    assert.doesNotMatch(text, /from\s+["'][^"']+\.ts["']/, `${f} imports a .ts file`);
  }

  const h = await build(t);
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = h.app.server.address() as AddressInfo;
  // an integrator's project with the package installed from the repository (npm install ./sdk links it)
  const app = mkdtempSync(join(tmpdir(), 'lending-sdk-user-'));
  t.after(() => rmSync(app, { recursive: true, force: true }));
  mkdirSync(join(app, 'node_modules', '@lending'), { recursive: true });
  symlinkSync(sdk, join(app, 'node_modules', '@lending', 'sdk'), 'dir');
  writeFileSync(join(app, 'package.json'), '{ "type": "module", "private": true }\n');
  writeFileSync(
    join(app, 'main.js'),
    `import { createLendingClient, verifyWebhook } from '@lending/sdk';
import { createHmac } from 'node:crypto';
const api = createLendingClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
for (const dni of ['30000001', '30000002', '30000003']) {
  const r = await api.clients.create({ body: { dni, first_name: 'Ana' } });
  if (r.response.status !== 201) throw new Error(JSON.stringify(r.error));
}
const dnis = [];
for await (const c of api.clients.list({ params: { query: { limit: 2 } } })) dnis.push(c.dni);
const t = Math.floor(Date.now() / 1000);
const body = '{"id":"e1"}';
const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_x').update(t + '.' + body).digest('hex');
console.log(JSON.stringify({ dnis: dnis.sort(), ok: await verifyWebhook(body, header, 'whsec_x'), bad: await verifyWebhook(body + ' ', header, 'whsec_x') }));
`,
  );
  // not spawnSync: the server answering it runs in this process
  const run = await promisify(execFile)(process.execPath, ['main.js', `http://127.0.0.1:${port}`, h.tenant.fullKey], {
    cwd: app,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 60_000,
  });
  assert.deepEqual(JSON.parse(run.stdout), { dnis: ['30000001', '30000002', '30000003'], ok: true, bad: false });
});
