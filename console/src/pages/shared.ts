// Reference data many pages use (branches, plans), cached once.
import { useQuery } from '@tanstack/react-query';
import { api } from '../api.ts';

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
