// Who is signed in (GET /auth/me), and what their role lets the console offer.
import { useQuery } from '@tanstack/react-query';
import { ApiError, api } from './api.ts';

export type Role = 'viewer' | 'employee' | 'admin';

export interface User {
  id: string;
  business_id: string;
  email: string;
  name: string | null;
  role: Role;
  branch_id: string | null;
  disabled_at: string | null;
  last_login_at: string | null;
  created_at: string;
}

export interface Me {
  user: User | null;
  business: { id: string; name: string; timezone: string; slug?: string } | null;
  operator: { id: string; email: string; name: string | null } | null;
  impersonated_by: string | null;
}

const RANK: Record<Role, number> = { viewer: 0, employee: 1, admin: 2 };

export function useMe() {
  return useQuery<Me | null>({
    queryKey: ['me'],
    queryFn: async () => {
      try {
        return await api<Me>('/auth/me');
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: 60_000,
  });
}

/** Whether the signed-in user's role reaches `role` (the API decides in the end; this only hides what it would refuse). */
export function useCan(role: Role): boolean {
  const me = useMe().data;
  return !!me?.user && RANK[me.user.role] >= RANK[role];
}
