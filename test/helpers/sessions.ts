// Signed-in users for tests: a user of a business with a role and a password, signed in through
// the real POST /auth/login, and the headers a browser would send with their session.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { createUser } from '../../src/services/users.ts';
import { setPasswordWithLink } from '../../src/services/sessions.ts';
import { actorContext } from '../../src/services/context.ts';
import { createOperator } from '../../src/services/users.ts';
import type { Role } from '../../src/domain/access.ts';
import type { Harness } from './app.ts';

export const PASSWORD = 'correct horse battery staple';

export interface Signed {
  /** the user's id, or the operator's */
  id: string;
  email: string;
  /** the session token and its CSRF token, as the cookies carry them */
  token: string;
  csrf: string;
  /** Cookie: both cookies (what a browser sends) */
  cookie: string;
  /** headers of a read: the cookie */
  read: Record<string, string>;
  /** headers of a write: the cookie and X-CSRF-Token */
  write: Record<string, string>;
}

/** The cookies a response sets, by name. */
export function setCookies(res: LightMyRequestResponse): Record<string, { value: string; attrs: string }> {
  const raw = res.headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  const out: Record<string, { value: string; attrs: string }> = {};
  for (const c of list) {
    const [pair, ...attrs] = c.split(';');
    const eq = pair!.indexOf('=');
    out[pair!.slice(0, eq).trim()] = { value: pair!.slice(eq + 1).trim(), attrs: attrs.join(';').trim() };
  }
  return out;
}

export function sessionOf(id: string, email: string, res: LightMyRequestResponse): Signed {
  assert.equal(res.statusCode, 200, `sign-in: ${res.body}`);
  const c = setCookies(res);
  const token = c.lending_session?.value;
  const csrf = c.csrf?.value;
  assert.ok(token && csrf, `no session cookies: ${JSON.stringify(res.headers['set-cookie'])}`);
  const cookie = `lending_session=${token}; csrf=${csrf}`;
  return { id, email, token, csrf, cookie, read: { cookie }, write: { cookie, 'x-csrf-token': csrf } };
}

/**
 * A client address of its own for a sign-in (198.18.0.0/15, the benchmarking range): the failures
 * one test provokes never count against another's sign-ins on the shared test database.
 */
export const someAddress = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

/** Signs in through POST /auth/login (from an address of its own unless given). */
export async function signIn(
  h: Harness,
  email: string,
  password = PASSWORD,
  extra: Record<string, unknown> = {},
  remoteAddress = someAddress(),
) {
  return h.app.inject({ method: 'POST', url: '/auth/login', remoteAddress, payload: { email, password, ...extra } });
}

/** A user of the business with this role and PASSWORD (created as the command line would), not signed in. */
export async function newUser(
  h: Harness,
  businessId: string,
  role: Role,
  opts: { email?: string; name?: string } = {},
): Promise<{ id: string; email: string }> {
  const email = opts.email ?? `${role}-${randomUUID().slice(0, 8)}@test.example`;
  const ctx = actorContext({ businessId, timezone: 'UTC' }, 'cli', h.clock);
  const { user, link } = await createUser(h.db, ctx, { email, role, name: opts.name ?? null });
  await setPasswordWithLink(h.db, link.token, PASSWORD, h.clock());
  return { id: user.id, email };
}

/** A user of the business with this role, signed in. */
export async function userSession(h: Harness, businessId: string, role: Role): Promise<Signed> {
  const u = await newUser(h, businessId, role);
  return sessionOf(u.id, u.email, await signIn(h, u.email));
}

/** A platform operator with PASSWORD, signed in. */
export async function operatorSession(h: Harness): Promise<Signed> {
  const email = `operator-${randomUUID().slice(0, 8)}@platform.example`;
  const { operator, link } = await createOperator(h.db, { email }, h.clock());
  await setPasswordWithLink(h.db, link.token, PASSWORD, h.clock());
  return sessionOf(operator.id, email, await signIn(h, email));
}

/** The operator acts as the user (POST /admin/impersonate): the impersonation's session. */
export async function impersonation(
  h: Harness,
  operator: Signed,
  user: { id: string; email: string },
): Promise<Signed> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/admin/impersonate',
    headers: operator.write,
    payload: { user_id: user.id },
  });
  return sessionOf(user.id, user.email, res);
}
