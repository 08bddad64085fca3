// Builds dist/, then runs the whole suite on the embedded database, then again on PostgreSQL when
// TEST_DATABASE_URL is set (the same tests, the same assertions), with V8's coverage of every test
// process mapped onto the .ts sources by c8: a table of src/ files (both runs merged) closes the
// output, just before the "N passed, N failed, N skipped" line CI reads as the last one.
// Not Node's --experimental-test-coverage: on Node 20 its merge of source-mapped files across
// processes loses lines (a function called in one process shows uncovered), so its table was low.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Report } from 'c8';
import { bundleTests, sourceOf } from './test-bundles.mjs';

const files = readdirSync('test', { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`)
  .sort();
const only = process.argv.slice(2);
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;

// the CLI tests spawn bin/lending.js, which runs dist/: build it from the current sources first
// (incremental, quick when nothing changed)
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
// the test processes load JavaScript: each test file bundled, the service from dist/ (scripts/test-bundles.mjs)
const bundles = await bundleTests(selected);

// spec to the terminal (test-reporter.mjs), TAP to a file whose totals make the closing line, and
// the raw V8 coverage of every process (the test files' and the ones they spawn) to one directory
const outDir = mkdtempSync(join(tmpdir(), 'lending-test-'));

// the migrated empty database the build wrote (scripts/empty-database.mjs): each test process
// starts its in-memory database as a copy of it instead of an initdb
const image = join(process.cwd(), 'dist/db/empty-database.tar.gz');

const targets = [{ name: 'embedded (PGlite)', env: { TEST_DB: 'pglite', TEST_PGLITE_IMAGE: image } }];
if (process.env.TEST_DATABASE_URL) targets.push({ name: 'PostgreSQL', env: { TEST_DB: 'postgres' } });

// TEST_COVERAGE=0 skips Node's coverage (CI's second Node runs the same suite only to prove the
// runtime: the coverage table of the first run is the one that counts, and collecting it costs time)
const coverageOn = process.env.TEST_COVERAGE !== '0';
const reporter = new URL('./test-reporter.mjs', import.meta.url).href;
const totals = { pass: 0, fail: 0, skipped: 0 };
/** the failures of each run, shown again at the very end, where a CI log's tail shows them */
const failures = [];
const v8Dir = join(outDir, 'v8');
let failed = false;
for (const [i, t] of targets.entries()) {
  console.log(`\n=== test suite on ${t.name} (${selected.length} files) ===`);
  const tap = join(outDir, `${i}.tap`);
  const timesFile = join(outDir, `${i}.times.json`);
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      '--enable-source-maps',
      '--test',
      '--test-concurrency=2',
      `--test-reporter=${reporter}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...bundles,
    ],
    {
      stdio: 'inherit',
      env: {
        ...process.env,
        ...t.env,
        ...(coverageOn ? { NODE_V8_COVERAGE: v8Dir } : {}),
        TEST_TIMES_FILE: timesFile,
      },
    },
  );
  if (r.status !== 0) failed = true;
  const text = readFileSync(tap, 'utf8');
  for (const f of tapFailures(text)) failures.push(`[${t.name}] ${f}`);
  const wallS = (Date.now() - started) / 1000;
  if (existsSync(timesFile)) printSlowest(JSON.parse(readFileSync(timesFile, 'utf8')), t.name, wallS);
  for (const k of Object.keys(totals)) {
    const m = new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text);
    if (m) totals[k] += Number(m[1]);
  }
}
if (coverageOn && existsSync(v8Dir)) await printCoverage(v8Dir, targets.map((t) => t.name).join(' + '));
rmSync(outDir, { recursive: true, force: true });
if (failures.length) console.log(`\n=== failures ===\n${failures.join('\n\n')}`);
if (totals.pass + totals.fail === 0) failed = true;
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);

/**
 * The slowest test files of a run (each file's tests' time, without its process's start; two files
 * run at once) and the run's wall time, to see where CI's time goes.
 */
function printSlowest(files, name, wallS) {
  if (!files.length) return;
  const total = files.reduce((sum, [, ms]) => sum + ms, 0);
  files.sort((a, b) => b[1] - a[1]);
  console.log(
    `\n=== slowest files on ${name} (the run: ${wallS.toFixed(0)} s; all files' tests: ${(total / 1000).toFixed(0)} s) ===`,
  );
  for (const [file, ms] of files.slice(0, 25)) console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
}

/**
 * Each failed test of a TAP report: its name, where it is and its error (the first lines), without
 * the files' own "subtests failed" entries.
 */
function tapFailures(text) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
    if (!m) continue;
    const block = [];
    for (let j = i + 1; j < lines.length && lines[j] !== `${m[1]}  ...`; j++) block.push(lines[j]);
    const yaml = block.join('\n');
    if (/failureType: 'subtestsFailed'/.test(yaml)) continue;
    const location = /location: '([^']*)'/.exec(yaml)?.[1] ?? '';
    const error =
      /\n\s*error: \|-\n([\s\S]*?)\n\s*(?:code|name|failureType|stack|expected|actual|operator|cause):/.exec(
        yaml,
      )?.[1] ??
      /error: (.*)/.exec(yaml)?.[1] ??
      '';
    const lines8 = error
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(0, 8)
      .join('\n    ');
    out.push(`${m[2]} (${sourceOf(location)})\n    ${lines8.slice(0, 1500)}`);
  }
  return out;
}

/** The coverage of src/ (every file, loaded or not) over all the runs' processes, as c8's table. */
async function printCoverage(dir, runs) {
  console.log(`\n=== coverage of src/ (${runs}) ===`);
  const report = Report({
    tempDirectory: dir,
    reportsDirectory: join(outDir, 'report'),
    reporter: ['text'],
    // the service runs from dist/ (compiled with inline source maps, in the test processes and
    // in the commands they spawn): its scripts are let in, and their coverage lands on the src/
    // lines they map to; the test bundles' and the console's scripts are not the service
    include: ['src/**', 'dist/**'],
    exclude: ['dist/bundles/**', 'dist/console/**'],
    extension: ['.ts', '.js'],
    all: true,
    src: [process.cwd()],
    excludeNodeModules: true,
    // one process's coverage at a time: hundreds of processes' files do not fit in memory at once
    mergeAsync: true,
  });
  // the table informs; a failure to draw it must not fail the suite
  const started = Date.now();
  await report.run().catch((err) => console.log(`coverage table not drawn: ${err?.stack ?? err}`));
  console.log(`(coverage table drawn in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
