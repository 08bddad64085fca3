// Numbers and amounts in Spanish words (src/domain/words.ts): hand-checked examples of every rule
// (the apocope "un" before mil/millón/billón, "cien" and "ciento", 16–29 in one word with their
// accents, "mil" alone, the long scale), and as properties: a reader of Spanish numbers written
// here independently reads every number back, and the forms a careless writer gets wrong never
// appear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_IN_WORDS, numberInWords, pesosInWords } from '../../src/domain/index.ts';

test('numbers in words, by hand', () => {
  const cases: [number | bigint, string][] = [
    [0, 'cero'],
    [1, 'uno'],
    [15, 'quince'],
    [16, 'dieciséis'],
    [21, 'veintiuno'],
    [22, 'veintidós'],
    [23, 'veintitrés'],
    [26, 'veintiséis'],
    [30, 'treinta'],
    [31, 'treinta y uno'],
    [99, 'noventa y nueve'],
    [100, 'cien'],
    [101, 'ciento uno'],
    [115, 'ciento quince'],
    [500, 'quinientos'],
    [777, 'setecientos setenta y siete'],
    [1000, 'mil'],
    [1001, 'mil uno'],
    [1100, 'mil cien'],
    [2000, 'dos mil'],
    [21_000, 'veintiún mil'],
    [21_021, 'veintiún mil veintiuno'],
    [31_000, 'treinta y un mil'],
    [100_000, 'cien mil'],
    [101_000, 'ciento un mil'],
    [120_000, 'ciento veinte mil'],
    [1_000_000, 'un millón'],
    [1_000_001, 'un millón uno'],
    [1_234_567, 'un millón doscientos treinta y cuatro mil quinientos sesenta y siete'],
    [2_000_000, 'dos millones'],
    [21_000_000, 'veintiún millones'],
    [101_000_000, 'ciento un millones'],
    [1_000_000_000, 'mil millones'],
    [1_001_000_000, 'mil un millones'],
    [2_500_000_000, 'dos mil quinientos millones'],
    [21_000_000_000, 'veintiún mil millones'],
    [
      999_999_999_999,
      'novecientos noventa y nueve mil novecientos noventa y nueve millones novecientos noventa y nueve mil novecientos noventa y nueve',
    ],
    [1_000_000_000_000n, 'un billón'],
    [3_000_001_000_000n, 'tres billones un millón'],
  ];
  for (const [n, words] of cases) assert.equal(numberInWords(n), words, String(n));
});

test('amounts in pesos, by hand: whole pesos in words, cents over 100, rounded half away from zero', () => {
  assert.equal(pesosInWords('120000'), 'pesos ciento veinte mil con 00/100');
  assert.equal(pesosInWords(121_000.5), 'pesos ciento veintiún mil con 50/100');
  assert.equal(pesosInWords('1.005'), 'pesos uno con 01/100');
  assert.equal(pesosInWords('0.99'), 'pesos cero con 99/100');
  assert.equal(pesosInWords('999999999999.99'), `pesos ${numberInWords(999_999_999_999)} con 99/100`);
  assert.throws(() => pesosInWords('-1'), RangeError);
});

test('out of range is refused', () => {
  assert.throws(() => numberInWords(-1), RangeError);
  assert.throws(() => numberInWords(1.5), RangeError);
  assert.throws(() => numberInWords(MAX_IN_WORDS + 1n), RangeError);
  assert.doesNotThrow(() => numberInWords(MAX_IN_WORDS));
});

// ---------------------------------------------------------------- an independent reader

const SMALL: Record<string, bigint> = {};
const words0to29 =
  'cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco veintiséis veintisiete veintiocho veintinueve'.split(
    ' ',
  );
words0to29.forEach((w, k) => {
  SMALL[w] = BigInt(k);
});
SMALL.un = 1n;
SMALL.veintiún = 21n;
'treinta cuarenta cincuenta sesenta setenta ochenta noventa'.split(' ').forEach((w, k) => {
  SMALL[w] = BigInt(30 + 10 * k);
});
SMALL.cien = 100n;
'ciento doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos novecientos'
  .split(' ')
  .forEach((w, k) => {
    SMALL[w] = BigInt(100 * (k + 1));
  });

/** Spanish number words back to the number; throws on a word it does not know. */
function read(text: string): bigint {
  let total = 0n;
  let group = 0n; // below the next scale word
  for (const w of text.split(' ')) {
    if (w === 'y') continue;
    if (w in SMALL) group += SMALL[w]!;
    else if (w === 'mil') group = (group === 0n ? 1n : group) * 1000n;
    else if (w === 'millón' || w === 'millones') {
      total += group * 10n ** 6n;
      group = 0n;
    } else if (w === 'billón' || w === 'billones') {
      total += group * 10n ** 12n;
      group = 0n;
    } else throw new Error(`unknown word ${w} in "${text}"`);
  }
  return total + group;
}

const anyNumber = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }).map(BigInt),
  fc.bigInt({ min: 0n, max: 10n ** 13n }),
  fc.bigInt({ min: 0n, max: MAX_IN_WORDS }),
  // round numbers, where "un" and "mil" matter most
  fc
    .tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom(1n, 10n ** 3n, 10n ** 6n, 10n ** 9n, 10n ** 12n))
    .map(([a, s]) => BigInt(a) * s),
);

test('every number reads back from its words, and the words keep the rules', () => {
  fc.assert(
    fc.property(anyNumber, (n) => {
      const w = numberInWords(n);
      assert.equal(read(w), n, w);
      assert.equal(w, w.trim());
      assert.ok(!w.includes('  '), w);
      // "uno"/"veintiuno" only at the very end; before a scale word it is "un"/"veintiún"
      assert.ok(!/\b(uno|veintiuno) (mil|millón|millones|billón|billones)\b/.test(w), w);
      // "un"/"veintiún" only before a scale word
      assert.ok(!/\b(un|veintiún)( (?!mil|millón|millones|billón|billones)\S+|$)/.test(w), w);
      // 1000 is "mil", never "un mil" (41,000 is "cuarenta y un mil"); "cien" stands alone, else "ciento"
      assert.ok(!/(^|(mil|millón|millones|billón|billones) )un mil\b/.test(w), w);
      assert.ok(!/\bcien (?!mil|millón|millones|billón|billones)\S/.test(w), w);
      // singular with exactly one ("un millón"), plural otherwise (even "treinta y un millones")
      const count = (re: RegExp) => (w.match(re) ?? []).length;
      assert.equal(count(/millón/g), count(/(^|(billón|billones) )un millón/g), w);
      assert.equal(count(/billón/g), count(/^un billón/g), w);
      assert.ok(!/(^|(billón|billones) )un (millones|billones)/.test(w), w);
    }),
    { numRuns: 2000 },
  );
});

test('an amount reads back to its cents', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 99_999_999_999_999n }), (cents) => {
      const text = `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
      const m = /^pesos (.+) con (\d\d)\/100$/.exec(pesosInWords(text));
      assert.ok(m, pesosInWords(text));
      assert.equal(read(m[1]!) * 100n + BigInt(m[2]!), cents);
    }),
  );
});
