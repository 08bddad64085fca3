// What every use case receives from its caller (an HTTP request, a CLI command, a job): the
// database handle, and who acts for which business. The HTTP layer knows the handle only
// through this module, never src/db.
export type { Database } from '../db/connection.ts';

/** Who acts, for which business, in which time zone (its "today"). */
export interface ActorContext {
  businessId: string;
  /** the audit actor: api_key:<id>, cli, upload_link:<id>, system:<job> */
  actor: string;
  /** IANA time zone of the business: its "today" */
  timezone: string;
}
