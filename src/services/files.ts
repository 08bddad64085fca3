// Client files: listing, uploading (content sniffed, bytes first, then the row), downloading by
// name, deleting (row first, then the bytes), and the sweep that removes bytes no row points at.
//
// Invariants and crash windows (docs/files.md):
// - A row never points at missing bytes: bytes are written (atomically) before the row is
//   inserted, and deleted only after the row's deletion has committed.
// - Bytes do not outlive their row, except in two windows: the process dies between writing the
//   bytes and committing the row, or between committing a deletion and removing the bytes (or
//   the removal fails). Such orphan keys, and temporary files of writes cut by a crash, are
//   removed by sweepOrphanFiles, run by the server at start and every hour.
import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import type { Kysely, Transaction } from 'kysely';
import { fileTypeFromBuffer } from 'file-type';
import { requireClient } from './clients.ts';
import { withActor } from '../db/connection.ts';
import type { ClientFile, DB } from '../db/schema.ts';
import {
  deleteFile,
  fileExists,
  filesOfClient,
  getFileByName,
  insertFileIfNameFree,
  liveStorageKeys,
  takenFileNames,
} from '../db/repositories/files.ts';
import { claimUpload } from '../db/repositories/uploadSessions.ts';
import { isPlausibleFileName, numberedName, safeFileName } from '../domain/fileNames.ts';
import { AppError, conflict, notFound } from '../domain/errors.ts';
import { UUID_PATTERN } from '../domain/uuid.ts';
import type { FileStorage } from '../storage/storage.ts';
import type { ActorContext } from './context.ts';
import { emit } from './events.ts';
import { presentFile } from './present.ts';

/** The accepted MIME types (docs/domain.md, "Client files") and the extension a nameless upload gets. */
export const ACCEPTED_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

// what file-type reads at most to decide
const SNIFF_BYTES = 4100;

export interface Logger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface FileDeps {
  db: Kysely<DB>;
  storage: FileStorage;
  log: Logger;
}

/** The storage key of a file: ids only, never the uploaded name. */
export const storageKey = (businessId: string, clientId: string, fileId: string) =>
  `${businessId}/${clientId}/${fileId}`;
const KEY_IDS = new RegExp(`^(${UUID_PATTERN})/(${UUID_PATTERN})/(${UUID_PATTERN})$`);

const cutOff = () => new AppError('validation_failed', 'the upload was cut off before the file ended');

/**
 * Reads the first n bytes of src (fewer if it ends sooner) without losing them: body replays
 * them and then the rest of src. Errors of src reach body.
 */
export function peek(src: Readable, n: number): Promise<{ head: Buffer; body: Readable }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let len = 0;
    const finish = (ended: boolean) => {
      cleanup();
      src.pause();
      const head = Buffer.concat(chunks);
      const body = new PassThrough();
      // a reader of body sees its errors; unread (a refused upload draining), they are moot
      body.on('error', () => {});
      body.write(head);
      if (ended) body.end();
      else {
        src.on('error', (err) => body.destroy(err));
        src.on('close', () => {
          if (!src.readableEnded) body.destroy(cutOff());
        });
        src.pipe(body);
      }
      resolve({ head, body });
    };
    const onData = (c: Buffer) => {
      chunks.push(c);
      len += c.length;
      if (len >= n) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(cutOff());
    };
    const cleanup = () => {
      src.off('data', onData);
      src.off('end', onEnd);
      src.off('error', onError);
      src.off('close', onClose);
    };
    src.on('data', onData);
    src.once('end', onEnd);
    src.once('error', onError);
    src.once('close', onClose);
  });
}

export interface IncomingFile {
  /** the name the uploader gave, if any */
  filename: string | undefined;
  /** the bytes; destroyed with an error when the upload is cut off or too large */
  stream: Readable;
}

/** A client's files, oldest first. */
export async function listClientFiles(db: Kysely<DB>, businessId: string, clientId: string): Promise<ClientFile[]> {
  await requireClient(db, businessId, clientId);
  return filesOfClient(db, businessId, clientId);
}

/** Stores a file uploaded with an API key; the client is checked before a byte is received. */
export async function addClientFile(
  deps: FileDeps,
  ctx: ActorContext,
  clientId: string,
  receive: () => Promise<IncomingFile>,
): Promise<ClientFile> {
  const client = await requireClient(deps.db, ctx.businessId, clientId);
  return storeClientFile(
    deps,
    {
      businessId: ctx.businessId,
      clientId: client.id,
      actor: ctx.actor,
      impersonatedBy: ctx.impersonatedBy,
      uploadSessionId: null,
      beforeCommit: ctx.beforeCommit,
    },
    await receive(),
  );
}

/** A file by its name, its bytes open for reading: 404 when no file has the name or its bytes are missing. */
export async function openClientFile(
  deps: FileDeps,
  businessId: string,
  clientId: string,
  fileName: string,
): Promise<{ file: ClientFile; stream: Readable; size: number }> {
  // separators, control characters, "." and "..": never a stored name (and NUL is not even
  // valid database text)
  if (!isPlausibleFileName(fileName)) throw notFound('file');
  const file = await getFileByName(deps.db, businessId, clientId, fileName);
  if (!file) throw notFound('file');
  const stored = await deps.storage.get(file.storage_key);
  if (!stored) {
    // a delete that committed between the lookup and the open, or bytes lost outside the service
    deps.log.warn({ fileId: file.id, key: file.storage_key }, 'a file row points at missing bytes');
    throw notFound('file');
  }
  return { file, ...stored };
}

export interface FileTarget {
  businessId: string;
  clientId: string;
  /** the audit actor and created_by: api_key:<id> or upload_link:<id> */
  actor: string;
  /** the operator acting as the user, if any (ActorContext.impersonatedBy) */
  impersonatedBy?: string | null;
  uploadSessionId: string | null;
  /** the caller's addition to the row's transaction (an Idempotency-Key's answer) */
  beforeCommit?: ActorContext['beforeCommit'];
}

/**
 * Stores an upload for a client: detects the type from the content (415 outside the accepted
 * types, before a byte is stored), writes the bytes under a key of ids, then inserts the row
 * under a free name in one transaction (which, for an upload link, also takes one of its
 * uploads); when that fails the bytes are removed again.
 */
export async function storeClientFile(deps: FileDeps, target: FileTarget, upload: IncomingFile): Promise<ClientFile> {
  const { head, body } = await peek(upload.stream, SNIFF_BYTES);
  const detected = await fileTypeFromBuffer(head);
  const ext = detected ? ACCEPTED_TYPES[detected.mime] : undefined;
  if (!detected || !ext) {
    body.resume(); // let the rest of the upload drain
    throw new AppError(
      'unsupported_media_type',
      `the file's content is ${detected ? detected.mime : 'of no recognised type'}; accepted: JPEG, PNG, WebP or PDF`,
    );
  }
  const fileName = safeFileName(upload.filename, ext);
  const id = randomUUID();
  const key = storageKey(target.businessId, target.clientId, id);
  const { size } = await deps.storage.put(key, body);
  try {
    return await withActor(deps.db, target, async (trx) => {
      if (target.uploadSessionId && !(await claimUpload(trx, target.businessId, target.uploadSessionId))) {
        throw new AppError(
          'gone',
          'this upload link has expired, was revoked or has received all the files it accepts',
        );
      }
      const file = await insertUnderFreeName(trx, fileName, {
        business_id: target.businessId,
        id,
        client_id: target.clientId,
        file_type: detected.mime,
        file_size: size,
        storage_key: key,
        upload_session_id: target.uploadSessionId,
        created_by: target.actor,
      });
      emit(trx, target.businessId, 'file.created', presentFile(file));
      return file;
    });
  } catch (err) {
    // the bytes go only when the row is surely absent: a COMMIT whose answer was lost may have
    // stored it, and a row must never point at missing bytes. Unsure: the sweep decides later.
    const stored = await fileExists(deps.db, target.businessId, id).catch(() => null);
    if (stored === false) {
      await deps.storage
        .delete(key)
        .catch((e: unknown) =>
          deps.log.error(
            { err: e, key },
            'could not remove the bytes of a file whose row was not stored; the sweep will',
          ),
        );
    } else
      deps.log.warn(
        { key, stored },
        'the outcome of storing a file row is uncertain; its bytes are kept for the sweep to decide',
      );
    throw err;
  }
}

const BATCH = 20;
const MAX_TRIES = 1000;

/**
 * Inserts the row under the name or its first free numbered alternative ("dni (1).pdf"). The
 * unique key (business, client, name) decides: a name a concurrent upload takes first just
 * moves this one on to the next (its insert waits for the other transaction, then does
 * nothing), so N uploads of one name at once end with N distinct names.
 */
async function insertUnderFreeName(
  trx: Transaction<DB>,
  name: string,
  row: Omit<Parameters<typeof insertFileIfNameFree>[1], 'file_name'>,
) {
  let tries = 0;
  for (let n = 0; tries < MAX_TRIES; n += BATCH) {
    const candidates = Array.from({ length: BATCH }, (_, i) => numberedName(name, n + i));
    const taken = await takenFileNames(trx, row.business_id, row.client_id, candidates);
    for (const candidate of candidates) {
      if (taken.has(candidate)) continue;
      tries++;
      const inserted = await insertFileIfNameFree(trx, { ...row, file_name: candidate });
      if (inserted) return inserted;
    }
  }
  throw conflict('too many uploads took the same file name at the same time; retry');
}

/** Deletes a file: the row (audited) in a transaction, then the bytes; answers the deleted row. */
export async function removeClientFile(
  deps: FileDeps,
  ctx: ActorContext,
  clientId: string,
  fileId: string,
): Promise<ClientFile> {
  const row = await withActor(deps.db, ctx, async (trx) => {
    const deleted = await deleteFile(trx, ctx.businessId, clientId, fileId);
    if (deleted) emit(trx, ctx.businessId, 'file.deleted', presentFile(deleted));
    return deleted;
  });
  if (!row) throw notFound('file');
  try {
    await deps.storage.delete(row.storage_key);
  } catch (err) {
    // the row is gone, so nothing serves these bytes; the sweep removes them later
    deps.log.error({ err, key: row.storage_key }, 'could not remove the bytes of a deleted file');
  }
  return row;
}

// ---------------------------------------------------------------------------------------------
// The orphan sweep

/** Keys younger than this are left alone: their row may still be on its way (a slow transaction). */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;

export interface SweepResult {
  checked: number;
  removed: number;
  incomplete: number;
}

/**
 * Removes stored bytes no row points at, and temporary files of interrupted writes, older than
 * the grace period. Safe to run while uploads go on and in several processes at once: a young
 * key is never touched, and removing a key twice is harmless.
 */
export async function sweepOrphanFiles(
  deps: FileDeps,
  opts: { graceMs?: number; now?: Date } = {},
): Promise<SweepResult> {
  const cutoff = new Date((opts.now ?? new Date()).getTime() - (opts.graceMs ?? SWEEP_GRACE_MS));
  const result: SweepResult = { checked: 0, removed: 0, incomplete: 0 };
  result.incomplete = await deps.storage.removeIncomplete(cutoff);
  let batch: Array<{ key: string; businessId: string; id: string }> = [];
  const flush = async () => {
    const live = await liveStorageKeys(deps.db, batch);
    for (const b of batch) {
      if (live.has(b.key)) continue;
      await deps.storage.delete(b.key);
      result.removed++;
    }
    batch = [];
  };
  for await (const k of deps.storage.list()) {
    if (k.modifiedAt >= cutoff) continue;
    const m = KEY_IDS.exec(k.key);
    if (!m) {
      // not a key this service writes: not ours to remove
      deps.log.warn({ key: k.key }, 'the files directory holds a file the service did not write; left alone');
      continue;
    }
    result.checked++;
    batch.push({ key: k.key, businessId: m[1]!, id: m[3]! });
    if (batch.length >= 500) await flush();
  }
  if (batch.length) await flush();
  return result;
}
