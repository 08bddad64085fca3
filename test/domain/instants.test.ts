// RFC 3339 instants in requests (updated_since): brought to UTC to the microsecond, exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInstant } from '../../src/domain/instants.ts';

test('an instant with any offset is the same UTC instant, to the microsecond; a finer fraction excludes its microsecond', () => {
  const cases: [string, string, boolean][] = [
    ['2026-01-15T13:02:00Z', '2026-01-15T13:02:00.000000Z', false],
    ['2026-01-15t10:02:00.25-03:00', '2026-01-15T13:02:00.250000Z', false],
    ['2026-01-15T00:30:00+05:45', '2026-01-14T18:45:00.000000Z', false],
    ['2026-03-01T01:00:00+23:59', '2026-02-28T01:01:00.000000Z', false],
    ['2024-12-31T23:59:59.123456789-23:59', '2025-01-01T23:58:59.123456Z', true],
    ['2024-01-01T00:00:00.1234560z', '2024-01-01T00:00:00.123456Z', false],
    ['2016-12-31T23:59:60Z', '2017-01-01T00:00:00.000000Z', false],
    ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000000Z', false],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z', false],
  ];
  for (const [given, instant, exclusive] of cases) assert.deepEqual(parseInstant(given), { instant, exclusive }, given);
  // beyond the calendar after the offset: before or after every stored instant
  assert.deepEqual(parseInstant('0001-01-01T00:00:00+00:01'), { instant: '-infinity', exclusive: false });
  assert.deepEqual(parseInstant('9999-12-31T23:59:59-00:01'), { instant: 'infinity', exclusive: false });
  for (const bad of [
    '2026-01-15',
    '2026-01-15T13:02:00',
    '2024-02-29T00:00:00Z'.replace('2024', '2023'),
    '2026-01-15T13:02:00+24:00',
  ])
    assert.equal(parseInstant(bad), null, bad);
});
