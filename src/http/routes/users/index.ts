// The users of the business (docs/users.md), for its admins: list, invite (with a one-time link
// to set a password), edit, disable. A read key or any session below admin is refused by the auth
// plugin (every route here needs the role admin, the default for writes and declared for reads).
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import {
  DateTime,
  Page,
  PageQuery,
  ReadOnlyFields,
  User,
  documented,
  errors,
  example,
  idParams,
  ref,
} from '../../schemas.ts';
import { mailDeps, pageRequest, writable } from '../../helpers.ts';
import { proxyTrust, publicBase } from '../../origin.ts';
import { emailPasswordLink } from '../../../services/notifications.ts';
import { write } from '../../idempotency.ts';
import {
  createUser,
  disableUser,
  editUser,
  listUsers,
  newPasswordLink,
  readUser,
  setPasswordPath,
  type PasswordLink,
  type UserInfo,
} from '../../../services/users.ts';
import * as ux from './examples.ts';
import { addressGroup } from '../../addresses.ts';
import { confirmPassword, sessionPolicy } from '../../../services/sessions.ts';
import type { FastifyRequest } from 'fastify';

const { name, role, branch_id } = User.properties;
const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  description: 'unique within the business, whatever its case',
});
const CurrentPassword = Type.String({
  minLength: 1,
  maxLength: 1024,
  description:
    'your own password, asked again when the request makes an admin (role admin for a new user, or given to one); never stored',
});
const CreateBody = example(
  Type.Object(
    {
      email: Email,
      current_password: Type.Optional(CurrentPassword),
      name: Type.Optional(name),
      role,
      branch_id: Type.Optional(branch_id),
      ...ReadOnlyFields,
    },
    { additionalProperties: false },
  ),
  ux.userInput,
);
// a user read with GET may be PUT back whole: the fields only the service writes are ignored
const UpdateBody = example(
  Type.Object(
    {
      email: Type.Optional(Email),
      name: Type.Optional(name),
      role: Type.Optional(role),
      branch_id: Type.Optional(branch_id),
      disabled: Type.Optional(
        Type.Boolean({ description: 'true disables the user (their sessions end); false enables them' }),
      ),
      current_password: Type.Optional(CurrentPassword),
      disabled_at: Type.Optional(Type.Unknown()),
      last_login_at: Type.Optional(Type.Unknown()),
      password_set_at: Type.Optional(Type.Unknown()),
      ...ReadOnlyFields,
    },
    { additionalProperties: false },
  ),
  { role: 'admin' },
);
// the user's record with its link, as a created key is its record with its secret
const Invitation = Type.Object({
  ...User.properties,
  set_password_url: Type.String({
    description: 'the one-time link to send the user (valid 72 hours; shown this once): they choose a password there',
  }),
  set_password_expires_at: DateTime,
});
const IdParams = idParams(ux.userIds.employee);
const ADMIN = { role: 'admin' as const };
// a user or a link made by an operator acting as an admin would outlive the impersonation
const ADMIN_CREATES = { ...ADMIN, notWhileImpersonating: true };
// a set-password link is a way into an account: a signed-in admin's, never an API key's
const ADMIN_SESSION_CREATES = { ...ADMIN_CREATES, sessionsOnly: true };
const MAKES_ADMIN =
  'Making an admin (role admin here) needs a signed-in admin’s session, never an API key or an operator acting as an admin (403), and their own current_password (400 without it, 403 when wrong; wrong ones count as failed sign-ins).';

export default async function userRoutes(app: App) {
  const trust = proxyTrust(app.config.trustProxy);
  // the caller's own password, checked again before making an admin (services/users.ts)
  const reauth = (req: FastifyRequest, password: string | undefined) => ({
    password,
    check: (p: string) =>
      confirmPassword(
        app.db,
        { businessId: req.auth.businessId, id: req.auth.userId! },
        p,
        addressGroup(req.ip),
        app.clock(),
        sessionPolicy(app.config),
      ),
  });
  const linkUrl = (req: Parameters<typeof publicBase>[0], link: PasswordLink) =>
    `${publicBase(req, app.config, trust)}${setPasswordPath(link.token)}`;
  const invitation = (req: Parameters<typeof publicBase>[0], r: { user: UserInfo; link: PasswordLink }) => ({
    ...r.user,
    set_password_url: linkUrl(req, r.link),
    set_password_expires_at: r.link.expires_at,
  });
  // the link is also e-mailed to the user (docs/notifications.md); the admin gets it either way
  const mailed = async (
    req: Parameters<typeof publicBase>[0],
    ctx: { businessId: string },
    r: { user: UserInfo; link: PasswordLink },
    invited: boolean,
  ) => {
    await emailPasswordLink(mailDeps(app), ctx, { ...r, url: linkUrl(req, r.link), invited });
    return r;
  };

  app.get(
    '/users',
    {
      config: ADMIN,
      schema: {
        operationId: 'listUsers',
        tags: ['users'],
        summary: "The business's users, oldest first (admins)",
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: {
          200: documented(Page(ref(User)), 'A page of users', { items: [ux.admin], total: 1, limit: 50, offset: 0 }),
        },
      },
    },
    async (req) => listUsers(app.db, req.auth, pageRequest(req.query)),
  );

  app.post(
    '/users',
    {
      config: ADMIN_CREATES,
      schema: {
        operationId: 'createUser',
        tags: ['users'],
        summary: 'Invite a user: created without a password, with a one-time link to set one (admins)',
        description:
          'The email is unique within the business, whatever its case (409). Send set_password_url to the person: it works once, for 72 hours. POST /api/users/{id}/password-link makes a new one. ' +
          MAKES_ADMIN,
        body: CreateBody,
        response: {
          201: documented(Invitation, 'The user with their set-password link (shown this once)', ux.invitation),
          ...errors(409, 422),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        201,
        (ctx) => {
          const { current_password, ...input } = writable(req.body);
          return createUser(app.db, ctx, input, reauth(req, current_password)).then((r) => mailed(req, ctx, r, true));
        },
        (r) => invitation(req, r),
      ),
  );

  app.get(
    '/users/:id',
    {
      config: ADMIN,
      schema: {
        operationId: 'getUser',
        tags: ['users'],
        summary: 'A user of the business (admins)',
        params: IdParams,
        response: { 200: documented(ref(User), 'The user', ux.employee) },
      },
    },
    async (req) => readUser(app.db, req.auth, req.params.id),
  );

  app.put(
    '/users/:id',
    {
      config: ADMIN,
      schema: {
        operationId: 'updateUser',
        tags: ['users'],
        summary: 'Edit a user: email, name, role, branch, disabled (admins; partial update)',
        description:
          'A new role counts from the user’s next request. Disabling ends their sessions. The last enabled admin of the business cannot stop being one (409). ' +
          MAKES_ADMIN,
        params: IdParams,
        body: UpdateBody,
        response: {
          200: documented(ref(User), 'The user as they are now', { ...ux.employee, role: 'admin' }),
          ...errors(409, 422),
        },
      },
    },
    async (req) => {
      const {
        disabled_at: _d,
        last_login_at: _l,
        password_set_at: _p,
        current_password,
        ...fields
      } = writable(req.body ?? {});
      return editUser(app.db, req.auth, req.params.id, fields, reauth(req, current_password));
    },
  );

  app.delete(
    '/users/:id',
    {
      config: ADMIN,
      schema: {
        operationId: 'deleteUser',
        tags: ['users'],
        summary: 'Disable a user: they can no longer sign in and their sessions end (admins)',
        description:
          'The user stays (the audit log names them) with disabled_at set; PUT {"disabled": false} enables them again. The last enabled admin cannot be disabled (409).',
        params: IdParams,
        response: {
          200: documented(ref(User), 'The user, disabled', { ...ux.employee, disabled_at: '2026-03-21T09:00:00.000Z' }),
          ...errors(409),
        },
      },
    },
    async (req) => disableUser(app.db, req.auth, req.params.id),
  );

  app.post(
    '/users/:id/password-link',
    {
      config: ADMIN_SESSION_CREATES,
      schema: {
        operationId: 'createPasswordLink',
        tags: ['users'],
        summary: 'A new one-time set-password link for a user (signed-in admins); older links stop working',
        description:
          'A way into the account: a signed-in admin’s session only, never an API key or an operator acting as an admin (403).',
        params: IdParams,
        response: {
          201: documented(Invitation, 'The user with the new link (shown this once)', ux.invitation),
          ...errors(409),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        201,
        (ctx) => newPasswordLink(app.db, ctx, req.params.id).then((r) => mailed(req, ctx, r, false)),
        (r) => invitation(req, r),
      ),
  );
}
