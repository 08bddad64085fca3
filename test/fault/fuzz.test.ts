// The short fuzz of the CI: scripts/fault/fuzz.ts (what `npm run fuzz` runs) with ~300 requests on
// the database of this run (embedded, or PostgreSQL with TEST_DB=postgres). A fixed seed, so a
// failure here replays with `npm run fuzz -- --db <db> --seed <seed> --count 300`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testDatabaseUrl, testDbKind } from '../helpers/db.ts';
import { blocking, formatFuzzReport, runFuzz } from '../../scripts/fault/fuzz.ts';

/**
 * Whether a status a route answers but the OpenAPI document does not declare fails the suite
 * (the service declares them all; false turns them into warnings).
 */
const STRICT_DECLARED_STATUSES = true;

const SEED = Number(process.env.FUZZ_SEED ?? 10);
const COUNT = 300;

test(`fuzz: ${COUNT} requests from the OpenAPI document, no 5xx, Error bodies, declared schemas, refused writes write nothing`, {
  timeout: 600_000,
}, async (t) => {
  const db = testDbKind() === 'postgres' ? 'postgres' : 'embedded';
  const report = await runFuzz({
    db,
    postgresUrl: db === 'postgres' ? testDatabaseUrl() : '',
    seed: SEED,
    count: COUNT,
    log: (line) => t.diagnostic(line),
  });
  const text = formatFuzzReport(report, !STRICT_DECLARED_STATUSES);
  assert.equal(report.requests, COUNT);
  assert.equal(blocking(report, !STRICT_DECLARED_STATUSES).length, 0, text);
  for (const line of text.split('\n')) t.diagnostic(line); // the warnings
});
