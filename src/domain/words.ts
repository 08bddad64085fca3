// Numbers in Spanish words, as a promissory note writes its amount ("PESOS CIENTO VEINTIÚN MIL
// CON 50/100"; docs/api.md, "Contract and promissory note"). Written here rather than taken from a
// library: the ones at hand said "veintiuno mil" and "dieciseis", and a note with its amount
// misspelled is a bad note. Rules (the Real Academia's): "uno" drops to "un" before "mil",
// "millón" and "billón" (veintiún mil, ciento un millones), 1000 is "mil" (never "un mil"), 100
// is "cien" and 101–199 "ciento …", 16–29 are one word (dieciséis, veintidós), 31–99 "treinta y
// uno"; the long scale: a millón is 10^6, a billón 10^12.
import { money, toMoneyString } from './money.ts';
import type { Decimal } from './money.ts';

const UNITS = [
  'cero',
  'uno',
  'dos',
  'tres',
  'cuatro',
  'cinco',
  'seis',
  'siete',
  'ocho',
  'nueve',
  'diez',
  'once',
  'doce',
  'trece',
  'catorce',
  'quince',
  'dieciséis',
  'diecisiete',
  'dieciocho',
  'diecinueve',
  'veinte',
  'veintiuno',
  'veintidós',
  'veintitrés',
  'veinticuatro',
  'veinticinco',
  'veintiséis',
  'veintisiete',
  'veintiocho',
  'veintinueve',
];
const TENS = ['', '', '', 'treinta', 'cuarenta', 'cincuenta', 'sesenta', 'setenta', 'ochenta', 'noventa'];
const HUNDREDS = [
  '',
  'ciento',
  'doscientos',
  'trescientos',
  'cuatrocientos',
  'quinientos',
  'seiscientos',
  'setecientos',
  'ochocientos',
  'novecientos',
];

/** 1..999 in words ("uno" whole). */
function belowThousand(n: number): string {
  if (n === 100) return 'cien';
  const h = Math.floor(n / 100);
  const rest = n % 100;
  const words: string[] = [];
  if (h > 0) words.push(HUNDREDS[h]!);
  if (rest > 0 && rest < 30) words.push(UNITS[rest]!);
  else if (rest >= 30) {
    const t = Math.floor(rest / 10);
    const u = rest % 10;
    words.push(u === 0 ? TENS[t]! : `${TENS[t]} y ${UNITS[u]}`);
  }
  return words.join(' ');
}

/** "uno" at the end becomes "un" (and "veintiuno" "veintiún"): the form before mil, millón, billón. */
function apocope(words: string): string {
  if (words.endsWith('veintiuno')) return `${words.slice(0, -'veintiuno'.length)}veintiún`;
  if (words.endsWith('uno')) return `${words.slice(0, -3)}un`;
  return words;
}

/** 1..999,999 in words; `beforeNoun`: its last "uno" as "un". */
function belowMillion(n: number, beforeNoun: boolean): string {
  const thousands = Math.floor(n / 1000);
  const rest = n % 1000;
  const words: string[] = [];
  if (thousands === 1) words.push('mil');
  else if (thousands > 1) words.push(`${apocope(belowThousand(thousands))} mil`);
  if (rest > 0) words.push(beforeNoun ? apocope(belowThousand(rest)) : belowThousand(rest));
  return words.join(' ');
}

const MILLION = 1_000_000n;
const BILLION = MILLION * MILLION;
/** The largest number written: 999,999 billones. */
export const MAX_IN_WORDS = BILLION * MILLION - 1n;

/**
 * A whole number from 0 to MAX_IN_WORDS in Spanish words, lower case: 21 → "veintiuno",
 * 21,000 → "veintiún mil", 1,000,000 → "un millón", 2,500,000,000 → "dos mil quinientos millones".
 */
export function numberInWords(value: bigint | number): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new RangeError('a whole number is needed');
  const n = BigInt(value);
  if (n < 0n || n > MAX_IN_WORDS) throw new RangeError(`out of range: 0 to ${MAX_IN_WORDS}`);
  if (n === 0n) return UNITS[0]!;
  const billions = Number(n / BILLION);
  const millions = Number((n % BILLION) / MILLION);
  const rest = Number(n % MILLION);
  const words: string[] = [];
  if (billions === 1) words.push('un billón');
  else if (billions > 1) words.push(`${belowMillion(billions, true)} billones`);
  if (millions === 1) words.push('un millón');
  else if (millions > 1) words.push(`${belowMillion(millions, true)} millones`);
  if (rest > 0) words.push(belowMillion(rest, false));
  return words.join(' ');
}

/**
 * An amount of pesos as a promissory note or a cheque writes it: "pesos ciento veinte mil con
 * 50/100" (the whole pesos in words, the cents as a fraction of 100). Rounded to the cent first,
 * half away from zero, as every amount is.
 */
export function pesosInWords(amount: Decimal | string | number): string {
  const cents = toMoneyString(money(amount));
  if (cents.startsWith('-')) throw new RangeError('an amount in words is not negative');
  const [whole, fraction] = cents.split('.') as [string, string];
  return `pesos ${numberInWords(BigInt(whole))} con ${fraction}/100`;
}
