// Signing in and out, the current user, and setting a password from a link (docs/users.md). Not
// under /api: no API key. Sign-in and set-password are public (limited per address, and sign-in
// also by its failures per email and per address); me and logout take the session cookie.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';
import { Business, Nullable, Uuid, User, documented, errorResponse, errors, example, ref } from '../../schemas.ts';
import { requireSession } from '../../plugins/auth.ts';
import { csrfCookie, dropSession, giveSession, sessionToken } from '../../sessionCookies.ts';
import { MAX_PASSWORD_LENGTH } from '../../../domain/access.ts';
import { AppError } from '../../../domain/errors.ts';
import {
  PASSWORD_TOKEN_PATTERN,
  authenticateSession,
  csrfMatches,
  sessionPolicy,
  setPasswordWithLink,
  signIn,
  signOut,
  whoAmI,
  type Started,
} from '../../../services/sessions.ts';
import * as ux from '../users/examples.ts';
import { setPasswordPage } from './page.ts';
import { addressGroup } from '../../addresses.ts';

/** What /auth/me answers, and sign-in, set-password and the impersonation routes too. */
export const Me = Type.Object({
  user: Nullable(ref(User)),
  business: Nullable(ref(Business)),
  operator: Nullable(
    Type.Object(
      { id: Uuid, email: Type.String(), name: Nullable(Type.String()) },
      { description: 'the signed-in platform operator (acting as the user when user is set), else null' },
    ),
  ),
  impersonated_by: Nullable(
    Type.String({ description: "the operator's email while an operator acts as the user; null otherwise" }),
  ),
});

const Password = Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH * 4 });
const LoginBody = example(
  Type.Object(
    {
      email: Type.String({ minLength: 1, maxLength: 254 }),
      password: Password,
      business_id: Type.Optional(Uuid),
    },
    { additionalProperties: false },
  ),
  { email: 'laura@demo.example', password: 'correct horse battery staple' },
);
const SetPasswordBody = example(
  Type.Object(
    {
      token: Type.String({
        pattern: PASSWORD_TOKEN_PATTERN,
        description: 'the token of the set-password link (after #token=)',
      }),
      password: Type.String({
        minLength: 1,
        maxLength: MAX_PASSWORD_LENGTH * 4,
        description: 'at least 12 characters',
      }),
    },
    { additionalProperties: false },
  ),
  { token: ux.passwordToken, password: 'correct horse battery staple' },
);

/** Answers a new session: the cookies, and who it is. */
export function started(app: App, req: FastifyRequest, reply: FastifyReply, s: Started, now: Date) {
  giveSession(reply, req, app.config, s, now);
  return reply.send(s.me);
}

/** Sign-in, set-password and the set-password page: public, limited per address by the scope they are registered in. */
export async function signInRoutes(app: App) {
  app.post(
    '/auth/login',
    {
      schema: {
        operationId: 'signIn',
        tags: ['sessions'],
        summary: 'Sign in with email and password: sets the session cookie and the csrf cookie',
        description:
          'A user of a business or a platform operator. When the same email and password open accounts in several businesses, send business_id (409 otherwise; the answer names no business). ' +
          'Failed sign-ins are limited per account and per address (429 with Retry-After): once an account has failed LOGIN_FAILURES_PER_ACCOUNT times, an address that failed on it waits a doubling delay between attempts, while the right password from another address still signs in. Any session the request came with ends: a sign-in always starts a new one.',
        security: [],
        body: LoginBody,
        response: {
          200: documented(
            Me,
            'Signed in: who the session is (Set-Cookie carries the session and csrf cookies)',
            ux.meUser,
          ),
          401: errorResponse(401, { error: 'the email or the password is wrong', code: 'unauthorized' }),
          ...errors(409),
        },
      },
    },
    async (req, reply) => {
      const now = app.clock();
      const s = await signIn(
        app.db,
        {
          email: req.body.email,
          password: req.body.password,
          ...(req.body.business_id ? { businessId: req.body.business_id } : {}),
          address: addressGroup(req.ip),
          previousToken: sessionToken(req, app.config),
        },
        now,
        sessionPolicy(app.config),
      );
      return started(app, req, reply, s, now);
    },
  );

  app.post(
    '/auth/set-password',
    {
      schema: {
        operationId: 'setPassword',
        tags: ['sessions'],
        summary: 'Choose a password with a one-time set-password link (at least 12 characters)',
        description:
          'The link stops working once used, after 72 hours, or when a newer one is made (410). Every session of the account ends: sign in with the new password.',
        security: [],
        body: SetPasswordBody,
        response: {
          200: documented(Me, 'The password is set: whose it is (not signed in)', {
            ...ux.meUser,
            user: { ...ux.employee, password_set_at: '2026-03-20T12:10:00.000Z' },
          }),
          ...errors(410),
        },
      },
    },
    async (req) => setPasswordWithLink(app.db, req.body.token, req.body.password, app.clock()),
  );

  app.get('/set-password', { schema: { hide: true } }, async (_req, reply) => setPasswordPage(reply));
}

/** The routes of a signed-in session: who am I, sign out. */
export async function sessionRoutes(app: App) {
  app.post(
    '/auth/logout',
    {
      schema: {
        operationId: 'signOut',
        tags: ['sessions'],
        summary: 'Sign out: the session ends and both cookies are dropped (X-CSRF-Token required with a session)',
        description: 'Without a session, or with one that has already ended, it answers 204 all the same.',
        response: { 204: Type.Null({ description: 'Signed out' }), 403: errorResponse(403) },
      },
    },
    async (req, reply) => {
      const token = sessionToken(req, app.config);
      if (token) {
        const session = await authenticateSession(app.db, token, app.clock(), sessionPolicy(app.config)).catch(
          () => null,
        );
        // a live session ends only at its own page's request (another site cannot sign a person out)
        if (session) {
          const sent = req.headers['x-csrf-token'];
          if (typeof sent !== 'string' || sent !== csrfCookie(req, app.config) || !csrfMatches(session, sent))
            throw new AppError('forbidden', 'signing out needs the X-CSRF-Token header, equal to the csrf cookie');
          await signOut(app.db, token, session, app.clock());
        }
      }
      dropSession(reply, req, app.config);
      return reply.status(204).send(null);
    },
  );

  await app.register(async (signedIn) => {
    requireSession(signedIn as App);
    signedIn.get(
      '/auth/me',
      {
        schema: {
          operationId: 'getCurrentUser',
          tags: ['sessions'],
          summary: 'The current user: the session’s user and business, or the operator, and who acts as whom',
          security: [{ session: [] }],
          response: {
            200: documented(Me, 'Who the session is', ux.meUser, ux.meImpersonating, ux.meOperator),
            401: errorResponse(401),
          },
        },
      },
      async (req) => whoAmI(app.db, req.session!),
    );
  });
}
