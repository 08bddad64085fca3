import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  isValidDate,
  addDays,
  daysBetween,
  addMonthsClamped,
  compareDates,
  todayIn,
  isValidTimeZone,
  lastMonthEnd,
} from '../../src/domain/index.ts';

test('isValidDate', () => {
  assert.equal(isValidDate('2024-02-29'), true);
  assert.equal(isValidDate('2000-02-29'), true);
  assert.equal(isValidDate('2023-02-29'), false);
  assert.equal(isValidDate('1900-02-29'), false);
  assert.equal(isValidDate('2024-13-01'), false);
  assert.equal(isValidDate('2024-04-31'), false);
  assert.equal(isValidDate('2024-1-01'), false);
  assert.equal(isValidDate('2024-01-01T00:00:00Z'), false);
  assert.equal(isValidDate(20240101), false);
});

test('addDays / daysBetween across month, year and leap day', () => {
  assert.equal(addDays('2024-02-28', 1), '2024-02-29');
  assert.equal(addDays('2024-02-29', 1), '2024-03-01');
  assert.equal(addDays('2023-12-31', 1), '2024-01-01');
  assert.equal(addDays('2024-01-01', -1), '2023-12-31');
  assert.equal(daysBetween('2024-01-01', '2024-12-31'), 365);
  assert.equal(daysBetween('2024-03-01', '2024-02-28'), -2);
});

test('addMonthsClamped keeps the day or takes the month end', () => {
  assert.equal(addMonthsClamped('2024-01-31', 1), '2024-02-29');
  assert.equal(addMonthsClamped('2023-01-31', 1), '2023-02-28');
  assert.equal(addMonthsClamped('2024-01-31', 2), '2024-03-31');
  assert.equal(addMonthsClamped('2024-01-31', 3), '2024-04-30');
  assert.equal(addMonthsClamped('2024-11-30', 3), '2025-02-28');
  assert.equal(addMonthsClamped('2024-03-31', -1), '2024-02-29');
  assert.equal(addMonthsClamped('2024-01-15', 12), '2025-01-15');
});

test('compareDates', () => {
  assert.equal(compareDates('2024-01-01', '2024-01-02'), -1);
  assert.equal(compareDates('2024-01-02', '2024-01-02'), 0);
  assert.equal(compareDates('2025-01-01', '2024-12-31'), 1);
});

test('todayIn uses the business time zone', () => {
  const now = new Date('2024-01-01T02:00:00Z');
  assert.equal(todayIn('UTC', now), '2024-01-01');
  assert.equal(todayIn('America/Argentina/Buenos_Aires', now), '2023-12-31'); // UTC−3
  assert.equal(todayIn('Asia/Tokyo', new Date('2023-12-31T16:00:00Z')), '2024-01-01'); // UTC+9
  assert.throws(() => todayIn('Mars/Olympus', now), RangeError);
});

test('isValidTimeZone accepts IANA names only', () => {
  assert.equal(isValidTimeZone('UTC'), true);
  assert.equal(isValidTimeZone('America/New_York'), true);
  assert.equal(isValidTimeZone('Mars/Olympus'), false);
  assert.equal(isValidTimeZone(''), false);
  assert.equal(isValidTimeZone('+05:00'), false);
  assert.equal(isValidTimeZone(undefined), false);
});

test('property: date arithmetic agrees with Date.UTC', () => {
  const day = 86_400_000;
  fc.assert(
    fc.property(fc.integer({ min: -25_000, max: 60_000 }), fc.integer({ min: -3000, max: 3000 }), (n, delta) => {
      const d = new Date(n * day).toISOString().slice(0, 10);
      const e = new Date((n + delta) * day).toISOString().slice(0, 10);
      assert.equal(isValidDate(d), true);
      assert.equal(addDays(d, delta), e);
      assert.equal(daysBetween(d, e), delta);
    }),
  );
});

test('lastMonthEnd: the last day of the most recent month that has ended', () => {
  assert.equal(lastMonthEnd('2024-03-15'), '2024-02-29');
  assert.equal(lastMonthEnd('2024-03-01'), '2024-02-29'); // on the 1st, February has just ended
  assert.equal(lastMonthEnd('2024-03-31'), '2024-02-29'); // March has not ended on its last day
  assert.equal(lastMonthEnd('2023-03-10'), '2023-02-28');
  assert.equal(lastMonthEnd('2025-01-01'), '2024-12-31');
  assert.equal(lastMonthEnd('2024-12-31'), '2024-11-30');
});
