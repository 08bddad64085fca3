import { daysBetween } from './dates.ts';

export type InstallmentStatus = 'pending' | 'partial' | 'paid';

export interface DelinquencyInput {
  dueDate: string;
  status: InstallmentStatus;
  /** The day the installment became paid (the effective date of the payment that covered it). */
  paidDate: string | null;
  /**
   * Its credit was cancelled (`inactive`): the installments stay as history, never late
   * (docs/domain.md, "Cancel").
   */
  cancelled?: boolean;
}

export interface Delinquency {
  overdue: boolean;
  days_late: number;
}

/** Computed for `today` (the business's date) on every read (docs/domain.md, "Delinquency"). */
export function delinquency(inst: DelinquencyInput, today: string): Delinquency {
  if (inst.cancelled) return { overdue: false, days_late: 0 };
  if (inst.status === 'paid') {
    // Paid: how late it was when it became paid; 0 if on time or if the day is unknown.
    const late = inst.paidDate === null ? 0 : Math.max(0, daysBetween(inst.dueDate, inst.paidDate));
    return { overdue: false, days_late: late };
  }
  const late = daysBetween(inst.dueDate, today);
  return late > 0 ? { overdue: true, days_late: late } : { overdue: false, days_late: 0 };
}
