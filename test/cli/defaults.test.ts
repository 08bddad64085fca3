// What the command line does when not told: `lending --version`, a business's time zone, and
// DEMO=false on an empty embedded data directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDbKind } from '../helpers/db.ts';
import { ROOT, baseEnv, modeEnv, run, runJson, startServer, tempDataDir } from '../helpers/cli-process.ts';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

test('lending --version and -v print the package version', async (t) => {
  const env = baseEnv({ DATA_DIR: tempDataDir(t) });
  for (const flag of ['--version', '-v']) {
    const r = await run([flag], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${version}\n`);
  }
  assert.match((await run(['--help'], env)).stdout, /-v, --version/);
});

test('businesses create: UTC (DOMAIN.md) with a note when no --timezone is given, the one given otherwise', {
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv(modeEnv(t));
  const r = await run(['businesses', 'create', '--name', `Sin zona ${Date.now()}`, '--json'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).timezone, 'UTC');
  assert.match(r.stderr, /note: no --timezone given: .*UTC/);

  const given = await run(
    [
      'businesses',
      'create',
      '--name',
      `Con zona ${Date.now()}`,
      '--timezone',
      'America/Argentina/Buenos_Aires',
      '--json',
    ],
    env,
  );
  assert.equal(given.code, 0, given.stderr);
  assert.equal(JSON.parse(given.stdout).timezone, 'America/Argentina/Buenos_Aires');
  assert.equal(given.stderr, '');
});

test('DEMO=false: serve on an empty embedded data directory creates no demo business and says how to make one', {
  skip: testDbKind() === 'postgres',
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv({ DATA_DIR: tempDataDir(t), PORT: '0', DEMO: 'false' });
  const server = await startServer(t, env);
  await server.waitFor(/No business yet.*\n/);
  assert.doesNotMatch(server.output(), /demo business|lk_full_/);
  assert.deepEqual(await runJson(['businesses', 'list'], env), []);
});

test('DEMO must be true or false', async (t) => {
  const r = await run(['businesses', 'list'], baseEnv({ DATA_DIR: tempDataDir(t), DEMO: 'no' }));
  assert.equal(r.code, 78);
  assert.match(r.stderr, /DEMO=no is not true or false/);
});
