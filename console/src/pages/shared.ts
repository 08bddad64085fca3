// Reference data many pages use (branches, plans), cached once.
import { useQuery } from '@tanstack/react-query';
import { api } from '../api.ts';
import { t } from '../i18n.ts';

export interface Branch {
  id: string;
  name: string;
  address: string | null;
  phone: string | null;
  deleted_at: string | null;
}

export interface Plan {
  id: string;
  name: string;
  is_active: boolean;
  installments_count: number;
  cut_type: string;
  interest_rate: number;
  daily_punitory_rate: number;
  amortization: string;
  vat_rate: number;
  days_until_first_payment: number;
}

export function useBranches(): Branch[] {
  return (
    useQuery({ queryKey: ['/api/branches'], queryFn: () => api<Branch[]>('/api/branches'), staleTime: 300_000 }).data ??
    []
  );
}

export function usePlans(): Plan[] {
  return (
    useQuery({
      queryKey: ['/api/credit-configs'],
      queryFn: () => api<Plan[]>('/api/credit-configs'),
      staleTime: 60_000,
    }).data ?? []
  );
}

/** An installment's optional parts (docs/domain.md "Fees and charges"): insurance and admin fees (VAT aside), collection charges, what was waived. */
export type Part = 'insurance' | 'fees' | 'charges' | 'waived';

/** Which optional columns a schedule shows: those some installment has a non-zero figure in. */
export function partsShown(installments: Partial<Record<Part, number>>[]): Record<Part, boolean> {
  const some = (k: Part) => installments.some((i) => (i[k] ?? 0) !== 0);
  return { insurance: some('insurance'), fees: some('fees'), charges: some('charges'), waived: some('waived') };
}

/**
 * How a schedule's row adds up, in the columns' own words: the installment is its parts (the VAT
 * is that of the interest, the insurance and the fees: the API gives it as one figure) and, on a
 * credit (`balance`), what is still owed is the installment with its punitory and charges, less
 * what was waived and paid.
 */
export function scheduleSums(has: Record<Part, boolean>, balance: boolean): string {
  const parts = [
    t('Principal'),
    t('Interest'),
    ...(has.insurance ? [t('Insurance')] : []),
    ...(has.fees ? [t('Admin fees')] : []),
  ];
  const vat = has.insurance || has.fees ? ` (${t('VAT of the interest, the insurance and the fees')})` : '';
  const installment = `${t('Installment')} = ${parts.join(' + ')} + ${t('VAT')}${vat}.`;
  if (!balance) return installment;
  const owed = [
    t('Installment'),
    `+ ${t('Punitory')}`,
    ...(has.charges ? [`+ ${t('Charges')}`] : []),
    ...(has.waived ? [`− ${t('Waived')}`] : []),
    `− ${t('Paid')}`,
  ];
  return `${installment} ${t('Balance')} = ${owed.join(' ')}.`;
}
