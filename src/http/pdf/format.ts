// How the printed documents write amounts, dates, identity numbers and labels: the way a client
// in Argentina reads them ("$ 1.234,56", 20/03/2026, DNI 30.123.456, CUIT 27-30123456-4), in
// Spanish. The JSON documents keep the API's forms (numbers, YYYY-MM-DD, English field names).
import { money, todayIn } from '../../domain/index.ts';

/**
 * Pesos the way Argentina writes them, by the es-AR locale's own rules: the currency sign, "."
 * between thousands, "," before the cents. Never a negative zero ("-$ 0,00").
 */
const PESOS = new Intl.NumberFormat('es-AR', {
  style: 'currency',
  currency: 'ARS',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'negative',
});

/** Whole numbers with the es-AR thousands separator (30.123.456). */
const GROUPED = new Intl.NumberFormat('es-AR', { maximumFractionDigits: 0 });

/**
 * "$ 1.234,56"; negative "-$ 1.234,56" (a balance in the client's favour). Exact: the amount is
 * rounded as a decimal first (half away from zero, as the service rounds) and handed to Intl as
 * its decimal text, never through a float. The locale's no-break space after the sign is written
 * as a plain space, as on every document printed before.
 */
export function pesos(amount: number | string): string {
  return PESOS.format(money(amount).toFixed(2) as `${number}`).replace(/\u00a0/g, ' ');
}

/** YYYY-MM-DD → DD/MM/YYYY. */
export function fecha(date: string): string {
  const [y, m, d] = date.split('-');
  return `${d}/${m}/${y}`;
}

/** An instant as the business's calendar date, DD/MM/YYYY. */
export function fechaDe(instant: Date | string, timezone: string): string {
  return fecha(todayIn(timezone, new Date(instant)));
}

/** A DNI of digits only with its thousands dots (30.123.456); anything else as stored. */
export function dni(value: string): string {
  return /^\d{6,9}$/.test(value) ? GROUPED.format(value as `${number}`) : value;
}

/** A CUIT/CUIL of 11 digits as 27-30123456-4; null as a dash. */
export function cuit(value: string | null): string {
  if (value === null) return '—';
  return /^\d{11}$/.test(value) ? `${value.slice(0, 2)}-${value.slice(2, 10)}-${value.slice(10)}` : value;
}

export function fullName(c: { first_name: string | null; last_name: string | null }): string {
  return [c.first_name, c.last_name].filter((s) => s && s.trim()).join(' ') || '—';
}

export const CREDIT_STATUS: Record<string, string> = {
  active: 'Vigente',
  closed: 'Cancelado (pagado)',
  refinanced: 'Refinanciado',
  written_off: 'Incobrable',
  inactive: 'Anulado',
};

/** An installment's state as the client reads it: paid, partly paid, late (how many days) or not due yet. */
export function installmentState(i: { status: string; overdue: boolean; days_late: number }): string {
  if (i.status === 'paid') return 'Pagada';
  if (i.overdue) return `Vencida, ${i.days_late} ${i.days_late === 1 ? 'día' : 'días'}`;
  return i.status === 'partial' ? 'Pago parcial' : 'A vencer';
}

// The PDF's standard fonts (Helvetica) are encoded in WinAnsi (Windows-1252): every Spanish letter
// and sign is there (á é í ó ú ü ñ Ñ ¿ ¡ º ª €), but not every character a name can hold. One that
// is not becomes "?", instead of the wrong glyph the font would draw.
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** The text with what WinAnsi cannot show replaced by "?" (and control characters by a space). */
export function winAnsi(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0 && !WIN_ANSI_EXTRA.has(ch))) out += ' ';
    else if (c <= 0xff || WIN_ANSI_EXTRA.has(ch)) out += ch;
    else out += '?';
  }
  return out;
}

/** A file name for Content-Disposition: ASCII letters, digits, dots and dashes. */
export function fileName(...parts: (string | number)[]): string {
  return `${parts
    .map((p) =>
      String(p)
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .replace(/[^A-Za-z0-9.-]+/g, '-'),
    )
    .join('-')}.pdf`;
}

const PERCENT = new Intl.NumberFormat('es-AR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const PERCENT_TERMS = new Intl.NumberFormat('es-AR', { minimumFractionDigits: 0, maximumFractionDigits: 4 });

/**
 * A rate given as a fraction ("0.268242") as a percentage: "26,82 %" (two decimals, rounded half
 * away from zero as a decimal, never through a float); `terms`: as a plan states it, only the
 * decimals it has ("0,2 %", "5 %").
 */
export function porcentaje(fraction: string | number, o: { terms?: boolean } = {}): string {
  const pct = money(fraction).times(100);
  const text = (o.terms ? pct.toDecimalPlaces(4) : pct.toDecimalPlaces(2)).toFixed();
  return `${(o.terms ? PERCENT_TERMS : PERCENT).format(text as `${number}`)} %`;
}

/** An address from its stored parts: "Av. Colón 1234, piso 3, dto. B, Córdoba (5000), Córdoba"; null when none is stored. */
export function domicilio(a: {
  street: string | null;
  street_number: string | null;
  floor: string | null;
  apartment: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
}): string | null {
  const t = (s: string | null) => s?.trim() || null;
  const street = [t(a.street), t(a.street_number)].filter(Boolean).join(' ');
  const city = [t(a.city), t(a.zip_code) ? `(${t(a.zip_code)})` : null].filter(Boolean).join(' ');
  const parts = [
    street,
    t(a.floor) ? `piso ${t(a.floor)}` : null,
    t(a.apartment) ? `dto. ${t(a.apartment)}` : null,
    city,
    t(a.state),
    t(a.country),
  ].filter((p): p is string => Boolean(p));
  return parts.length ? parts.join(', ') : null;
}

/** How a payment was made, as the client reads it. */
export const PAYMENT_METHOD: Record<string, string> = {
  cash: 'Efectivo',
  transfer: 'Transferencia',
  debit: 'Débito',
  card: 'Tarjeta',
  collection_network: 'Red de cobranza',
  other: 'Otro',
};
