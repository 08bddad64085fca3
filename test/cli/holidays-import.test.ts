// `lending holidays import`: a country's national holidays of a year, from the date-holidays
// package, added to one business or to every one, never twice (a date the business has is skipped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseEnv, modeEnv, run, runJson } from '../helpers/cli-process.ts';

interface Imported {
  business_id: string;
  added: { date: string; name: string }[];
  skipped: { date: string; name: string }[];
}

// Argentina's national (public) holidays of 2027 as the package gives them: 16 dates
const AR_2027 = [
  '2027-01-01',
  '2027-02-08',
  '2027-02-09',
  '2027-03-24',
  '2027-03-26',
  '2027-04-02',
  '2027-05-01',
  '2027-05-25',
  '2027-06-20',
  '2027-06-21',
  '2027-07-09',
  '2027-08-16',
  '2027-10-11',
  '2027-11-20',
  '2027-12-08',
  '2027-12-25',
];

test('holidays import adds the national holidays once, skips the dates already there, to one business or every one', {
  timeout: 300_000,
}, async (t) => {
  const env = baseEnv(modeEnv(t));
  const a = await runJson(['businesses', 'create', '--name', `Feriados A ${Date.now()}`], env);
  const b = await runJson(['businesses', 'create', '--name', `Feriados B ${Date.now()}`], env);

  const first = await runJson<Imported[]>(
    ['holidays', 'import', '--country', 'AR', '--year', '2027', '--business', a.id],
    env,
  );
  assert.equal(first.length, 1);
  assert.equal(first[0]!.business_id, a.id);
  assert.deepEqual(
    first[0]!.added.map((h) => h.date),
    AR_2027,
  );
  assert.deepEqual(first[0]!.skipped, []);
  const navidad = first[0]!.added.find((h) => h.date === '2027-12-25')!;
  assert.equal(navidad.name, 'Navidad');
  // Holy Thursday is a bank holiday in the package, not a national one
  assert.ok(
    !first[0]!.added.some((h) => h.date === '2027-03-25'),
    "holds: !first[0].added.some((h) => h.date === '2027-03-25')",
  );

  // again, for every business: a has them all (skipped), b gets them all; the human form says so
  const human = await run(['holidays', 'import', '--country', 'ar', '--year', '2027'], env);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`\\(${a.id}\\): 0 added, 16 skipped`));
  assert.match(human.stdout, new RegExp(`\\(${b.id}\\): 16 added, 0 skipped`));
  assert.match(human.stdout, /skipped {2}2027-12-25 {2}Navidad \(already a holiday\)/);
  assert.match(human.stdout, /added {4}2027-07-09 {2}Día de la Independencia/);

  const again = await runJson<Imported[]>(
    ['holidays', 'import', '--country', 'AR', '--year', '2027', '--business', b.id],
    env,
  );
  assert.deepEqual(again[0]!.added, []);
  assert.deepEqual(
    again[0]!.skipped.map((h) => h.date),
    AR_2027,
  );

  // bad input: a usage error, nothing imported
  for (const args of [
    ['holidays', 'import', '--country', 'ZZ', '--year', '2027', '--business', a.id],
    ['holidays', 'import', '--country', 'Argentina', '--year', '2027'],
    ['holidays', 'import', '--country', 'AR', '--year', 'next'],
    ['holidays', 'import', '--country', 'AR', '--year', '2027', '--business', 'nope'],
    ['holidays', 'import', '--year', '2027'],
  ]) {
    const r = await run(args, env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.code} ${r.stderr}`);
    assert.match(r.stderr, /^error: /m, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
  const unknown = await run(
    ['holidays', 'import', '--country', 'AR', '--year', '2027', '--business', '00000000-0000-4000-8000-000000000000'],
    env,
  );
  assert.equal(unknown.code, 2, unknown.stderr);
});
