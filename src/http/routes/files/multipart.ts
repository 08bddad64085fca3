// Multipart uploads, shared by POST /api/clients/{id}/files and the public POST /upload/{token}.
// @fastify/multipart is registered only in the scope of those routes, so every other route keeps
// its JSON-only body rules. The file is streamed, never buffered whole: MAX_FILE_BYTES is enforced
// while it streams (413), and a cut-off or malformed upload is a 400, never a 500.
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { Type } from 'typebox';
import { AppError, invalid } from '../../../domain/errors.ts';
import type { IncomingFile } from '../../../services/files.ts';
import type { App } from '../../types.ts';
import { describeRequest } from '../../idempotency.ts';

export async function registerMultipart(app: App) {
  await app.register(multipart, {
    limits: {
      fileSize: app.config.maxFileBytes,
      files: 1,
      fields: 10,
      fieldSize: 64 * 1024,
      parts: 12,
      headerPairs: 50,
    },
    throwFileSizeLimit: true,
  });
}

/**
 * The request body of an upload route in the OpenAPI document. The body is streamed, so nothing
 * is parsed before the handler: the schema validates the absent parsed body (null) and documents
 * the form.
 */
export const UploadBody = {
  content: {
    'multipart/form-data': {
      schema: Type.Unsafe({
        type: ['object', 'null'],
        properties: {
          file: {
            type: 'string',
            format: 'binary',
            description: 'the file: JPEG, PNG, WebP or PDF, detected from its content',
          },
        },
        // the document's example; the route reads the stream, never a parsed form
        examples: [{ file: '(the bytes of dni.pdf)' }],
      }),
    },
  },
  required: true,
};

// ours and @fastify/multipart's (FST_…: not multipart, limits) map to their own answers
const isKnown = (e: unknown) => e instanceof AppError || String((e as { code?: unknown })?.code).startsWith('FST_');

/**
 * The file part of the request, in field `file`. Its stream fails with 413 when the file passes
 * maxBytes and with 400 when the upload is cut off or malformed.
 */
export async function receiveFile(req: FastifyRequest, maxBytes: number): Promise<IncomingFile> {
  let part: Awaited<ReturnType<FastifyRequest['file']>>;
  try {
    part = await req.file();
  } catch (err) {
    if (isKnown(err)) throw err;
    throw new AppError('validation_failed', 'the multipart body is malformed');
  }
  if (!part) throw invalid('/file', 'send the file as multipart/form-data in the field "file"');
  const src = part.file;
  if (part.fieldname !== 'file') {
    src.resume();
    throw invalid('/file', `the file must be sent in the field "file", not "${part.fieldname.slice(0, 50)}"`);
  }
  const out = new PassThrough();
  // whoever reads out sees its error; this keeps an unread failure from being an uncaught one
  out.on('error', () => {});
  const tooLarge = () => {
    // busboy drops the rest of the file itself; only our side fails
    out.destroy(new AppError('payload_too_large', `the file is larger than the limit of ${maxBytes} bytes`));
    src.unpipe(out);
    src.resume();
  };
  // busboy may have met the limit before this part reached us (the whole body in one chunk):
  // then only `truncated` tells, at the end
  src.on('limit', tooLarge);
  src.on('end', () => {
    if ((src as { truncated?: boolean }).truncated) {
      if (!out.destroyed) tooLarge();
    } else out.end();
  });
  src.on('error', (err) => {
    out.destroy(
      err instanceof AppError
        ? err
        : new AppError('validation_failed', 'the upload was cut off or is not well-formed multipart'),
    );
  });
  src.on('close', () => {
    if (!src.readableEnded && !out.destroyed)
      out.destroy(new AppError('validation_failed', 'the upload was cut off before the file ended'));
  });
  // a client that hangs up mid-upload: busboy may just stop, so the request itself decides
  req.raw.once('close', () => {
    if (!req.raw.complete && !req.raw.readableEnded && !out.destroyed)
      out.destroy(new AppError('validation_failed', 'the upload was cut off before the file ended'));
  });
  // the part may have failed or closed before these listeners were attached (the whole body
  // arrived while a database lookup ran): its events are gone, its state is not
  if (src.errored || (src.closed && !src.readableEnded)) {
    out.destroy(new AppError('validation_failed', 'the upload was cut off or is not well-formed multipart'));
  } else if (req.raw.complete && src.readableEnded) out.end();
  // with an Idempotency-Key, the same upload is the same name and the same bytes (the route
  // reads no other field): known once the bytes have gone through, before the row is stored
  const sha256 = createHash('sha256');
  src.on('data', (chunk: Buffer) => sha256.update(chunk));
  let digest: string | undefined;
  describeRequest(req, () => {
    digest ??= sha256.digest('hex');
    return { file_name: part.filename ?? null, sha256: digest };
  });
  src.pipe(out, { end: false });
  return { filename: part.filename, stream: out };
}
