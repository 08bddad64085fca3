// Verifying a webhook delivery (docs/webhooks.md#verify-a-signature): the service sends
// `Lending-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, keyed with the
// endpoint's whole secret (whsec_… included, as UTF-8). Web Crypto only (Node 20+, browsers,
// workers): the HMAC is checked with crypto.subtle.verify, a constant-time comparison.

/** The header that carries the signature (lower case, as Node's IncomingMessage.headers has it). */
export const SIGNATURE_HEADER = 'lending-signature';

export interface VerifyWebhookOptions {
  /** how far `t` may be from now, in seconds (a captured request replayed later is refused); 300 by default */
  toleranceSeconds?: number;
  /** the present, for tests; Date.now() by default */
  now?: number | Date;
}

const utf8 = new TextEncoder();

function bytesOf(body: string | ArrayBuffer | ArrayBufferView): Uint8Array {
  if (typeof body === 'string') return utf8.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * Whether a delivery is genuine: `rawBody` exactly as received (the string, or its bytes: a Buffer,
 * before any JSON parsing), the Lending-Signature header, the endpoint's secret. False for a missing
 * or malformed header, a `t` outside the tolerance, or a signature that does not match.
 */
export async function verifyWebhook(
  rawBody: string | ArrayBuffer | ArrayBufferView,
  header: string | readonly string[] | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  const text = Array.isArray(header) ? header[0] : header;
  if (typeof text !== 'string' || !secret) return false;
  let t: number | null = null;
  const signatures: Uint8Array<ArrayBuffer>[] = [];
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (key === 'v1') {
      const sig = hexBytes(value);
      if (sig) signatures.push(sig);
    }
  }
  if (t === null || signatures.length === 0) return false;
  const now = options.now === undefined ? Date.now() : Number(options.now);
  if (Math.abs(now / 1000 - t) > (options.toleranceSeconds ?? 300)) return false;
  const key = await crypto.subtle.importKey('raw', utf8.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const body = bytesOf(rawBody);
  const prefix = utf8.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  for (const sig of signatures) {
    if (await crypto.subtle.verify('HMAC', key, sig, signed)) return true;
  }
  return false;
}
