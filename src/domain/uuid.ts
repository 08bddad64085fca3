// The one definition of a uuid: the schema format of every id (src/domain/records.ts), the
// command line's id arguments and the storage keys of client files.
/** Lowercase, as the database and randomUUID() write them. */
export const UUID_PATTERN = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

const UUID = new RegExp(`^${UUID_PATTERN}$`, 'i');

/** A uuid in either case (ids read from a request or a command line). */
export const isUuid = (s: string): boolean => UUID.test(s);
