// Builds dist/, then runs the whole suite on the embedded database, then again on PostgreSQL when
// TEST_DATABASE_URL is set (the same tests, the same assertions), with Node's test coverage
// mapped onto the .ts sources: a table of src/ files (both runs merged) closes the output, just
// before the "N passed, N failed, N skipped" line CI reads as the last one.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

// the CLI tests spawn bin/lending.js, which runs dist/: build it from the current sources first
// (incremental, quick when nothing changed)
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

// spec to the terminal and the coverage of src/ to a JSON file (test-reporter.mjs), TAP to a file
// whose totals make the closing line
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
const coverage = new Map();
let failed = false;
for (const [i, t] of targets.entries()) {
  console.log(`\n=== test suite on ${t.name} (${selected.length} files) ===`);
  const tap = join(outDir, `${i}.tap`);
  const coverageFile = join(outDir, `${i}.json`);
  const timesFile = join(outDir, `${i}.times.json`);
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--enable-source-maps',
      ...(coverageOn ? ['--experimental-test-coverage'] : []),
      '--test',
      '--test-concurrency=2',
      `--test-reporter=${reporter}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...selected,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, ...t.env, TEST_COVERAGE_FILE: coverageFile, TEST_TIMES_FILE: timesFile },
    },
  );
  if (r.status !== 0) failed = true;
  const text = readFileSync(tap, 'utf8');
  for (const f of tapFailures(text)) failures.push(`[${t.name}] ${f}`);
  if (existsSync(timesFile)) printSlowest(JSON.parse(readFileSync(timesFile, 'utf8')), t.name);
  for (const k of Object.keys(totals)) {
    const m = new RegExp(`^# ${k} (\\d+)$`, 'm').exec(text);
    if (m) totals[k] += Number(m[1]);
  }
  if (existsSync(coverageFile)) mergeCoverage(coverage, JSON.parse(readFileSync(coverageFile, 'utf8')));
}
rmSync(outDir, { recursive: true, force: true });
printCoverage(coverage, targets.map((t) => t.name).join(' + '));
if (failures.length) console.log(`\n=== failures ===\n${failures.join('\n\n')}`);
if (totals.pass + totals.fail === 0) failed = true;
console.log(`\n${totals.pass} passed, ${totals.fail} failed, ${totals.skipped} skipped`);
process.exit(failed ? 1 : 0);

/** The slowest test files of a run (each file's time; two files run at once), to see where CI's time goes. */
function printSlowest(files, name) {
  if (!files.length) return;
  const total = files.reduce((sum, [, ms]) => sum + ms, 0);
  files.sort((a, b) => b[1] - a[1]);
  console.log(`\n=== slowest files on ${name} (all files: ${(total / 1000).toFixed(0)} s) ===`);
  for (const [file, ms] of files.slice(0, 12)) console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
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
    out.push(`${m[2]} (${location.replace(process.cwd() + '/', '')})\n    ${lines8.slice(0, 1500)}`);
  }
  return out;
}

// Per src/ file: hits per line, per branch and per function, summed over the runs (what either
// run executed is covered). Branches and functions come in the same order from every run.
function mergeCoverage(into, files) {
  const add = (map, key, hits) => map.set(key, (map.get(key) ?? 0) + hits);
  for (const f of files) {
    if (!into.has(f.file)) into.set(f.file, { lines: new Map(), branches: new Map(), functions: new Map() });
    const c = into.get(f.file);
    for (const l of f.lines) add(c.lines, l.line, l.count);
    f.branches.forEach((b, i) => add(c.branches, `${i}:${b.line}`, b.count));
    f.functions.forEach((fn, i) => add(c.functions, `${i}:${fn.line}`, fn.count));
  }
}

function printCoverage(coverage, runs) {
  if (coverage.size === 0) return;
  const count = (m) => [[...m.values()].filter((h) => h > 0).length, m.size];
  const pct = ([hit, all]) => (all ? ((100 * hit) / all).toFixed(2) : '100.00').padStart(11);
  const width = Math.max(...[...coverage.keys()].map((f) => f.length));
  const sum = { lines: [0, 0], branches: [0, 0], functions: [0, 0] };
  const row = (name, c) => `${name.padEnd(width)} ${pct(c.lines)} ${pct(c.branches)} ${pct(c.functions)}`;
  console.log(`\n=== coverage of src/ (${runs}) ===`);
  console.log(
    `${'file'.padEnd(width)} ${'lines %'.padStart(11)} ${'branches %'.padStart(11)} ${'functions %'.padStart(11)}`,
  );
  for (const [file, c] of [...coverage].sort(([a], [b]) => a.localeCompare(b))) {
    const counts = { lines: count(c.lines), branches: count(c.branches), functions: count(c.functions) };
    for (const k of Object.keys(sum)) sum[k] = sum[k].map((v, j) => v + counts[k][j]);
    console.log(row(file, counts));
  }
  console.log(row('all files', sum));
}
