// The reporter scripts/test.mjs runs the suite with: spec on the terminal without Node's coverage
// table (it lists test files too, and Node 20 cannot leave them out); the coverage of src/ goes
// to the JSON file $TEST_COVERAGE_FILE instead, for the table test.mjs prints after every run.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';

function saveCoverage({ workingDirectory, files }) {
  const src = files
    .map(({ path, lines, branches, functions }) => ({
      file: relative(workingDirectory, path),
      lines,
      branches,
      functions,
    }))
    .filter((f) => f.file.startsWith('src/'));
  writeFileSync(process.env.TEST_COVERAGE_FILE, JSON.stringify(src));
}

export default async function* specWithoutCoverage(source) {
  // each file's time: the sum of its top-level tests (Node 20's TAP does not name files)
  const times = new Map();
  async function* events() {
    for await (const e of source) {
      if ((e.type === 'test:pass' || e.type === 'test:fail') && e.data.nesting === 0 && e.data.file) {
        const file = relative(process.cwd(), e.data.file);
        times.set(file, (times.get(file) ?? 0) + (e.data.details?.duration_ms ?? 0));
      }
      if (e.type !== 'test:coverage') yield e;
      else if (process.env.TEST_COVERAGE_FILE) saveCoverage(e.data.summary);
    }
  }
  yield* Readable.from(events()).pipe(new spec());
  if (process.env.TEST_TIMES_FILE) writeFileSync(process.env.TEST_TIMES_FILE, JSON.stringify([...times]));
}
