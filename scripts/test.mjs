// Runs the whole suite on the embedded database, then again on PostgreSQL when
// TEST_DATABASE_URL is set (the same tests, the same assertions).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const files = readdirSync('test', { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`)
  .sort();
const only = process.argv.slice(2);
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;

const targets = [{ name: 'embedded (PGlite)', env: { TEST_DB: 'pglite' } }];
if (process.env.TEST_DATABASE_URL) targets.push({ name: 'PostgreSQL', env: { TEST_DB: 'postgres' } });

let failed = false;
for (const t of targets) {
  console.log(`\n=== test suite on ${t.name} (${selected.length} files) ===`);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...selected],
    { stdio: 'inherit', env: { ...process.env, ...t.env } },
  );
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
