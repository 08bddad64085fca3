// The public end of an upload link: POST /upload/{token}, no API key. The token alone names the
// business, the client and the session; the audit log names the session as the actor.
import { Type } from 'typebox';
import type { App } from '../../types.ts';
import { ClientFile, documented, errors, ref } from '../../schemas.ts';
import * as ex from '../../examples.ts';
import { presentFile } from '../../../services/present.ts';
import { UPLOAD_TOKEN_PATTERN, uploadThroughLink } from '../../../services/uploadLinks.ts';
import { UploadBody, receiveFile, registerMultipart } from '../files/multipart.ts';

const TokenParams = Type.Object({ token: Type.String({ pattern: UPLOAD_TOKEN_PATTERN, examples: [ex.ids.token] }) });

export default async function uploadRoutes(app: App) {
  await registerMultipart(app);
  app.post(
    '/upload/:token',
    {
      schema: {
        operationId: 'uploadFileThroughLink',
        tags: ['files'],
        summary: 'Upload a file through an upload link (public: the token is the credential; multipart, field "file")',
        description:
          'Same rules as POST /api/clients/{id}/files. 404 for a token that never existed, 410 gone when the link expired, was revoked or has received its files.',
        security: [],
        params: TokenParams,
        body: UploadBody,
        response: { 201: documented(ref(ClientFile), 'The file stored', ex.clientFile), ...errors(409, 410) },
      },
    },
    async (req, reply) => {
      const deps = { db: app.db.kysely, storage: app.storage, log: req.log };
      const row = await uploadThroughLink(deps, req.params.token, () => receiveFile(req, app.config.maxFileBytes));
      return reply.status(201).send(presentFile(row));
    },
  );
}
