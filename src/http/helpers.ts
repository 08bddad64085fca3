import type { FastifyRequest } from 'fastify';
import { todayIn } from '../domain/index.ts';
import { READ_ONLY_KEYS } from './schemas.ts';

/** The business's calendar date now, in its time zone. */
export const businessToday = (req: FastifyRequest) => todayIn(req.auth.timezone);

/** Drops read-only fields sent back in a body (id, business_id, created_at, updated_at). */
export function writable<T extends object>(body: T): Omit<T, 'id' | 'business_id' | 'created_at' | 'updated_at'> {
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const k of READ_ONLY_KEYS) delete out[k];
  return out as never;
}

/** Trims text fields; blank optional text becomes null. */
export function cleanText<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o as Record<string, unknown>)) out[k] = typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v;
  return out as T;
}
