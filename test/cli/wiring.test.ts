// Commands and jobs are listed where they are used (src/cli/main.ts, src/jobs/index.ts), not
// registered by importing a module for its side effects: importing the server alone, or the
// command line alone, loses none of them. Dynamic imports: the first test sees only what the
// server's own imports bring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { loadConfig } from '../../src/config.ts';

test('the server starts the accrual schedule, the file sweep, the statistics, the idempotency sweep, the webhook and mail deliveries, the payment imports and the refresh of the summary figures', async () => {
  const { serve } = await import('../../src/server.ts');
  const { JOBS } = await import('../../src/jobs/index.ts');
  assert.equal(typeof serve, 'function');
  assert.deepEqual(
    JOBS.map((j) => j.name),
    [
      'accrual',
      'file_sweep',
      'statistics',
      'idempotency_sweep',
      'session_sweep',
      'webhooks',
      'mail',
      'payment_imports',
      'summary_figures',
    ],
  );
});

test('the program built by main.ts has every command', async () => {
  const { buildProgram } = await import('../../src/cli/main.ts');
  const { CliContext } = await import('../../src/cli/context.ts');
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stderrIsTTY: false };
  const ctx = new CliContext(io, loadConfig({ DATA_DIR: '/nonexistent-lending-test' }));
  const program = await buildProgram(ctx);
  const names = program.commands.map((c) => c.name());
  assert.deepEqual(names, [
    'serve',
    'migrate',
    'businesses',
    'keys',
    'operators',
    'users',
    'holidays',
    'demo',
    'accrue',
    'backfill-cost',
    'report',
    'export',
    'files',
    'backup',
    'restore',
  ]);
  // each command's module loads when that command runs
  for (const name of names) await buildProgram(ctx, [name]);
});

test('JOBS=off: the server starts no job (an API-only process)', async () => {
  const { startJobs } = await import('../../src/jobs/index.ts');
  const runs: string[] = [];
  const config = loadConfig({ DATA_DIR: '/nonexistent-lending-test', JOBS: 'off' });
  assert.equal(config.jobs, false);
  assert.equal(loadConfig({ DATA_DIR: '/nonexistent-lending-test' }).jobs, true, 'on unless said');
  assert.throws(() => loadConfig({ DATA_DIR: '/nonexistent-lending-test', JOBS: 'maybe' }), /JOBS=maybe/);
  // no database either: a job that started would fail on it and report its run
  const stop = startJobs({
    db: undefined as never,
    config,
    storage: undefined as never,
    log: { info() {}, error() {} } as never,
    clock: () => new Date(),
    metrics: { job: (name: string) => runs.push(name) } as never,
  });
  await new Promise((r) => setTimeout(r, 200));
  stop();
  assert.deepEqual(runs, []);
});
