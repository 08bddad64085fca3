// How free text is stored, whoever writes it (API, CLI, demo).

/** Trims every text field; blank optional text becomes null (unknown, not ""). */
export function cleanText<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o as Record<string, unknown>))
    out[k] = typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v;
  return out as T;
}
