import { PageQuery, READ_ONLY_KEYS } from './schemas.ts';

/** Drops read-only fields sent back in a body (id, business_id, created_at, updated_at). */
export function writable<T extends object>(body: T): Omit<T, (typeof READ_ONLY_KEYS)[number]> {
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const k of READ_ONLY_KEYS) delete out[k];
  return out as never;
}

/** The page a list query asks for; the validator has filled PageQuery's defaults, this tells TypeScript so. */
export const pageRequest = (q: { limit?: number; offset?: number }) => ({
  limit: q.limit ?? (PageQuery.limit.default as number),
  offset: q.offset ?? (PageQuery.offset.default as number),
});
