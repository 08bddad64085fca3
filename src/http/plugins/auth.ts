// Who a request is (contract "Authentication"; docs/users.md): an API key, sent as Authorization:
// Bearer <key> or X-API-Key: <key>, or, without one, a user's session cookie. Runs before the body
// is parsed, so a request that is not allowed learns nothing about its body or the resources it
// names.
//
// What each may do:
// - a key of scope read what a viewer may (the safe methods of routes that need no higher role);
//   scope full everything under /api but the routes marked sessionsOnly (/api/keys: keys are
//   administered by signed-in admins);
// - a session what its user's role allows: each route declares the least role it needs as route
//   config (`config: { role: 'employee' }`); undeclared, a read needs viewer and a write admin.
//   A write under a session must also carry X-CSRF-Token equal to the csrf cookie (and to the
//   session's own token), else 403: another site can make a browser send the cookie, never read it.
// The role each route needs and whether keys may call it are also written into the OpenAPI
// document (x-required-role, security), where the security suite reads them.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { allows, type Role } from '../../domain/access.ts';
import { AppError } from '../../domain/errors.ts';
import { authenticate } from '../../services/apiKeys.ts';
import { actorContext } from '../../services/context.ts';
import { authenticateSession, csrfMatches, sessionPolicy, type SessionAuth } from '../../services/sessions.ts';
import { errorResponse } from '../schemas.ts';
import { CSRF_HEADER, csrfCookie, sessionToken } from '../sessionCookies.ts';
import type { App } from '../types.ts';

/** Called once on the root app: every request has `session` (null until a hook finds one). */
export function decorateSession(app: App) {
  app.decorateRequest('session', null);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** the least role a session needs here; undeclared: viewer for a read, admin for a write */
    role?: Role;
    /** signed-in users only: an API key is refused (403) */
    sessionsOnly?: boolean;
    /**
     * refused (403) to an operator acting as a user: what would outlive the impersonation (a key,
     * a user, a set-password link)
     */
    notWhileImpersonating?: boolean;
  }
  interface FastifyRequest {
    /** the request's session, when it came with one (/auth, /admin, and /api without a key) */
    session: SessionAuth | null;
  }
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const asList = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function presentedKey(req: FastifyRequest): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth.trim() !== '') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth.trim());
    return m ? m[1]! : null;
  }
  const x = req.headers['x-api-key'];
  if (typeof x === 'string' && x.trim() !== '') return x.trim();
  return null;
}

const hasKeyHeader = (req: FastifyRequest) =>
  (typeof req.headers.authorization === 'string' && req.headers.authorization.trim() !== '') ||
  (typeof req.headers['x-api-key'] === 'string' && req.headers['x-api-key'].trim() !== '');

/** The least role a route needs: its own declaration, or viewer for a read and admin for a write. */
export function requiredRole(route: Pick<RouteOptions, 'method' | 'config'>): Role {
  const declared = (route.config as { role?: Role } | undefined)?.role;
  if (declared) return declared;
  return asList(route.method).every((m) => SAFE.has(m)) ? 'viewer' : 'admin';
}

/** The session of the request's cookie, or null when it sent none; 401 when it has ended. */
async function sessionOf(app: App, req: FastifyRequest): Promise<SessionAuth | null> {
  const token = sessionToken(req, app.config);
  if (!token) return null;
  return authenticateSession(app.db, token, app.clock(), sessionPolicy(app.config));
}

/** A write under a session carries X-CSRF-Token equal to the csrf cookie and to the session's token. */
function checkCsrf(req: FastifyRequest, session: SessionAuth) {
  if (SAFE.has(req.method)) return;
  const sent = req.headers[CSRF_HEADER];
  const cookie = csrfCookie(req, (req.server as App).config);
  if (typeof sent !== 'string' || !cookie || sent !== cookie || !csrfMatches(session, sent))
    throw new AppError(
      'forbidden',
      'a write under a session must carry the X-CSRF-Token header, equal to the csrf cookie of the session',
    );
}

/** The /api scope: a key or a session, with the scope or role the route needs. */
export function requireAuth(app: App) {
  app.decorateRequest('auth', null as never);
  const policyDoc = (route: RouteOptions) => {
    const role = requiredRole(route);
    route.config = { ...route.config, role };
    const schema = route.schema as Record<string, unknown> | undefined;
    if (!schema || schema.hide) return;
    const response = (schema.response ?? {}) as Record<string, unknown>;
    route.schema = {
      ...schema,
      'x-required-role': role,
      ...(route.config.sessionsOnly ? { security: [{ session: [] }] } : {}),
      ...(route.config.notWhileImpersonating ? { 'x-not-while-impersonating': true } : {}),
      // a read only some roles (or no key) may make answers 403 too
      response: response['403'] ? response : { ...response, 403: errorResponse(403) },
    } as RouteOptions['schema'];
  };
  app.addHook('onRoute', policyDoc);

  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config ?? {};
    if (hasKeyHeader(req)) {
      const key = presentedKey(req);
      if (!key)
        throw new AppError(
          'unauthorized',
          'an API key is required: send Authorization: Bearer <key> or X-API-Key: <key>',
        );
      const found = await authenticate(app.db, key, app.keyCache);
      if (found.scope !== 'full' && !SAFE.has(req.method)) {
        throw new AppError('forbidden', `this key has scope ${found.scope}: ${req.method} needs a key with scope full`);
      }
      if (config.sessionsOnly)
        throw new AppError('forbidden', 'API keys are administered by a signed-in admin, not with an API key');
      // a read key reads what a viewer may: the reads declared for a higher role (the users) need full
      const need = config.role ?? (SAFE.has(req.method) ? 'viewer' : 'admin');
      if (found.scope !== 'full' && !allows('viewer', need)) {
        throw new AppError('forbidden', `this key has scope ${found.scope}: this read needs a key with scope full`);
      }
      // the request's now and today, read once from the app's clock
      req.auth = {
        ...actorContext(found, `api_key:${found.keyId}`, app.clock),
        keyId: found.keyId,
        scope: found.scope,
        userId: null,
        role: null,
        sessionId: null,
      };
      return;
    }
    const session = await sessionOf(app, req);
    if (!session)
      throw new AppError(
        'unauthorized',
        'an API key or a session is required: send Authorization: Bearer <key> or X-API-Key: <key>, or sign in at POST /auth/login',
      );
    req.session = session;
    const user = session.user;
    if (!user)
      throw new AppError(
        'forbidden',
        'an operator works on a business by acting as one of its users: POST /admin/impersonate {"user_id"}',
      );
    checkCsrf(req, session);
    if (config.notWhileImpersonating && session.operator)
      throw new AppError(
        'forbidden',
        'an operator acting as a user cannot create keys, users or set-password links: they would outlive the impersonation',
      );
    const need = config.role ?? (SAFE.has(req.method) ? 'viewer' : 'admin');
    if (!allows(user.role, need))
      throw new AppError('forbidden', `this operation needs the role ${need} or above; this user is ${user.role}`);
    req.auth = {
      ...actorContext(
        { businessId: user.businessId, timezone: user.timezone },
        `user:${user.id}`,
        app.clock,
        session.operator?.email ?? null,
      ),
      branchId: user.branchId,
      keyId: null,
      scope: null,
      userId: user.id,
      role: user.role,
      sessionId: session.sessionId,
    };
  });
}

/**
 * /auth and /admin routes that need a session (me, logout, the operators' routes): 401 without
 * one, the CSRF rule on writes; `operator` asks for an operator's session (their own or an
 * impersonation they started).
 */
export function requireSession(app: App, opts: { operator?: boolean } = {}) {
  app.addHook('onRequest', async (req) => {
    const session = await sessionOf(app, req);
    if (!session) throw new AppError('unauthorized', 'sign in first: POST /auth/login');
    checkCsrf(req, session);
    if (opts.operator && !session.operator) throw new AppError('forbidden', 'only platform operators may use /admin');
    req.session = session;
  });
}
