// One HTTP exchange with the server, recorded so that a failure can show the request that caused it.

export interface Request {
  method: string;
  /** path and query, already encoded as they go on the wire */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

export interface Response {
  /** 0 when no answer arrived (connection refused or reset, timeout) */
  status: number;
  headers: Headers;
  text: string;
  /** the parsed body when it is JSON */
  json: unknown;
  /** why no answer arrived */
  error?: string;
  ms: number;
}

const NO_HEADERS = new Headers();

export async function send(base: string, req: Request, timeoutMs: number): Promise<Response> {
  const t0 = performance.now();
  try {
    const res = await fetch(base + req.path, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json, ms: performance.now() - t0 };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
    return { status: 0, headers: NO_HEADERS, text: '', json: undefined, error: why, ms: performance.now() - t0 };
  }
}

/** Long runs of one character (huge strings) shown as "x×100000". */
function squeeze(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; ) {
    let j = i + 1;
    while (j < s.length && s[j] === s[i]) j++;
    out += j - i >= 40 ? `${s[i]}×${j - i}` : s.slice(i, j);
    i = j;
  }
  return out;
}

/** The request in one line a person can replay with curl-like tools (bodies cut to `max` characters). */
export function describe(req: Request, max = 400): string {
  const headers = Object.entries(req.headers ?? {})
    .map(([k, v]) => `${k}: ${/^authorization$|^x-api-key$/i.test(k) ? v.replace(/lk_\w+?_\S+/, 'lk_…') : v}`)
    .join('; ');
  let body = '';
  if (typeof req.body === 'string')
    body = JSON.stringify(squeeze(req.body).slice(0, max)) + (squeeze(req.body).length > max ? '…' : '');
  else if (req.body instanceof Uint8Array)
    body = `<${req.body.length} bytes: ${JSON.stringify(Buffer.from(req.body.subarray(0, 120)).toString('latin1'))}…>`;
  else if (req.body instanceof FormData) body = `<multipart: ${[...req.body.keys()].join(', ')}>`;
  const path = squeeze(req.path).slice(0, max);
  return `${req.method} ${path}${headers ? ` [${headers}]` : ''}${body ? ` ${body}` : ''}`;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const jsonHeaders = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' });
