// Branches and the deleted-branch rules: a deleted branch stays listed with deleted_at, cannot be
// edited (409), and takes no new credits or payments (422); entries that would inherit it get none.
import type { Transaction } from 'kysely';
import { withActor } from '../db/connection.ts';
import type { Credit, DB } from '../db/schema.ts';
import {
  getBranch,
  insertBranch,
  shareBranch,
  shareBranches,
  softDeleteBranch,
  updateBranch,
} from '../db/repositories/branches.ts';
import { conflict, notFound, unprocessable } from '../domain/errors.ts';
import { cleanText } from '../domain/text.ts';
import { branchesDocument } from '../db/repositories/documents.ts';
import type { BranchCandidates, SharedBranch } from '../db/repositories/creditBook.ts';
import type { ActorContext, Database, JsonText } from './context.ts';
import { presentBranch } from './present.ts';
import { emit, emitEdit } from './events.ts';

export interface BranchInput {
  name: string;
  address?: string | null;
  phone?: string | null;
}
export type BranchPatch = Partial<BranchInput>;

/** Deleted ones included, with deleted_at (GET /api/branches). */
export async function listBranches(db: Database, ctx: ActorContext): Promise<JsonText> {
  return (await branchesDocument(db, ctx.businessId)) as JsonText;
}

export async function createBranch(db: Database, ctx: ActorContext, input: BranchInput) {
  const fields = cleanText(input);
  return withActor(db.kysely, ctx, async (trx) => {
    const branch = presentBranch(await insertBranch(trx, ctx.businessId, fields));
    emit(trx, ctx.businessId, 'branch.created', branch);
    return branch;
  });
}

/** Only the fields given change; nothing given answers the branch as it is, even a deleted one. */
export function editBranch(db: Database, ctx: ActorContext, id: string, input: BranchPatch) {
  const patch = cleanText(input);
  return withActor(db.kysely, ctx, async (trx) => {
    const current = await getBranch(trx, ctx.businessId, id, { lock: true });
    if (!current) throw notFound('branch');
    if (Object.keys(patch).length === 0) return presentBranch(current);
    if (current.deleted_at) throw conflict('the branch is deleted');
    const branch = presentBranch((await updateBranch(trx, ctx.businessId, current.id, patch))!);
    emitEdit(trx, ctx.businessId, 'branch.updated', presentBranch(current), branch);
    return branch;
  });
}

/** Soft delete; deleting again keeps the first deleted_at. */
export async function deleteBranch(db: Database, ctx: ActorContext, id: string) {
  return withActor(db.kysely, ctx, async (trx) => {
    const before = await getBranch(trx, ctx.businessId, id);
    const branch = before && (await softDeleteBranch(trx, ctx.businessId, id));
    if (!branch) throw notFound('branch');
    const presented = presentBranch(branch);
    // deleting again changes nothing and announces nothing
    if (!before.deleted_at) emit(trx, ctx.businessId, 'branch.deleted', presented);
    return presented;
  });
}

// The branch rules of new credits and ledger entries, run inside the lending transaction: the
// share lock keeps the branch from being deleted until it commits.

/** A branch named for a new credit or payment: it must exist in the business and not be deleted. */
export async function usableBranch(trx: Transaction<DB>, businessId: string, branchId: string): Promise<string> {
  const branch = await shareBranch(trx, businessId, branchId);
  if (!branch)
    throw unprocessable(`branch_id ${branchId} names no branch of this business`, [
      { path: '/branch_id', message: 'no such branch' },
    ]);
  if (branch.deleted_at)
    throw unprocessable(`branch ${branch.name} is deleted and cannot take new credits or payments`, [
      { path: '/branch_id', message: 'branch is deleted' },
    ]);
  return branch.id;
}

/** The credit's branch for new entries, unless it has been deleted since. */
export async function inheritedBranch(trx: Transaction<DB>, credit: Credit): Promise<string | null> {
  if (!credit.branch_id) return null;
  const b = await shareBranch(trx, credit.business_id, credit.branch_id);
  return b && !b.deleted_at ? b.id : null;
}

/** Of these branches, those that exist and are not deleted, share-locked as usableBranch locks one (a batch's). */
export async function usableBranches(trx: Transaction<DB>, businessId: string, ids: string[]): Promise<Set<string>> {
  const rows = await shareBranches(trx, businessId, [...new Set(ids)]);
  return new Set(rows.filter((b) => !b.deleted_at).map((b) => b.id));
}

/** The branch of the signed-in user acting (ctx.branchId), unless it has been deleted since. */
export async function actingBranch(
  trx: Transaction<DB>,
  ctx: { businessId: string; branchId?: string | null },
): Promise<string | null> {
  if (!ctx.branchId) return null;
  const b = await shareBranch(trx, ctx.businessId, ctx.branchId);
  return b && !b.deleted_at ? b.id : null;
}

/**
 * The branches chosenBranch may take for a payment on a credit, to be share-locked in the statement
 * that locks the credit and reads its book (lockAndReadBook: the credit is not read yet, so its own
 * branch is asked for by a flag) and chosen by pickBranch: the one named, or when none is named the
 * acting user's and the credit's (both locked: the second only matters when the first is gone, and
 * a share lock on it only delays its deletion until the commit).
 */
export function branchCandidates(
  ctx: { branchId?: string | null },
  given: string | null | undefined,
): BranchCandidates {
  if (given !== undefined) return { named: given === null ? [] : [given], creditsOwn: false };
  return { named: ctx.branchId ? [ctx.branchId] : [], creditsOwn: true };
}

/** chosenBranch's choice among the candidates as read under their share lock (branchCandidates). */
export function pickBranch(
  ctx: { branchId?: string | null },
  credit: Credit,
  given: string | null | undefined,
  shared: SharedBranch[],
): string | null {
  const live = (id: string | null | undefined) => {
    const b = id ? shared.find((x) => x.id === id) : undefined;
    return b && !b.deleted ? b.id : null;
  };
  if (given === undefined) return live(ctx.branchId) ?? live(credit.branch_id);
  if (given === null) return null;
  const branch = shared.find((b) => b.id === given);
  if (!branch)
    throw unprocessable(`branch_id ${given} names no branch of this business`, [
      { path: '/branch_id', message: 'no such branch' },
    ]);
  if (branch.deleted)
    throw unprocessable(`branch ${branch.name} is deleted and cannot take new credits or payments`, [
      { path: '/branch_id', message: 'branch is deleted' },
    ]);
  return branch.id;
}

/**
 * A payment's branch: the one named in the request (must be usable), explicitly none (null), or
 * when not given the acting user's branch (where the money was taken), else the credit's.
 */
export async function chosenBranch(
  trx: Transaction<DB>,
  ctx: { businessId: string; branchId?: string | null },
  credit: Credit,
  given: string | null | undefined,
): Promise<string | null> {
  if (given === undefined) return (await actingBranch(trx, ctx)) ?? inheritedBranch(trx, credit);
  return given === null ? null : usableBranch(trx, credit.business_id, given);
}
