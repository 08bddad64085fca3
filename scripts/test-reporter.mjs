// The reporter scripts/test.mjs runs the suite with: spec on the terminal, and each test file's
// time to the JSON file $TEST_TIMES_FILE, for the "slowest files" table test.mjs prints after
// every run.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';
import { sourceOf } from './test-bundles.mjs';

export default async function* specWithTimes(source) {
  // each file's time: the sum of its top-level tests (Node 20's TAP does not name files)
  const times = new Map();
  async function* events() {
    for await (const e of source) {
      if ((e.type === 'test:pass' || e.type === 'test:fail') && e.data.nesting === 0 && e.data.file) {
        // a bundle (scripts/test-bundles.mjs) is named by its source file
        const file = sourceOf(relative(process.cwd(), e.data.file));
        times.set(file, (times.get(file) ?? 0) + (e.data.details?.duration_ms ?? 0));
      }
      yield e;
    }
  }
  yield* Readable.from(events()).pipe(new spec());
  if (process.env.TEST_TIMES_FILE) writeFileSync(process.env.TEST_TIMES_FILE, JSON.stringify([...times]));
}
