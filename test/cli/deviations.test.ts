// Conformance of the command line (docs/cli.md): deviations found by black-box review.
// Each test pins a deviation found by black-box review, now fixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { testDbKind } from '../helpers/db.ts';
import { ROOT, baseEnv, modeEnv, runJson, startServer, tempDataDir } from '../helpers/cli-process.ts';

const embedded = testDbKind() !== 'postgres';

test('fixed deviation (was: lending export, forwarded to a running server, dies with an unhandled EPIPE stack trace when its stdout is closed early (`… | head -1`))', {
  skip: !embedded,
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv({ DATA_DIR: tempDataDir(t), PORT: '0' });
  const server = await startServer(t, env);
  await server.waitFor(/Try:.*\n/);
  const [biz] = await runJson<{ id: string }[]>(['businesses', 'list'], env);
  for (let i = 0; i < 3; i++) {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const p = spawn(process.execPath, ['bin/lending.js', 'export', 'credits', '--business', biz!.id], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      // the reader goes away after the first chunk, as `head -1` does
      p.stdout.once('data', () => p.stdout.destroy());
      p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stderr }));
    });
    assert.doesNotMatch(
      r.stderr,
      /Unhandled 'error' event|node:events|\n\s+at .+:\d+:\d+\)?/,
      `run ${i}: a stack trace on stderr:\n${r.stderr}`,
    );
  }
});

test('fixed deviation (was: lending accrue --json prints money as strings ("punitory_total": "0.00"); docs/api.md: money is JSON numbers)', {
  timeout: 300_000,
}, async (t) => {
  // docs/api.md conventions (contract and extensions alike): "money | JSON numbers with at most 2 decimals"
  const env = baseEnv(modeEnv(t));
  await runJson(['migrate'], env);
  const demo = await runJson<{ business: { id: string } }>(['demo'], env);
  const out = await runJson<{ businesses: { punitory_total: unknown }[] }>(
    ['accrue', '--business', demo.business.id],
    env,
  );
  for (const b of out.businesses) assert.equal(typeof b.punitory_total, 'number', JSON.stringify(b));
});
