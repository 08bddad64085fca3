// Content negotiation for the routes that answer a document either as JSON or as a PDF (the
// statement and the receipt): the Accept header's media ranges with their q-values (RFC 9110
// §12.5.1). Each offered type takes the q of the most specific range that matches it; the highest
// q wins; at equal q, the type named more specifically (application/pdf over */*), then the first
// type offered (JSON, the API's default). No Accept, or one that names nothing parseable, is JSON;
// an Accept that refuses every type offered (q=0 or not matched) is null: the route answers 406.

interface Range {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): Range[] {
  const out: Range[] = [];
  for (const part of header.split(',')) {
    const [media, ...params] = part.split(';').map((s) => s.trim());
    const m = /^([\w.+*-]+)\/([\w.+*-]+)$/.exec(media ?? '');
    if (!m) continue;
    let q = 1;
    for (const p of params) {
      const qm = /^q\s*=\s*([0-9.]+)$/i.exec(p);
      if (qm) q = Math.min(1, Math.max(0, Number(qm[1]) || 0));
    }
    out.push({ type: m[1]!.toLowerCase(), subtype: m[2]!.toLowerCase(), q });
  }
  return out;
}

/** How specifically a range matches a type (2 exact, 1 type/*, 0 *\/*), or -1 when it does not. */
function specificity(r: Range, type: string, subtype: string): number {
  if (r.type === type && r.subtype === subtype) return 2;
  if (r.type === type && r.subtype === '*') return 1;
  if (r.type === '*' && r.subtype === '*') return 0;
  return -1;
}

/** Which of `offered` (media types, the default first) the Accept header prefers; null when it accepts none. */
export function negotiate<T extends string>(accept: string | undefined, offered: readonly T[]): T | null {
  const ranges = accept ? parseAccept(accept) : [];
  if (ranges.length === 0) return offered[0] ?? null;
  let best: T | null = null;
  let bestQ = 0;
  let bestSpec = -1;
  for (const o of offered) {
    const [type, subtype] = o.split('/') as [string, string];
    let q = 0;
    let spec = -1;
    for (const r of ranges) {
      const s = specificity(r, type, subtype);
      if (s > spec) {
        spec = s;
        q = r.q;
      }
    }
    if (q > 0 && (q > bestQ || (q === bestQ && spec > bestSpec))) {
      best = o;
      bestQ = q;
      bestSpec = spec;
    }
  }
  return best;
}
