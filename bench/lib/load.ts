// Drives the server over HTTP with autocannon: N connections for a fixed time, each request's
// target drawn by `next()` (so every request names another client, credit, page …).
import autocannon from 'autocannon';

export interface HttpTarget {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  codes: Record<string, number>;
}

export async function drive(o: {
  baseUrl: string;
  key: string;
  next: () => HttpTarget;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const r = await autocannon({
    url: o.baseUrl,
    connections: o.connections,
    duration: o.seconds,
    timeout: 120, // a slow route (the audit list counts millions of rows) is measured, not cut off
    headers: { authorization: `Bearer ${o.key}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          const t = o.next();
          return { ...req, method: t.method, path: t.path, ...(t.body === undefined ? {} : { body: t.body }) };
        },
      },
    ],
  });
  const codes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]));
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    requests: r.requests.total,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    codes,
  };
}

/** One request outside the load, to fail early with the server's answer when a target is wrong. */
export async function probe(baseUrl: string, key: string, t: HttpTarget): Promise<unknown> {
  const res = await fetch(`${baseUrl}${t.path}`, {
    method: t.method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(t.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(t.body === undefined ? {} : { body: t.body }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${t.method} ${t.path} answered ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}
