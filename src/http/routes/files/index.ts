// Client files and upload links (docs/api.md, "Client files" and "Upload links"). Uploads
// are multipart and streamed (multipart.ts); the download streams the stored bytes.
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';
import { ClientFile, UploadSession, UuidParam, documented, errors, example, idParams, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { presentFile, presentUploadSession } from '../../../services/present.ts';
import { attachmentDisposition } from '../../../domain/fileNames.ts';
import {
  addClientFile,
  listClientFiles,
  openClientFile,
  removeClientFile,
  type FileDeps,
} from '../../../services/files.ts';
import {
  DEFAULT_LINK_HOURS,
  MAX_LINK_HOURS,
  createUploadLink,
  listUploadLinks,
  revokeUploadLink,
} from '../../../services/uploadLinks.ts';
import { UploadBody, receiveFile, registerMultipart } from './multipart.ts';
import { proxyTrust, publicBase } from '../../origin.ts';
import { write } from '../../idempotency.ts';

const IdParams = idParams(ex.ids.client);
const FileParams = Type.Object({ id: UuidParam(ex.ids.client), fileId: UuidParam(ex.ids.file) });
const SessionParams = Type.Object({ id: UuidParam(ex.ids.client), sessionId: UuidParam(ex.ids.session) });
// a name longer than any stored one (255 UTF-8 bytes) names nothing; the handler says 404
const DownloadParams = Type.Object({
  clientId: UuidParam(ex.ids.client),
  filename: Type.String({ minLength: 1, maxLength: 500, examples: [ex.clientFile.file_name] }),
});

// the body is optional: no body (or an empty one) takes the defaults
const CreateSessionBody = example(
  Type.Union([
    Type.Object(
      {
        expires_in_hours: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_LINK_HOURS,
            description: `hours until the link expires; default ${DEFAULT_LINK_HOURS}, at most ${MAX_LINK_HOURS} (30 days)`,
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
  { expires_in_hours: 48 },
);
const CreatedSession = Type.Object({
  session: ref(UploadSession),
  upload_url: Type.String({ description: 'where the client uploads: POST multipart, field "file", no API key' }),
  token: Type.String({ description: 'the secret of the link, shown this once; only its hash is stored' }),
});

const Binary = {
  description: "The file's bytes, with Content-Type = its file_type and Content-Disposition: attachment",
  content: {
    'application/octet-stream': { schema: { type: 'string', format: 'binary' }, example: '%PDF-1.7 …' },
  },
};

export default async function fileRoutes(app: App) {
  const deps = (req: FastifyRequest): FileDeps => ({ db: app.db.kysely, storage: app.storage, log: req.log });
  const trust = proxyTrust(app.config.trustProxy);

  app.get(
    '/clients/:id/files',
    {
      schema: {
        operationId: 'listClientFiles',
        tags: ['files'],
        summary: "List a client's files, oldest first",
        params: IdParams,
        response: { 200: documented(Type.Array(ref(ClientFile)), "The client's files", [ex.clientFile]) },
      },
    },
    async (req) => (await listClientFiles(app.db.kysely, req.auth.businessId, req.params.id)).map(presentFile),
  );

  // only this route parses multipart
  await app.register(async (mp: App) => {
    await registerMultipart(mp);
    mp.post(
      '/clients/:id/files',
      {
        // employees write clients, credits, payments, files and upload links (docs/users.md)
        config: { role: 'employee' },
        schema: {
          operationId: 'uploadClientFile',
          tags: ['files'],
          summary: 'Upload a file for a client (multipart, field "file")',
          description:
            'The type is detected from the content: JPEG, PNG, WebP or PDF (415 otherwise). At most MAX_FILE_BYTES (default 10 MiB; 413 beyond). ' +
            'The name is made safe and unique per client: a clash gets a numbered suffix, "dni (1).pdf".',
          params: IdParams,
          body: UploadBody,
          response: { 201: documented(ref(ClientFile), 'The file stored', ex.clientFile), ...errors(409) },
        },
      },
      async (req, reply) =>
        write(
          req,
          reply,
          201,
          (ctx) => addClientFile(deps(req), ctx, req.params.id, () => receiveFile(req, app.config.maxFileBytes)),
          presentFile,
        ),
    );
  });

  app.delete(
    '/clients/:id/files/:fileId',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'deleteClientFile',
        tags: ['files'],
        'x-contract': 9,
        summary: 'Delete a client file: its record and its bytes; answers the deleted record',
        params: FileParams,
        response: { 200: documented(ref(ClientFile), 'The record of the file deleted', ex.clientFile) },
      },
    },
    async (req) => presentFile(await removeClientFile(deps(req), req.auth, req.params.id, req.params.fileId)),
  );

  app.get(
    '/files/:clientId/:filename',
    {
      schema: {
        operationId: 'downloadClientFile',
        tags: ['files'],
        'x-contract': 11,
        summary: 'Download a client file by client id and file name',
        description: "The name is the file's file_name, percent-encoded as in its file_url.",
        params: DownloadParams,
        response: { 200: Binary },
      },
    },
    async (req, reply) => {
      const { file, stream, size } = await openClientFile(
        deps(req),
        req.auth.businessId,
        req.params.clientId,
        req.params.filename,
      );
      reply
        .header('content-type', file.file_type)
        .header('content-length', String(size))
        .header('content-disposition', attachmentDisposition(file.file_name))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .header('content-security-policy', "default-src 'none'; sandbox");
      // HEAD too: fastify's HEAD route drains the stream and keeps this Content-Length
      return reply.send(stream);
    },
  );

  app.post(
    '/clients/:id/upload-sessions',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'createUploadSession',
        tags: ['files'],
        summary: 'Create an upload link for a client; the token is shown once',
        description: `The link accepts up to 20 files until it expires (default ${DEFAULT_LINK_HOURS} hours, at most ${MAX_LINK_HOURS}) or is revoked.`,
        params: IdParams,
        body: CreateSessionBody,
        response: {
          201: documented(CreatedSession, 'The link: where to upload, and its token (shown this once)', ex.uploadLink),
        },
      },
    },
    async (req, reply) =>
      write(
        req,
        reply,
        201,
        (ctx) => createUploadLink(app.db.kysely, ctx, req.params.id, req.body?.expires_in_hours),
        // a replay answers this again, token included (docs/api.md, Idempotency keys)
        ({ session, token }) => ({
          session: presentUploadSession(session),
          upload_url: `${publicBase(req, app.config, trust)}/upload/${token}`,
          token,
        }),
      ),
  );

  app.get(
    '/clients/:id/upload-sessions',
    {
      schema: {
        operationId: 'listUploadSessions',
        tags: ['files'],
        summary: "List a client's upload links, oldest first (never their tokens)",
        params: IdParams,
        response: {
          200: documented(Type.Array(ref(UploadSession)), "The client's upload links", [ex.uploadSession]),
        },
      },
    },
    async (req) => (await listUploadLinks(app.db.kysely, req.auth.businessId, req.params.id)).map(presentUploadSession),
  );

  app.delete(
    '/clients/:id/upload-sessions/:sessionId',
    {
      // employees write clients, credits, payments, files and upload links (docs/users.md)
      config: { role: 'employee' },
      schema: {
        operationId: 'revokeUploadSession',
        tags: ['files'],
        'x-contract': 10,
        summary: 'Revoke an upload link; revoking again answers the same record, with the first revoked_at',
        params: SessionParams,
        response: {
          200: documented(ref(UploadSession), 'The link, revoked', {
            ...ex.uploadSession,
            revoked_at: '2026-03-20T16:00:00.000Z',
          }),
        },
      },
    },
    async (req) =>
      presentUploadSession(await revokeUploadLink(app.db.kysely, req.auth, req.params.id, req.params.sessionId)),
  );
}
