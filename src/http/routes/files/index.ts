// Client files (contract 9 and 11, API.md extensions) and upload links (contract 10). Uploads
// are multipart and streamed (multipart.ts); the download streams the stored bytes.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';
import { notFound } from '../../../domain/errors.ts';
import { ClientFile, IdParams, UploadSession, Uuid, errors, ref } from '../../schemas.ts';
import { presentFile, presentUploadSession } from '../../../services/present.ts';
import { withActor } from '../../../db/connection.ts';
import { getClient } from '../../../db/repositories/clients.ts';
import { filesOfClient, getFileByName } from '../../../db/repositories/files.ts';
import { insertUploadSession, listUploadSessions, revokeUploadSession } from '../../../db/repositories/uploadSessions.ts';
import { attachmentDisposition, isPlausibleFileName } from '../../../domain/fileNames.ts';
import {
  DEFAULT_LINK_HOURS,
  MAX_LINK_HOURS,
  hashUploadToken,
  newUploadToken,
  removeClientFile,
  storeClientFile,
  type FileDeps,
} from '../../../services/files.ts';
import { UploadBody, receiveFile, registerMultipart } from './multipart.ts';

const FileParams = Type.Object({ id: Uuid, fileId: Uuid });
const SessionParams = Type.Object({ id: Uuid, sessionId: Uuid });
// a name longer than any stored one (255 UTF-8 bytes) names nothing; the handler says 404
const DownloadParams = Type.Object({ clientId: Uuid, filename: Type.String({ minLength: 1, maxLength: 500 }) });

// the body is optional: no body (or an empty one) takes the defaults
const CreateSessionBody = Type.Union([
  Type.Object(
    {
      expires_in_hours: Type.Optional(
        Type.Integer({ minimum: 1, maximum: MAX_LINK_HOURS, description: `hours until the link expires; default ${DEFAULT_LINK_HOURS}, at most ${MAX_LINK_HOURS} (30 days)` }),
      ),
    },
    { additionalProperties: false },
  ),
  Type.Null(),
]);
const CreatedSession = Type.Object({
  session: ref(UploadSession),
  upload_url: Type.String({ description: 'where the client uploads: POST multipart, field "file", no API key' }),
  token: Type.String({ description: 'the secret of the link, shown this once; only its hash is stored' }),
});

const Binary = {
  description: "the file's bytes, with Content-Type = its file_type and Content-Disposition: attachment",
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
};

/** Where an upload link points: PUBLIC_URL when set, else the host and scheme this request came to. */
function uploadUrl(req: FastifyRequest, publicUrl: string | null, token: string): string {
  const base = publicUrl ?? `${req.protocol}://${req.host}`;
  return `${base}/upload/${token}`;
}

export default async function fileRoutes(app: App) {
  const deps = (req: FastifyRequest): FileDeps => ({ db: app.db.kysely, storage: app.storage, log: req.log });

  async function requireClient(businessId: string, clientId: string) {
    const client = await getClient(app.db.kysely, businessId, clientId);
    if (!client) throw notFound('client');
    return client;
  }

  app.get(
    '/clients/:id/files',
    {
      schema: {
        tags: ['files'],
        summary: "List a client's files, oldest first",
        params: IdParams,
        response: { 200: Type.Array(ref(ClientFile)), ...errors(401, 404) },
      },
    },
    async (req) => {
      await requireClient(req.auth.businessId, req.params.id);
      return (await filesOfClient(app.db.kysely, req.auth.businessId, req.params.id)).map(presentFile);
    },
  );

  // only this route parses multipart
  await app.register(async (mp: App) => {
    await registerMultipart(mp);
    mp.post(
      '/clients/:id/files',
      {
        schema: {
          tags: ['files'],
          summary: 'Upload a file for a client (multipart, field "file")',
          description:
            'The type is detected from the content: JPEG, PNG, WebP or PDF (415 otherwise). At most MAX_FILE_BYTES (default 10 MiB; 413 beyond). ' +
            'The name is made safe and unique per client: a clash gets a numbered suffix, "dni (1).pdf".',
          params: IdParams,
          body: UploadBody,
          response: { 201: ref(ClientFile), ...errors(400, 401, 403, 404, 409, 413, 415) },
        },
      },
      async (req, reply) => {
        const bid = req.auth.businessId;
        const client = await requireClient(bid, req.params.id);
        const upload = await receiveFile(req, app.config.maxFileBytes);
        const row = await storeClientFile(deps(req), { businessId: bid, clientId: client.id, actor: req.auth.actor, uploadSessionId: null }, upload);
        return reply.status(201).send(presentFile(row));
      },
    );
  });

  app.delete(
    '/clients/:id/files/:fileId',
    {
      schema: {
        tags: ['files'],
        summary: 'Delete a client file: its record and its bytes (contract 9); answers the deleted record',
        params: FileParams,
        response: { 200: ref(ClientFile), ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      const row = await removeClientFile(deps(req), req.auth.actor, req.auth.businessId, req.params.id, req.params.fileId);
      if (!row) throw notFound('file');
      return presentFile(row);
    },
  );

  app.get(
    '/files/:clientId/:filename',
    {
      schema: {
        tags: ['files'],
        summary: 'Download a client file by client id and file name (contract 11)',
        description: "The name is the file's file_name, percent-encoded as in its file_url.",
        params: DownloadParams,
        response: { 200: Binary, ...errors(401, 404) },
      },
    },
    async (req, reply) => {
      const bid = req.auth.businessId;
      const { clientId, filename } = req.params;
      // separators, control characters, "." and "..": never a stored name (and NUL is not even
      // valid database text)
      if (!isPlausibleFileName(filename)) throw notFound('file');
      const row = await getFileByName(app.db.kysely, bid, clientId, filename);
      if (!row) throw notFound('file');
      const stored = await app.storage.get(row.storage_key);
      if (!stored) {
        // a delete that committed between the lookup and the open, or bytes lost outside the service
        req.log.warn({ fileId: row.id, key: row.storage_key }, 'a file row points at missing bytes');
        throw notFound('file');
      }
      reply
        .header('content-type', row.file_type)
        .header('content-length', String(stored.size))
        .header('content-disposition', attachmentDisposition(row.file_name))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, no-store')
        .header('content-security-policy', "default-src 'none'; sandbox");
      // HEAD too: fastify's HEAD route drains the stream and keeps this Content-Length
      return reply.send(stored.stream);
    },
  );

  app.post(
    '/clients/:id/upload-sessions',
    {
      schema: {
        tags: ['files'],
        summary: 'Create an upload link for a client; the token is shown once',
        description: `The link accepts up to 20 files until it expires (default ${DEFAULT_LINK_HOURS} hours, at most ${MAX_LINK_HOURS}) or is revoked.`,
        params: IdParams,
        body: CreateSessionBody,
        response: { 201: CreatedSession, ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const bid = req.auth.businessId;
      const client = await requireClient(bid, req.params.id);
      const token = newUploadToken();
      const session = await withActor(app.db.kysely, req.auth.actor, (trx) =>
        insertUploadSession(trx, {
          businessId: bid,
          clientId: client.id,
          tokenHash: hashUploadToken(token),
          createdBy: req.auth.actor,
          expiresInHours: req.body?.expires_in_hours ?? DEFAULT_LINK_HOURS,
        }),
      );
      return reply.status(201).send({ session: presentUploadSession(session), upload_url: uploadUrl(req, app.config.publicUrl, token), token });
    },
  );

  app.get(
    '/clients/:id/upload-sessions',
    {
      schema: {
        tags: ['files'],
        summary: "List a client's upload links, oldest first (never their tokens)",
        params: IdParams,
        response: { 200: Type.Array(ref(UploadSession)), ...errors(401, 404) },
      },
    },
    async (req) => {
      await requireClient(req.auth.businessId, req.params.id);
      return (await listUploadSessions(app.db.kysely, req.auth.businessId, req.params.id)).map(presentUploadSession);
    },
  );

  app.delete(
    '/clients/:id/upload-sessions/:sessionId',
    {
      schema: {
        tags: ['files'],
        summary: 'Revoke an upload link (contract 10); revoking again answers the same record, with the first revoked_at',
        params: SessionParams,
        response: { 200: ref(UploadSession), ...errors(401, 403, 404) },
      },
    },
    async (req) => {
      const s = await withActor(app.db.kysely, req.auth.actor, (trx) =>
        revokeUploadSession(trx, req.auth.businessId, req.params.id, req.params.sessionId),
      );
      if (!s) throw notFound('upload link');
      return presentUploadSession(s);
    },
  );
}
