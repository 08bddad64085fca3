import { sql, type Insertable, type Updateable } from 'kysely';
import type { CreditConfig, CreditConfigsTable, CreditPolicy } from '../schema.ts';
import type { Executor } from '../connection.ts';

export type CreditConfigInput = Omit<
  Insertable<CreditConfigsTable>,
  'business_id' | 'id' | 'created_at' | 'updated_at' | 'policy'
> & { policy?: CreditPolicy };
export type CreditConfigPatch = Omit<
  Updateable<CreditConfigsTable>,
  'business_id' | 'id' | 'created_at' | 'updated_at' | 'policy'
> & { policy?: CreditPolicy };

/** The policy as the jsonb column takes it (both drivers get the text). */
const policyText = (p: CreditPolicy | undefined) => (p === undefined ? undefined : JSON.stringify(p));

/** `lock`: locked as the UPDATE that follows would lock it, until the transaction ends (an edit reads what it changes). */
export function getCreditConfig(
  db: Executor,
  businessId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<CreditConfig | undefined> {
  return db
    .selectFrom('credit_configs')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .$if(opts.lock === true, (q) => q.forNoKeyUpdate())
    .executeTakeFirst();
}

export function insertCreditConfig(db: Executor, businessId: string, input: CreditConfigInput): Promise<CreditConfig> {
  return db
    .insertInto('credit_configs')
    .values({ ...input, policy: policyText(input.policy), business_id: businessId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateCreditConfig(db: Executor, businessId: string, id: string, patch: CreditConfigPatch) {
  return db
    .updateTable('credit_configs')
    .set({ ...patch, policy: policyText(patch.policy), updated_at: sql`now()` })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
