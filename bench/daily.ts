// The daily run on an ordinary day (the target: under 5 s on the bench book, docs/benchmarks.md): the day the book was
// built for, when every credit is posted through the day before, so the month close has nothing to
// post. What is left is finding that out: the candidates of the close (from the unpaid
// installments due, minus the credits credit_accruals says are closed through the last month end)
// and of the automatic write-off.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/lending_bench npm run bench -- daily [--runs 5] [--json]
//
// Needs the bench book (npm run bench -- book). The run is the one the server's scheduler calls
// (src/services/accrual.ts), in this process, on a clock set to book.built_for. A first run may
// write off the few credits that reach write_off_days that very day (the book leaves them active):
// it is shown and not timed. Then --runs timed runs, and the same number of runs of the candidate
// statements alone through one bare connection (the database's ceiling for a day with nothing to do).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { benchUrl, databaseName, requireBook, withClient } from './lib/db.ts';
import { candidatesCeiling, fmtMs, median, overdueInstallments, perSecond, timedRun } from './lib/run.ts';
import { lastMonthEnd } from '../src/domain/index.ts';

const { values: o } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: 'string', default: '5' }, json: { type: 'boolean', default: false } },
});
const runs = Number(o.runs);
if (!Number.isInteger(runs) || runs < 1 || runs > 100) {
  console.error('--runs must be a whole number from 1 to 100');
  process.exit(2);
}
const url = benchUrl();
const book = await requireBook(url);
const day = book.built_for;
const close = lastMonthEnd(day);
const load = loadavg()[0]!;
const overdue = await withClient(url, (c) => overdueInstallments(c, book, day));
console.log(
  `bench daily: the daily run on ${day} (an ordinary day: the month close through ${close} is done) on ${databaseName(url)} (scale ${book.scale}); ${overdue} overdue installments; load average ${load.toFixed(2)}`,
);

const first = await timedRun(url, book, day);
console.log(
  `first run (not timed): ${JSON.stringify({ ...first.result, ms: Math.round(first.ms) })}${first.reported.length ? `; reported ${first.reported.join(', ')}` : ''}`,
);
const times: number[] = [];
let posted = 0;
for (let k = 0; k < runs; k++) {
  const r = await timedRun(url, book, day);
  times.push(r.ms);
  posted += r.result.punitory_entries + r.result.credits_accrued + r.result.written_off;
}
const ceilings: number[] = [];
for (let k = 0; k < runs; k++) ceilings.push(await candidatesCeiling(url, book, day));

const app = median(times);
const db = median(ceilings);
console.log('');
console.log(`${'work'.padEnd(44)} ${'median'.padStart(9)} ${'installments/s'.padStart(15)}   app/ceiling`);
console.log(
  `${'app: the daily run (accrueBusiness)'.padEnd(44)} ${fmtMs(app).padStart(9)} ${perSecond(overdue, app).toLocaleString('en').padStart(15)}`,
);
console.log(
  `${'db: its candidate statements, one connection'.padEnd(44)} ${fmtMs(db).padStart(9)} ${perSecond(overdue, db).toLocaleString('en').padStart(15)}   ${`${((100 * db) / app).toFixed(1)} %`.padStart(11)}`,
);
console.log(`\napp runs: ${times.map(fmtMs).join(', ')}; ceiling runs: ${ceilings.map(fmtMs).join(', ')}`);
if (o.json)
  console.log(
    JSON.stringify({
      bench: 'daily',
      database: databaseName(url),
      scale: book.scale,
      day,
      overdue_installments: overdue,
      load_average: Math.round(load * 100) / 100,
      app_ms: Math.round(app),
      ceiling_ms: Math.round(db),
      installments_per_s: perSecond(overdue, app),
      runs: times.map(Math.round),
    }),
  );
if (posted > 0) {
  console.error(`the timed runs wrote something (${posted}): the book was not on an ordinary day`);
  process.exitCode = 1;
}
