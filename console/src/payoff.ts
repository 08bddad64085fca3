// The early payoff quote as a lender reads it (docs/console.md, "Closing a credit paid beyond its
// payoff"). The API's breakdown adds up to what is owed (amount − refundable), and its `principal`
// is what the later installments owe less what was paid of them in advance: negative when the
// client paid beyond (docs/api.md, "Early payoff quote"). The console shows each part as owed
// (never below 0), what was paid in advance as one line taken off them, and what is to be handed
// back as a line of its own; nothing is computed that the API did not say.

export interface PayoffQuote {
  as_of: string;
  amount: number;
  /** paid beyond what settles the credit: then amount is 0 */
  refundable: number;
  breakdown: Record<string, number>;
}

/** The breakdown's keys in the order the parts are owed, each with its label (English; i18n.ts gives the Spanish). */
export const PAYOFF_PARTS = [
  ['due', 'Due'],
  ['punitory', 'Punitory'],
  ['charges', 'Collection charges'],
  ['principal', 'Principal'],
  ['interest', 'Interest'],
  ['vat', 'VAT'],
  ['insurance', 'Insurance'],
  ['fees', 'Admin fees'],
] as const;

/** Shown even at 0: what any payoff is made of. */
const ALWAYS = new Set(['principal', 'interest']);

export interface PayoffLines {
  /** the parts owed, each ≥ 0 */
  parts: { key: string; label: string; amount: number }[];
  /** paid in advance and taken off the parts (≥ 0): parts − advance = amount */
  advance: number;
  /** to hand back to the client (the quote's refundable) */
  refund: number;
  /** interest, insurance, fees and VAT not owed (a rebate, not cash) */
  rebate: number;
}

const cents = (v: number) => Math.round(v * 100);

export function payoffLines(q: PayoffQuote): PayoffLines {
  const b = q.breakdown;
  const parts = PAYOFF_PARTS.map(([key, label]) => ({ key, label, amount: Math.max(b[key] ?? 0, 0) })).filter(
    (p) => p.amount > 0 || ALWAYS.has(p.key),
  );
  const owed = parts.reduce((s, p) => s + cents(p.amount), 0);
  // what the parts owe beyond the amount to pay is covered by what was paid in advance
  // (the negative principal); the rest of that is the refund
  const advance = Math.max(owed - cents(q.amount), 0) / 100;
  return { parts, advance, refund: q.refundable, rebate: b.rebate ?? 0 };
}
