// `npm run chaos -- [--db embedded|postgres|both] [--kills N] [--seed N] [--workers N]
//                   [--postgres-url URL]`
// kill -9 of the real server under a write load with Idempotency-Keys, on each database (see
// scripts/fault/chaos.ts for what is checked). Prints the restart times and the counts; exit 1 on
// any failure, 2 on a usage error.
import { parseArgs } from 'node:util';
import { formatChaosReport, runChaos } from './fault/chaos.ts';
import { dbKinds, defaultPostgresUrl } from './fault/server.ts';
import { freshSeed } from './fault/rng.ts';

process.once('SIGINT', () => process.exit(130));

let args;
try {
  args = parseArgs({
    options: {
      db: { type: 'string', default: 'both' },
      kills: { type: 'string', default: '24' },
      seed: { type: 'string' },
      workers: { type: 'string', default: '4' },
      'postgres-url': { type: 'string' },
    },
  }).values;
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}

const seed = args.seed === undefined ? freshSeed() : Number(args.seed);
const kills = Number(args.kills);
const workers = Number(args.workers);
if (![seed, kills, workers].every(Number.isInteger) || kills < 0 || workers < 1) {
  console.error('--seed, --kills and --workers must be whole numbers (--workers at least 1)');
  process.exit(2);
}
let failed = false;
for (const db of dbKinds(args.db)) {
  const report = await runChaos({
    db,
    postgresUrl: args['postgres-url'] ?? defaultPostgresUrl(),
    seed,
    kills,
    workers,
    log: (line) => console.error(line),
  });
  console.log(formatChaosReport(report));
  if (report.failures.length) failed = true;
}
process.exit(failed ? 1 : 0);
