// The short chaos run of the CI: scripts/fault/chaos.ts (what `npm run chaos` runs) with 2 kill -9
// under write load on the database of this run (embedded, or PostgreSQL with TEST_DB=postgres).
// The embedded restart after a kill waits for the directory lock to go stale:
// the timeout is generous and the figure is printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testDatabaseUrl, testDbKind } from '../helpers/db.ts';
import { formatChaosReport, runChaos } from '../../scripts/fault/chaos.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 24);

test('chaos: 2 kill -9 under write load, no acknowledged write lost or duplicated, ledger and audit intact', {
  timeout: 600_000,
}, async (t) => {
  const db = testDbKind() === 'postgres' ? 'postgres' : 'embedded';
  const report = await runChaos({
    db,
    postgresUrl: db === 'postgres' ? testDatabaseUrl() : '',
    seed: SEED,
    kills: 2,
    workers: 3,
    log: (line) => t.diagnostic(line),
  });
  const text = formatChaosReport(report);
  assert.ok(report.acknowledged.payments + report.acknowledged.credits > 0, text);
  assert.equal(report.failures.length, 0, text);
  for (const line of text.split('\n')) t.diagnostic(line); // the restart times
});
