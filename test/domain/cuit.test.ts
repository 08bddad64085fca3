import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { cuitCheckDigit, isValidCuit, parseCuit, withCheckDigit } from '../../src/domain/index.ts';

// ten digits, the part of a CUIT the check digit is computed from
const first10 = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 10, maxLength: 10 }).map((d) => d.join(''));
const dashed = (c: string) => `${c.slice(0, 2)}-${c.slice(2, 10)}-${c.slice(10)}`;

test('known CUITs: the worked example, the tax authority’s own and a check digit of 0', () => {
  // 2·5 + 0·4 + 1·3 + 2·2 + 3·7 + 4·6 + 5·5 + 6·4 + 7·3 + 8·2 = 148; 148 mod 11 = 5; 11 − 5 = 6
  assert.equal(cuitCheckDigit('2012345678'), 6);
  assert.equal(parseCuit('20-12345678-6'), '20123456786');
  assert.equal(parseCuit('20123456786'), '20123456786');
  // AFIP, 33-69345023-9: 145 mod 11 = 2, 11 − 2 = 9
  assert.equal(parseCuit('33-69345023-9'), '33693450239');
  // 20-00000001-?: 2·5 + 1·2 = 12; 12 mod 11 = 1; 11 − 1 = 10: no such CUIT
  assert.equal(cuitCheckDigit('2000000001'), null);
  assert.equal(withCheckDigit('2000000001'), undefined);
  // 2·5 + 6·2 = 22, divisible by 11: 11 − 0 = 11, written 0
  assert.equal(cuitCheckDigit('2000000006'), 0);
  assert.equal(parseCuit('20-00000006-0'), '20000000060');
});

test('what is not a CUIT', () => {
  for (const bad of [
    '20123456787', // wrong check digit
    '20-12345678-7',
    '2012345678', // 10 digits
    '201234567860', // 12
    '20-123456786', // one dash without the other
    '2012345678-6',
    '20 12345678 6',
    '20.12345678.6',
    ' 20123456786',
    '20123456786 ',
    '２0123456786', // a full-width digit
    '',
    '20000000010', // its check digit would be 10
  ])
    assert.equal(parseCuit(bad), undefined, bad);
  for (const bad of [20123456786, null, undefined, ['20123456786'], {}]) assert.equal(isValidCuit(bad), false);
  assert.throws(() => cuitCheckDigit('123'), RangeError);
});

test('property: each ten digits have exactly one check digit, or none when the rule gives 10', () => {
  fc.assert(
    fc.property(first10, (f) => {
      const valid = [...'0123456789'].filter((d) => isValidCuit(f + d));
      const d = cuitCheckDigit(f);
      assert.deepEqual(valid, d === null ? [] : [String(d)]);
      if (d !== null) {
        assert.equal(withCheckDigit(f), f + d);
        assert.equal(parseCuit(dashed(f + d)), f + d);
      }
    }),
  );
});

test('property: a single mistyped digit, or two different neighbours swapped, never passes', () => {
  const valid = first10.map(withCheckDigit).filter((c): c is string => c !== undefined);
  fc.assert(
    fc.property(valid, fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 9 }), (c, i, delta) => {
      const digit = (Number(c[i]) + delta) % 10;
      assert.equal(isValidCuit(c.slice(0, i) + digit + c.slice(i + 1)), false);
    }),
  );
  // the weights of neighbours among the first ten differ by 1 or 5, never a multiple of 11
  fc.assert(
    fc.property(valid, fc.integer({ min: 0, max: 8 }), (c, i) => {
      fc.pre(c[i] !== c[i + 1]);
      const swapped = c.slice(0, i) + c[i + 1] + c[i] + c.slice(i + 2);
      assert.equal(isValidCuit(swapped), false);
    }),
  );
});
