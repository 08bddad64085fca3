// The one way the console talks to the service: the public API with the session cookie (sent by
// the browser) and, on every write, X-CSRF-Token equal to the `csrf` cookie (docs/users.md,
// "Calling /api with a session"). A 401 anywhere but the sign-in itself means the session ended:
// the listener set by the app sends the person back to the sign-in page with a message.

export interface ErrorDetail {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
  /** The first message about one body field (`/cuit` → its message), for the field's own error line. */
  fieldError(field: string): string | undefined {
    return this.details.find((d) => d.path === `/${field}` || d.path.startsWith(`/${field}/`))?.message;
  }
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  next_cursor?: string | null;
}

let onSessionEnded: () => void = () => {};
export const setSessionEndedHandler = (f: () => void) => {
  onSessionEnded = f;
};

// over https the cookie is __Host-csrf (docs/security.md, "Sessions and cookies"), over plain http csrf
export const csrfToken = () => /(?:^|;\s*)(?:__Host-)?csrf=([^;]+)/.exec(document.cookie)?.[1] ?? '';

/** A query string from the values that are set (empty strings and nulls are left out). */
export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /** one per form: a retried or double-clicked submit is answered once */
  idempotencyKey?: string;
  accept?: string;
}

/**
 * The furthest Consistency-Token a write has been answered with (only when the service reads a
 * replica): sent with every later request, so a list read right after a write shows it whichever
 * process of the service answers (docs/deployment.md#read-replicas).
 */
let consistency: { token: string; at: bigint } | null = null;

function noteConsistency(res: Response): void {
  const token = res.headers.get('consistency-token');
  const m = token ? /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(token) : null;
  if (!token || !m) return;
  const at = (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`);
  if (!consistency || at > consistency.at) consistency = { token, at };
}

async function send(path: string, o: CallOptions): Promise<Response> {
  const method = o.method ?? (o.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { accept: o.accept ?? 'application/json' };
  if (consistency && path.startsWith('/api/')) headers['consistency-token'] = consistency.token;
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
  let body: BodyInit | undefined;
  if (o.body instanceof FormData) body = o.body;
  else if (o.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'network', 'network');
  }
  noteConsistency(res);
  if (!res.ok) {
    let e: { error?: string; code?: string; details?: ErrorDetail[] } = {};
    try {
      e = await res.json();
    } catch {}
    if (res.status === 401 && path !== '/auth/login' && path !== '/auth/me') onSessionEnded();
    throw new ApiError(res.status, e.code ?? 'error', e.error ?? res.statusText, e.details ?? []);
  }
  return res;
}

export async function api<T>(path: string, o: CallOptions = {}): Promise<T> {
  const res = await send(path, o);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A PDF of the API (receipt, statement, contract) opened in a new tab from a blob: it needs Accept: application/pdf. */
export async function openPdf(path: string): Promise<void> {
  const tab = window.open('', '_blank');
  const res = await send(path, { accept: 'application/pdf' });
  const url = URL.createObjectURL(await res.blob());
  if (tab) tab.location.href = url;
  else window.location.href = url;
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export const newKey = () => crypto.randomUUID();
