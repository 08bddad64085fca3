// The shapes the ledger engine works on: what it needs of a credit, an installment, a ledger entry
// and a payment, declared here so the engine depends on no table. Money and dates are the text the
// database gives (numeric "1234.50", date "2025-03-31"), exact; the engine makes decimals of them.
// A repository's row has these fields under the same names, so the service layer hands its rows
// over as they are (`src/services/lending/store.ts` is that boundary) and gets them back typed as
// rows through the engine's generic parameters: nothing is copied on the way in or out.
import type { InstallmentStatus, PlanFee, PunitoryMode } from '../../../domain/index.ts';

/** numeric as exact text, as read ("1234.50") */
export type MoneyText = string;
/** a calendar date, YYYY-MM-DD */
export type DateText = string;

export type CreditStatus = 'active' | 'refinanced' | 'closed' | 'written_off' | 'inactive';
export type EntryType = 'installment' | 'punitory' | 'payment' | 'charge' | 'waiver';
/** why an entry exists (docs/lending-engine.md "Payments") */
export type EntryOrigin =
  | 'schedule'
  | 'payment'
  | 'accrual'
  | 'reversal'
  | 'rebate'
  | 'refinance'
  | 'correction'
  | 'fee'
  | 'waiver';
export type { InstallmentStatus };

/** The punitory terms snapshotted on a credit, and the VAT its punitory carries. */
export interface TermsSource {
  daily_punitory_rate: MoneyText;
  punitory_mode: PunitoryMode;
  grace_days: number;
  max_punitory_days: number;
  punitory_cap_pct: MoneyText;
  vat_rate: MoneyText | number | null;
  /** the plan's fees snapshotted on the credit: its collection charge (absent: none) */
  fees?: readonly PlanFee[] | null;
}

/** A credit as the engine replays it. */
export interface CreditShape extends TermsSource {
  id: string;
  status: CreditStatus;
  start_date: DateText;
  branch_id: string | null;
  written_off_at: Date | null;
}

/** An installment of the schedule; the parts absent (a test's bare row): all principal. */
export interface InstallmentLike {
  id: string;
  number: number;
  amount: MoneyText;
  due_date: DateText;
  interest?: MoneyText;
  /** the VAT of the interest, the insurance and the fees */
  vat?: MoneyText;
  /** the insurance and the admin fee, and the VAT of each (inside vat) */
  insurance?: MoneyText;
  insurance_vat?: MoneyText;
  fees?: MoneyText;
  fees_vat?: MoneyText;
  tolerance_days?: number;
}

/** An installment with the status written on it. */
export interface InstallmentShape extends InstallmentLike {
  status: InstallmentStatus;
  paid_date: DateText | null;
}

/** What of a ledger entry moves an installment's state. */
export interface EntryLike {
  type: EntryType;
  amount: MoneyText;
  punitory_part: MoneyText;
  effective_date: DateText;
  vat_part?: MoneyText;
  interest_part?: MoneyText;
  /** a payment slice: what it paid of charges; a charge waiver: the amount waived (negative) */
  charge_part?: MoneyText;
  fees_part?: MoneyText;
  insurance_part?: MoneyText;
}

/** A written ledger entry. */
export interface EntryShape extends EntryLike {
  id: string;
  installment_id: string;
  origin: EntryOrigin;
  payment_id: string | null;
  vat_part: MoneyText;
  interest_part: MoneyText;
  fees_part: MoneyText;
  insurance_part: MoneyText;
  created_at: Date;
}

/** A ledger entry a use case decided to write; its id is chosen before it is written. */
export interface NewEntry {
  id: string;
  installment_id: string;
  type: EntryType;
  origin: EntryOrigin;
  amount: MoneyText;
  punitory_part?: MoneyText;
  vat_part?: MoneyText;
  interest_part?: MoneyText;
  charge_part?: MoneyText;
  fees_part?: MoneyText;
  insurance_part?: MoneyText;
  effective_date: DateText;
  payment_id?: string | null;
  branch_id: string | null;
  created_by: string;
}

/** A payment request: the group of its slices. */
export interface PaymentShape {
  id: string;
  amount: MoneyText;
  paid_on: DateText;
  branch_id: string | null;
  reversed_at: Date | null;
}
