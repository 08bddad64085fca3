// The two cookies of a session (docs/users.md): `lending_session`, the session token (HttpOnly:
// scripts never see it), and `csrf`, the session's CSRF token, which the page's script reads and
// sends back as X-CSRF-Token on every write. Both SameSite=Lax, Path=/, Secure when the request
// came over https (directly, or through a trusted proxy that says so) or PUBLIC_URL is https;
// they last as long as the session can.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export const SESSION_COOKIE = 'lending_session';
export const CSRF_COOKIE = 'csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** A cookie of the request, if it sent one. */
export function cookieOf(req: FastifyRequest, name: string): string | null {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header === '') return null;
  try {
    return parseCookie(header)[name] ?? null;
  } catch {
    return null;
  }
}

const secure = (req: FastifyRequest, config: Config) =>
  req.protocol === 'https' || (config.publicUrl?.startsWith('https:') ?? false);

function setCookies(
  reply: FastifyReply,
  req: FastifyRequest,
  config: Config,
  session: string,
  csrf: string,
  maxAge: number,
) {
  const common = { path: '/', sameSite: 'lax' as const, secure: secure(req, config), maxAge };
  reply.header('set-cookie', [
    stringifySetCookie({ name: SESSION_COOKIE, value: session, httpOnly: true, ...common }),
    stringifySetCookie({ name: CSRF_COOKIE, value: csrf, ...common }),
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
