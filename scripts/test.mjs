// Runs the whole suite on the embedded database, then again on PostgreSQL when
// TEST_DATABASE_URL is set (the same tests, the same assertions).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const files = readdirSync('test', { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`)
  .sort();
const only = process.argv.slice(2);
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;

const targets = [{ name: 'embedded (PGlite)', env: { TEST_DB: 'pglite' } }];
if (process.env.TEST_DATABASE_URL) targets.push({ name: 'PostgreSQL', env: { TEST_DB: 'postgres' } });

// spec to the terminal, TAP to a file whose totals make the closing "N passed, N failed" line
const tapDir = mkdtempSync(join(tmpdir(), 'lending-tap-'));
const totals = { pass: 0, fail: 0, skipped: 0 };
let failed = false;
for (const [i, t] of targets.entries()) {
  console.log(`\n=== test suite on ${t.name} (${selected.length} files) ===`);
  const tap = join(tapDir, `${i}.tap`);
  const r = spawnSync(
    process.execPath,
    [
      '--import', 'tsx', '--test', '--test-concurrency=2',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=tap', `--test-reporter-destination=${tap}`,
      ...selected,
    ],
    { stdio: 'inherit', env: { ...process.env, ...t.env } },
  );
  if (r.status !== 0) failed = true;
  const text = readFileSync(tap, 'utf8');
  for (const k of Object.keys(totals)) {
    const m = new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text);
    if (m) totals[k] += Number(m[1]);
  }
}
rmSync(tapDir, { recursive: true, force: true });
if (totals.pass + totals.fail === 0) failed = true;
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);
