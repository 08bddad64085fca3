import { test } from 'node:test';
import assert from 'node:assert/strict';
import DecimalImport from 'decimal.js';
import { Dec, money, round2, toMoneyString, toMoneyNumber, hasAtMostDecimals } from '../../src/domain/index.ts';

test('round2 rounds half away from zero, from exact decimals', () => {
  assert.equal(toMoneyString(round2(money('1.005'))), '1.01');
  assert.equal(toMoneyString(round2(money('-1.005'))), '-1.01');
  assert.equal(toMoneyString(round2(money('2.675'))), '2.68'); // 2.675 as a float is 2.67499…
  assert.equal(toMoneyString(round2(money('1.004999'))), '1.00');
  assert.equal(toMoneyString(round2(money('-0.004'))), '0.00'); // no "-0.00"
});

test('toMoneyString / toMoneyNumber', () => {
  assert.equal(toMoneyString(money('1234.5')), '1234.50');
  assert.equal(toMoneyString(money(0)), '0.00');
  assert.equal(toMoneyNumber(money('1234.505')), 1234.51);
});

test('money parses finite decimals only', () => {
  assert.equal(money('0.1').plus(money('0.2')).toString(), '0.3');
  assert.equal(money(0.1).toString(), '0.1');
  assert.equal(money(new Dec('5.5')).toString(), '5.5');
  for (const bad of ['abc', '', '0x10', 'Infinity', 'NaN', '1,5']) assert.throws(() => money(bad), RangeError, bad);
  assert.throws(() => money(Number.NaN), RangeError);
  assert.throws(() => money(Number.POSITIVE_INFINITY), RangeError);
});

test('Dec is a clone: the global Decimal keeps its defaults', () => {
  assert.equal(Dec.precision, 40);
  assert.equal(Dec.rounding, Dec.ROUND_HALF_UP);
  const G = ((DecimalImport as unknown as { Decimal?: typeof Dec }).Decimal ?? DecimalImport) as unknown as typeof Dec;
  assert.equal(G.precision, 20);
});

test('hasAtMostDecimals judges String(x), including exponent forms', () => {
  assert.equal(hasAtMostDecimals(0.1, 2), true);
  assert.equal(hasAtMostDecimals(1.1, 2), true);
  assert.equal(hasAtMostDecimals(100, 2), true);
  assert.equal(hasAtMostDecimals(-12.34, 2), true);
  assert.equal(hasAtMostDecimals(0.123, 2), false);
  assert.equal(hasAtMostDecimals(1e-7, 2), false); // "1e-7" hides 7 decimals
  assert.equal(hasAtMostDecimals(1.5e-10, 12), true);
  assert.equal(hasAtMostDecimals(1.5e-10, 10), false);
  assert.equal(hasAtMostDecimals(1e21, 0), true); // "1e+21" is an integer
  assert.equal(hasAtMostDecimals(Number.NaN, 2), false);
  assert.equal(hasAtMostDecimals(Number.POSITIVE_INFINITY, 2), false);
  assert.equal(hasAtMostDecimals(3, 0), true);
  assert.equal(hasAtMostDecimals(3.5, 0), false);
});
