// Where client files' bytes live. The database holds the metadata and the key; the key is made
// from ids, never from an uploaded name. A directory by default; an object store can implement
// the same interface.
import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
}

export interface FileStorage {
  /** Writes the stream under key atomically: the key holds all the bytes or nothing. */
  put(key: string, body: Readable): Promise<StoredObject>;
  /** null when the key holds nothing */
  get(key: string): Promise<{ stream: Readable; size: number } | null>;
  delete(key: string): Promise<void>;
}
