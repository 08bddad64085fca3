// Money and numbers as Argentina writes them ($ 1.234,56), in both languages (docs/console.md,
// "Language, money and dates"). Apart from i18n.ts, which re-exports them, so that a unit test
// can load them without a browser (test/console/format.test.ts).

const money = new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS', minimumFractionDigits: 2 });
const number = new Intl.NumberFormat('es-AR', { maximumFractionDigits: 2 });

/**
 * What is written as zero is zero: Intl writes −0, and any negative amount that rounds to zero,
 * as "-$ 0,00" (a column of −waived where nothing was waived, a difference of a float).
 */
const unsignedZero = (n: number, digits: number) => (Math.abs(n) < 0.5 / 10 ** digits ? 0 : n);

/** $ 1.234,56 */
export const fmtMoney = (v: number | string | null | undefined) =>
  v == null || v === '' ? '—' : money.format(unsignedZero(Number(v), 2));
export const fmtNumber = (v: number | null | undefined) => (v == null ? '—' : number.format(unsignedZero(v, 2)));
