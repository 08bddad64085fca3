// The public end of an upload link: POST /upload/{token}, no API key. The token alone names the
// business, the client and the session; the audit log names the session as the actor.
import { Type } from '@sinclair/typebox';
import type { App } from '../../types.ts';
import { AppError, notFound } from '../../../domain/errors.ts';
import { ClientFile, errors, ref } from '../../schemas.ts';
import { presentFile } from '../../../services/present.ts';
import { findUploadSessionByTokenHash } from '../../../db/repositories/uploadSessions.ts';
import { UPLOAD_TOKEN_PATTERN, hashUploadToken, storeClientFile } from '../../../services/files.ts';
import { UploadBody, receiveFile, registerMultipart } from '../files/multipart.ts';

const TokenParams = Type.Object({ token: Type.String({ pattern: UPLOAD_TOKEN_PATTERN }) });

const GONE: Record<string, string> = {
  expired: 'this upload link has expired; ask for a new one',
  revoked: 'this upload link has been revoked; ask for a new one',
  used_up: 'this upload link has received all the files it accepts; ask for a new one',
};

export default async function uploadRoutes(app: App) {
  await registerMultipart(app);
  app.post(
    '/upload/:token',
    {
      schema: {
        tags: ['files'],
        summary: 'Upload a file through an upload link (public: the token is the credential; multipart, field "file")',
        description:
          'Same rules as POST /api/clients/{id}/files. 404 for a token that never existed, 410 gone when the link expired, was revoked or has received its files.',
        security: [],
        params: TokenParams,
        body: UploadBody,
        response: { 201: ref(ClientFile), ...errors(400, 404, 409, 410, 413, 415) },
      },
    },
    async (req, reply) => {
      // checked before a byte of the body is read, and again when the file's row is stored
      const found = await findUploadSessionByTokenHash(app.db.kysely, hashUploadToken(req.params.token));
      if (!found) throw notFound('upload link');
      if (found.state !== 'usable') throw new AppError('gone', GONE[found.state]!);
      const s = found.session;
      const upload = await receiveFile(req, app.config.maxFileBytes);
      const row = await storeClientFile(
        { db: app.db.kysely, storage: app.storage, log: req.log },
        { businessId: s.business_id, clientId: s.client_id, actor: `upload_link:${s.id}`, uploadSessionId: s.id },
        upload,
      );
      return reply.status(201).send(presentFile(row));
    },
  );
}
