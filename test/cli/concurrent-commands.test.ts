import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseEnv, modeEnv, run, runJson } from '../helpers/cli-process.ts';

test('commands started at the same moment on one data directory all succeed (the lock is waited for)', {
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv(modeEnv(t));
  const names = ['Concurrent A', 'Concurrent B', 'Concurrent C'];
  const results = await Promise.all(names.map((n) => run(['businesses', 'create', '--name', n, '--json'], env)));
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const listed = await runJson<{ name: string }[]>(['businesses', 'list'], env);
  for (const n of names)
    assert.ok(
      listed.some((b) => b.name === n),
      `${n} listed`,
    );
});
