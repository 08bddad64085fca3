// Guarantors and co-borrowers (docs/applications.md "Guarantors"): clients of the business who
// back a credit; never its borrower, at most once per credit. The credit read lists them and the
// client read lists the credits a client backs (its guarantees).
import type { Transaction } from 'kysely';
import { withActor, type Executor } from '../db/connection.ts';
import type { DB } from '../db/schema.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getCredit } from '../db/repositories/credits.ts';
import {
  type GuarantorRow,
  deleteGuarantor,
  findGuarantor,
  guarantorsOfCredit,
  insertGuarantors,
} from '../db/repositories/guarantors.ts';
import { conflict, notFound, unprocessable } from '../domain/errors.ts';
import type { ActorContext, Database } from './context.ts';

export type GuarantorRole = GuarantorRow['role'];

export interface Guarantor {
  id: string;
  credit_id: string;
  client_id: string;
  role: GuarantorRole;
  created_at: Date;
}

export const presentGuarantor = (g: GuarantorRow): Guarantor => ({
  id: g.id,
  credit_id: g.credit_id,
  client_id: g.client_id,
  role: g.role,
  created_at: g.created_at,
});

/**
 * Refuses (422) guarantors that are not clients of the business, that are the borrower, or that
 * repeat; `path` names the field in the request.
 */
export async function checkGuarantors(
  db: Executor,
  businessId: string,
  borrowerId: string,
  list: { client_id: string; role: GuarantorRole }[],
  path: (i: number) => string,
): Promise<void> {
  const seen = new Set<string>();
  for (const [i, g] of list.entries()) {
    if (g.client_id === borrowerId)
      throw unprocessable('the borrower cannot guarantee their own credit', [
        { path: path(i), message: 'is the borrower' },
      ]);
    if (seen.has(g.client_id))
      throw unprocessable('a client guarantees a credit once', [{ path: path(i), message: 'repeated' }]);
    seen.add(g.client_id);
    if (!(await getClient(db, businessId, g.client_id)))
      throw unprocessable(`client_id ${g.client_id} names no client of this business`, [
        { path: path(i), message: 'no such client' },
      ]);
  }
}

/** Adds guarantors to a credit in the caller's transaction (a disbursement adds its application's). */
export function addGuarantorsIn(
  trx: Transaction<DB>,
  ctx: ActorContext,
  creditId: string,
  list: { client_id: string; role: GuarantorRole }[],
): Promise<GuarantorRow[]> {
  return insertGuarantors(
    trx,
    ctx.businessId,
    list.map((g) => ({ credit_id: creditId, client_id: g.client_id, role: g.role, created_by: ctx.actor })),
  );
}

export async function addGuarantor(
  db: Database,
  ctx: ActorContext,
  creditId: string,
  input: { client_id: string; role: GuarantorRole },
): Promise<Guarantor> {
  return withActor(db.kysely, ctx, async (trx) => {
    const credit = await getCredit(trx, ctx.businessId, creditId);
    if (!credit) throw notFound('credit');
    await checkGuarantors(trx, ctx.businessId, credit.client_id, [input], () => '/client_id');
    if (await findGuarantor(trx, ctx.businessId, credit.id, input.client_id))
      throw conflict('this client already backs the credit: remove them first to change their role');
    const [row] = await addGuarantorsIn(trx, ctx, credit.id, [input]);
    return presentGuarantor(row!);
  });
}

export async function removeGuarantor(
  db: Database,
  ctx: ActorContext,
  creditId: string,
  id: string,
): Promise<Guarantor> {
  return withActor(db.kysely, ctx, async (trx) => {
    const row = await deleteGuarantor(trx, ctx.businessId, creditId, id);
    if (!row) throw notFound('guarantor');
    return presentGuarantor(row);
  });
}

/** A credit's guarantors, as the credit read shows them. */
export async function creditGuarantors(db: Database, ctx: ActorContext, creditId: string): Promise<Guarantor[]> {
  return (await guarantorsOfCredit(db.kysely, ctx.businessId, creditId)).map(presentGuarantor);
}
