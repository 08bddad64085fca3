// Read-your-writes across the service's processes: when the service reads from a replica, every
// write's answer carries a Consistency-Token (the write's position in the primary's log). This
// middleware keeps the furthest one it has seen and sends it with every later request, so a list
// read right after a write shows the write even when a load balancer sends the read to another
// process. Without a replica the service sends no token and this adds nothing.
import type { Middleware } from 'openapi-fetch';

export const CONSISTENCY_HEADER = 'Consistency-Token';

/** A log position ('16/B374D848') as a number that compares. */
function position(token: string): bigint | null {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(token);
  return m ? (BigInt(`0x${m[1]}`) << 32n) + BigInt(`0x${m[2]}`) : null;
}

/** An openapi-fetch middleware: remembers the furthest Consistency-Token answered, sends it on every request. */
export function readYourWrites(): Middleware {
  let latest: { token: string; at: bigint } | null = null;
  return {
    onRequest({ request }) {
      if (latest && !request.headers.has(CONSISTENCY_HEADER)) request.headers.set(CONSISTENCY_HEADER, latest.token);
      return request;
    },
    onResponse({ response }) {
      const token = response.headers.get(CONSISTENCY_HEADER);
      const at = token === null ? null : position(token);
      // concurrent writes may answer out of order: keep the furthest position
      if (token !== null && at !== null && (latest === null || at > latest.at)) latest = { token, at };
      return response;
    },
  };
}
