// Where client files' bytes live. The database holds the metadata and the key; the key is made
// from ids, never from an uploaded name. A directory by default; an object store can implement
// the same interface.
import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
}

export interface StoredKey {
  key: string;
  /** when the bytes were written: the sweep leaves young keys alone (their row may be on its way) */
  modifiedAt: Date;
}

export interface FileStorage {
  /**
   * Writes the stream under key atomically: the key holds all the bytes or nothing, and nothing
   * is left behind when the stream fails or is destroyed. Resolves once the bytes are durable.
   */
  put(key: string, body: Readable): Promise<StoredObject>;
  /** null when the key holds nothing */
  get(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** removing a key that holds nothing is not an error */
  delete(key: string): Promise<void>;
  /** every complete key, in no particular order (for the orphan sweep) */
  list(): AsyncIterable<StoredKey>;
  /** removes what writes interrupted by a crash left behind, older than the date; the count removed */
  removeIncomplete(olderThan: Date): Promise<number>;
}
