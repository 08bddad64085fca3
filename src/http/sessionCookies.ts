// The two cookies of a session (docs/users.md, docs/security.md): the session token (HttpOnly:
// scripts never see it), and the session's CSRF token, which the page's script reads and sends
// back as X-CSRF-Token on every write. Both SameSite=Lax, Path=/, lasting as long as the session
// can.
//
// Served over https (the request came over https, directly or through a trusted proxy that says
// so, or PUBLIC_URL is https) they are `__Host-lending_session` and `__Host-csrf`, with Secure: the
// browser then refuses them from plain http and from any other host or path (a sibling subdomain
// cannot plant a session or a CSRF token). Over plain http, in development on 127.0.0.1, the
// browser would drop a `__Host-` cookie: they are `lending_session` and `csrf`, without Secure.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export const CSRF_HEADER = 'x-csrf-token';

const secure = (req: FastifyRequest, config: Config) =>
  req.protocol === 'https' || (config.publicUrl?.startsWith('https:') ?? false);

/** The names of the two cookies for this request: __Host- prefixed over https. */
export function cookieNames(req: FastifyRequest, config: Config): { session: string; csrf: string } {
  return secure(req, config)
    ? { session: '__Host-lending_session', csrf: '__Host-csrf' }
    : { session: 'lending_session', csrf: 'csrf' };
}

/** A cookie of the request, if it sent one. */
function cookieOf(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header === '') return null;
  try {
    return parseCookie(header)[name] ?? null;
  } catch {
    return null;
  }
}

/** The session token the request's cookie carries, if any. */
export const sessionToken = (req: FastifyRequest, config: Config) => cookieOf(req, cookieNames(req, config).session);

/** The CSRF token the request's cookie carries, if any. */
export const csrfCookie = (req: FastifyRequest, config: Config) => cookieOf(req, cookieNames(req, config).csrf);

function setCookies(
  reply: FastifyReply,
  req: FastifyRequest,
  config: Config,
  session: string,
  csrf: string,
  maxAge: number,
) {
  const names = cookieNames(req, config);
  const common = { path: '/', sameSite: 'lax' as const, secure: secure(req, config), maxAge };
  reply.header('set-cookie', [
    stringifySetCookie({ name: names.session, value: session, httpOnly: true, ...common }),
    stringifySetCookie({ name: names.csrf, value: csrf, ...common }),
  ]);
}

/** Hands a new session to the browser. */
export function giveSession(
  reply: FastifyReply,
  req: FastifyRequest,
  config: Config,
  s: { token: string; csrf: string; expiresAt: Date },
  now: Date,
) {
  const seconds = Math.max(1, Math.floor((s.expiresAt.getTime() - now.getTime()) / 1000));
  setCookies(reply, req, config, s.token, s.csrf, seconds);
}

/** Tells the browser to drop both cookies. */
export function dropSession(reply: FastifyReply, req: FastifyRequest, config: Config) {
  setCookies(reply, req, config, '', '', 0);
}
