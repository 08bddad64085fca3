// `npm run fuzz -- [--db embedded|postgres|both] [--seed N] [--count N] [--allow-undeclared]
//                  [--postgres-url URL] [--timeout MS]`
// Fuzzes the real server from its own OpenAPI document on each database (see scripts/fault/fuzz.ts
// for what is checked). Exit 1 on any failure (undeclared statuses only warn with
// --allow-undeclared), 2 on a usage error. PostgreSQL: a fresh database is created next to
// --postgres-url (default TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres).
import { parseArgs } from 'node:util';
import { blocking, formatFuzzReport, runFuzz } from './fault/fuzz.ts';
import { dbKinds, defaultPostgresUrl } from './fault/server.ts';
import { freshSeed } from './fault/rng.ts';

process.once('SIGINT', () => process.exit(130));

let args;
try {
  args = parseArgs({
    options: {
      db: { type: 'string', default: 'both' },
      seed: { type: 'string' },
      count: { type: 'string', default: '3000' },
      'allow-undeclared': { type: 'boolean', default: false },
      'postgres-url': { type: 'string' },
      timeout: { type: 'string', default: '15000' },
    },
  }).values;
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}

const seed = args.seed === undefined ? freshSeed() : Number(args.seed);
const count = Number(args.count);
if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
  console.error('--seed and --count must be whole numbers (--count at least 1)');
  process.exit(2);
}
const allowUndeclared = args['allow-undeclared'];
let failed = false;
for (const db of dbKinds(args.db)) {
  const report = await runFuzz({
    db,
    postgresUrl: args['postgres-url'] ?? defaultPostgresUrl(),
    seed,
    count,
    timeoutMs: Number(args.timeout),
    log: (line) => console.error(line),
  });
  console.log(formatFuzzReport(report, allowUndeclared));
  if (blocking(report, allowUndeclared).length) failed = true;
}
process.exit(failed ? 1 : 0);
