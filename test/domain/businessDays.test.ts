import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  addDays,
  daysBetween,
  datesReaching,
  isBusinessDay,
  isWeekend,
  nextBusinessDay,
  toleranceDays,
} from '../../src/domain/index.ts';

const none = new Set<string>();
// a date from 2000 to 2040, and holidays near it
const date = fc.integer({ min: 0, max: 14_600 }).map((n) => addDays('2000-01-01', n));
const holidaysNear = (d: string) =>
  fc
    .uniqueArray(fc.integer({ min: -15, max: 15 }), { maxLength: 12 })
    .map((ns) => new Set(ns.map((n) => addDays(d, n))));
const withHolidays = date.chain((d) => holidaysNear(d).map((h) => ({ d, h })));

test('weekends, holidays and the tolerance of a due date', () => {
  // 2026-03-07 is a Saturday, 2026-03-09 a Monday
  assert.deepEqual(['2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09'].map(isWeekend), [
    false,
    false,
    true,
    true,
    false,
  ]);
  assert.equal(isWeekend('1970-01-01'), false); // a Thursday
  assert.equal(isWeekend('0001-01-06'), true); // a Saturday (proleptic Gregorian)
  assert.equal(nextBusinessDay('2026-03-07', none), '2026-03-09');
  assert.equal(toleranceDays('2026-03-07', none), 2);
  assert.equal(toleranceDays('2026-03-08', none), 1);
  assert.equal(toleranceDays('2026-03-06', none), 0);
  const carnival = new Set(['2026-02-16', '2026-02-17']); // Monday and Tuesday
  assert.equal(isBusinessDay('2026-02-16', carnival), false);
  assert.equal(nextBusinessDay('2026-02-14', carnival), '2026-02-18');
  assert.equal(toleranceDays('2026-02-14', carnival), 4);
  assert.equal(toleranceDays('2026-02-17', carnival), 1);
  assert.equal(toleranceDays('2026-02-18', carnival), 0);
  // a Saturday due date reaches a Monday holiday; so do the Sunday and the holiday itself
  assert.deepEqual(datesReaching('2026-03-09', none), ['2026-03-07', '2026-03-08', '2026-03-09']);
  assert.deepEqual(datesReaching('2026-02-17', carnival), ['2026-02-14', '2026-02-15', '2026-02-16', '2026-02-17']);
  assert.deepEqual(datesReaching('2026-03-11', none), ['2026-03-11']);
});

test('property: the next business day is the first business day from the date on', () => {
  fc.assert(
    fc.property(withHolidays, ({ d, h }) => {
      const next = nextBusinessDay(d, h);
      const t = toleranceDays(d, h);
      assert.equal(daysBetween(d, next), t);
      assert.ok(t >= 0, 'holds: t >= 0');
      assert.equal(isBusinessDay(next, h), true);
      for (let i = 0; i < t; i++) assert.equal(isBusinessDay(addDays(d, i), h), false);
      assert.equal(t === 0, isBusinessDay(d, h));
      // a day that is not a business day waits one day more than the next one
      if (t > 0) assert.equal(toleranceDays(addDays(d, 1), h), t - 1);
    }),
  );
});

test('property: without holidays only Saturday (2) and Sunday (1) have a tolerance; holidays never shorten it', () => {
  fc.assert(
    fc.property(withHolidays, ({ d, h }) => {
      assert.equal(toleranceDays(d, none), isWeekend(d) ? (isWeekend(addDays(d, 1)) ? 2 : 1) : 0);
      assert.ok(toleranceDays(d, h) >= toleranceDays(d, none), 'holds: toleranceDays(d, h) >= toleranceDays(d, none)');
      assert.ok(toleranceDays(d, h) <= h.size + 2, 'holds: toleranceDays(d, h) <= h.size + 2');
    }),
  );
});

test('property: a holiday added or removed changes the tolerance of the dates reaching it, and of no other', () => {
  fc.assert(
    fc.property(withHolidays, fc.integer({ min: -10, max: 10 }), ({ d, h }, k) => {
      const day = addDays(d, k);
      const added = new Set([...h, day]);
      const removed = new Set([...h].filter((x) => x !== day));
      const reach = new Set(datesReaching(day, removed));
      assert.deepEqual(datesReaching(day, added), [...reach]); // the same whether day is a holiday or not
      for (let i = -25; i <= 25; i++) {
        const x = addDays(d, i);
        if (!reach.has(x)) assert.equal(toleranceDays(x, added), toleranceDays(x, removed), x);
      }
      // the reaching dates are day and the run of non-business days just before it
      const first = [...reach][0]!;
      assert.equal(isBusinessDay(addDays(first, -1), removed), true);
    }),
  );
});

test("the calendar's ends: nothing before 0001-01-01, nothing after 9999-12-31", () => {
  // 9999-12-31 is a Friday; as a holiday, the days up to it have no business day after them
  const last = new Set(['9999-12-31']);
  assert.equal(isWeekend('9999-12-31'), false);
  assert.equal(nextBusinessDay('9999-12-31', last), '9999-12-31');
  assert.equal(toleranceDays('9999-12-31', last), 0);
  assert.equal(toleranceDays('9999-12-30', new Set(['9999-12-30', '9999-12-31'])), 1);
  // 0001-01-01 is a Monday: as a holiday it reaches no earlier day
  assert.equal(isWeekend('0001-01-01'), false);
  assert.deepEqual(datesReaching('0001-01-01', new Set(['0001-01-01'])), ['0001-01-01']);
  assert.deepEqual(datesReaching('0001-01-02', new Set(['0001-01-01'])), ['0001-01-01', '0001-01-02']);
});
