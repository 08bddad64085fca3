// Collections (docs/collections.md): promises to pay on a credit, contact notes on a client, and
// the collector of a credit. The worklist itself is a read of the credit book (credits.ts).
//
// - A promise is for an amount by a day between today and today + 60 days (422 otherwise), on a
//   credit that can still be paid (active or written off; 409 otherwise). Its status is decided
//   when read (src/db/repositories/promises.ts, promiseStatus) and, once its day has passed, for
//   good by the daily run (settleBusinessPromises), which announces promise.broken once.
// - Only a pending promise can be cancelled (409 otherwise).
// - A note's credit, when it names one, is one of the client's credits (422 otherwise).
// - A collector is a user of the business, not disabled (422 otherwise); null takes it away.
import type { Transaction } from 'kysely';
import { withActor } from '../db/connection.ts';
import type { DB } from '../db/schema.ts';
import { getCredit, lockCredit, setCollector } from '../db/repositories/credits.ts';
import { getClient } from '../db/repositories/clients.ts';
import { getUser } from '../db/repositories/users.ts';
import {
  cancelPromise as markCancelled,
  getPromise,
  insertPromise,
  promisesOfCredit,
  settlePromises,
} from '../db/repositories/promises.ts';
import { insertNote, notesOfClient } from '../db/repositories/notes.ts';
import type { Page, PageRequest } from '../db/repositories/page.ts';
import { conflict, notFound, unprocessable } from '../domain/errors.ts';
import { addDays, compareDates, money, toMoneyString } from '../domain/index.ts';
import type { NoteChannel, PromiseRow } from '../db/schema.ts';
import type { ActorContext, Database } from './context.ts';
import { emit } from './events.ts';
import { presentCredit, presentNote, presentPromise } from './present.ts';

/** How far ahead a promise may be made (days after today). */
export const PROMISE_HORIZON_DAYS = 60;

export interface PromiseInput {
  amount: number;
  promised_for: string;
  note?: string | null;
}

export async function createPromise(db: Database, ctx: ActorContext, creditId: string, input: PromiseInput) {
  const amount = money(input.amount);
  if (amount.lte(0)) throw unprocessable('amount must be more than 0', [{ path: '/amount', message: 'must be > 0' }]);
  const last = addDays(ctx.today, PROMISE_HORIZON_DAYS);
  if (compareDates(input.promised_for, ctx.today) < 0 || compareDates(input.promised_for, last) > 0)
    throw unprocessable(`promised_for must be between today (${ctx.today}) and ${last}`, [
      { path: '/promised_for', message: `must be between ${ctx.today} and ${last}` },
    ]);
  const note = input.note?.trim() ? input.note.trim() : null;
  return withActor(db.kysely, ctx, async (trx) => {
    // under the credit's lock: a promise is never made on a credit a concurrent write is closing
    const credit = await lockCredit(trx, ctx.businessId, creditId);
    if (!credit) throw notFound('credit');
    if (credit.status !== 'active' && credit.status !== 'written_off')
      throw conflict(`the credit is ${credit.status}: a promise is made on an active or written-off credit`);
    const row = await insertPromise(trx, ctx.businessId, {
      credit_id: creditId,
      amount: toMoneyString(amount),
      promised_for: input.promised_for,
      note,
      created_by: ctx.actor,
    });
    const promise = presentPromise(row);
    emit(trx, ctx.businessId, 'promise.created', promise, { creditId });
    return promise;
  });
}

/** A credit's promises, newest first, each with its status as of today. */
export async function listPromises(db: Database, ctx: ActorContext, creditId: string) {
  const credit = await getCredit(db.kysely, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  const rows = await promisesOfCredit(db.kysely, ctx.businessId, creditId, ctx.today);
  return rows.map(presentPromise);
}

export async function cancelPromise(db: Database, ctx: ActorContext, creditId: string, promiseId: string) {
  return withActor(db.kysely, ctx, async (trx) => {
    const p = await getPromise(trx, ctx.businessId, creditId, promiseId, ctx.today, true);
    if (!p) throw notFound('promise');
    if (p.status !== 'pending') throw conflict(`the promise is ${p.status}: only a pending promise can be cancelled`);
    return presentPromise(await markCancelled(trx, ctx.businessId, promiseId));
  });
}

/**
 * The daily run's step (src/services/accrual.ts), in its transaction: the pending promises whose
 * day is before today are decided for good, and each broken one is announced (promise.broken),
 * once: a promise decided by another run no longer matches.
 */
export async function settleBusinessPromises(trx: Transaction<DB>, businessId: string, today: string) {
  const rows: PromiseRow[] = await settlePromises(trx, businessId, today);
  let broken = 0;
  for (const r of rows) {
    if (r.status !== 'broken') continue;
    broken++;
    emit(trx, businessId, 'promise.broken', presentPromise(r), { creditId: r.credit_id });
  }
  return { settled: rows.length, broken };
}

export interface NoteInput {
  channel: NoteChannel;
  outcome: string;
  credit_id?: string | null;
}

export async function addNote(db: Database, ctx: ActorContext, clientId: string, input: NoteInput) {
  const outcome = input.outcome.trim();
  if (!outcome) throw unprocessable('outcome must not be blank', [{ path: '/outcome', message: 'must not be blank' }]);
  return withActor(db.kysely, ctx, async (trx) => {
    const client = await getClient(trx, ctx.businessId, clientId);
    if (!client) throw notFound('client');
    const creditId = input.credit_id ?? null;
    if (creditId !== null) {
      const credit = await getCredit(trx, ctx.businessId, creditId);
      if (!credit || credit.client_id !== clientId)
        throw unprocessable('credit_id must be one of the client’s credits', [
          { path: '/credit_id', message: 'not a credit of this client' },
        ]);
    }
    const row = await insertNote(trx, ctx.businessId, {
      client_id: clientId,
      credit_id: creditId,
      channel: input.channel,
      outcome,
      created_by: ctx.actor,
    });
    return presentNote(row);
  });
}

/** A client's notes, newest first. */
export async function listNotes(db: Database, ctx: ActorContext, clientId: string, page: PageRequest) {
  const client = await getClient(db.kysely, ctx.businessId, clientId);
  if (!client) throw notFound('client');
  const p: Page<Parameters<typeof presentNote>[0]> = await notesOfClient(db.kysely, ctx.businessId, clientId, page);
  return { ...p, items: p.items.map(presentNote) };
}

/** Names the credit's collector (a user of the business, not disabled), or none with null. */
export async function assignCollector(db: Database, ctx: ActorContext, creditId: string, userId: string | null) {
  return withActor(db.kysely, ctx, async (trx) => {
    const credit = await lockCredit(trx, ctx.businessId, creditId);
    if (!credit) throw notFound('credit');
    if (userId !== null) {
      const user = await getUser(trx, ctx.businessId, userId);
      if (!user || user.disabled_at !== null)
        throw unprocessable('user_id must be an enabled user of this business', [
          { path: '/user_id', message: 'no enabled user of this business has this id' },
        ]);
    }
    if (credit.collector_id === userId) return presentCredit(credit);
    return presentCredit(await setCollector(trx, ctx.businessId, creditId, userId));
  });
}
