// Where the lending use cases meet the database: a credit's book read under its lock, what the
// engine staged written in one statement, and the events of what was written. The rows the
// repositories give are the engine's shapes (./engine/shapes.ts) as they are; the book carries
// them typed as rows, so the use cases answer with rows.
import type { Transaction } from 'kysely';
import type { ActorSettings, Executor } from '../../db/connection.ts';
import type { Credit, DB, Installment, LedgerEntry, Payment } from '../../db/schema.ts';
import { lockCredit, lockCredits } from '../../db/repositories/credits.ts';
import { installmentsOfCredit } from '../../db/repositories/installments.ts';
import { ledgerOfCredit } from '../../db/repositories/ledger.ts';
import {
  creditBook,
  creditBooks,
  lockAndReadBook,
  type BranchCandidates,
  type SharedBranch,
} from '../../db/repositories/creditBook.ts';
import {
  applyCreditChanges,
  applyManyCreditChanges,
  type CreditChanges,
  type StampedEvent,
} from '../../db/repositories/creditChanges.ts';
import { takeBufferedEvents } from '../../db/repositories/events.ts';
import { notFound } from '../../domain/errors.ts';
import type { ActorContext } from '../context.ts';
import { emit, eventOf, type EventType } from '../events.ts';
import { presentCredit, presentLedgerEntry, presentPayment, type CreditDetailRows } from '../present.ts';
import { nothingStaged, openBook, settle, type Book } from './engine/book.ts';

export type { CreditDetailRows };

/** Who acts, for which business, in which time zone (its "today"). */
export type LendingContext = ActorContext;

/** A credit's book as read from the database. */
export type RowBook = Book<Credit, Installment, LedgerEntry, Payment>;

/** A credit with its installments and ledger, read (a step of a read or of a use case's transaction). */
export async function creditDetail(db: Executor, businessId: string, credit: Credit): Promise<CreditDetailRows> {
  const [installments, ledgerEntries] = await Promise.all([
    installmentsOfCredit(db, businessId, credit.id),
    ledgerOfCredit(db, businessId, credit.id),
  ]);
  return { credit, installments, ledgerEntries };
}

/**
 * The credit locked (FOR UPDATE), then its book in one statement: read after the lock, since every
 * writer of these holds it.
 */
export async function loadLocked(trx: Transaction<DB>, ctx: LendingContext, creditId: string): Promise<RowBook> {
  const credit = await lockCredit(trx, ctx.businessId, creditId);
  if (!credit) throw notFound('credit');
  const b = await creditBook(trx, ctx.businessId, credit.id);
  return openBook(credit, b.installments, b.ledger, b.payments, b.postedThrough);
}

/**
 * loadLocked in a transaction of withActorInFirstStatement, in one statement (lockAndReadBook): the
 * credit locked with the writer's audit settings set, then, read after the lock, its book with the
 * branches `branches` names share-locked.
 */
export async function loadLockedAs(
  trx: Transaction<DB>,
  ctx: LendingContext,
  as: ActorSettings,
  creditId: string,
  branches: BranchCandidates,
): Promise<{ book: RowBook; branches: SharedBranch[] }> {
  const r = await lockAndReadBook(trx, ctx.businessId, creditId, as, branches);
  if (!r) throw notFound('credit');
  const b = r.book;
  return { book: openBook(r.credit, b.installments, b.ledger, b.payments, b.postedThrough), branches: r.branches };
}

/**
 * Several credits, named by id or by sequential id, locked (in the order of their ids) and their
 * books read, two statements for all: a payment import's batch. A name no credit has is not in the
 * map (keyed by the credits' ids).
 */
export async function loadLockedMany(
  trx: Transaction<DB>,
  ctx: LendingContext,
  names: { ids: string[]; sequentials?: number[] },
): Promise<Map<string, RowBook>> {
  const credits = await lockCredits(trx, ctx.businessId, names);
  const books = await creditBooks(
    trx,
    ctx.businessId,
    credits.map((c) => c.id),
  );
  return new Map(
    credits.map((c) => {
      const b = books.get(c.id)!;
      return [c.id, openBook(c, b.installments, b.ledger, b.payments, b.postedThrough)] as const;
    }),
  );
}

/**
 * Writes what is staged in one statement, with every installment's status and paid_date brought in
 * line with its sums, a fully paid active credit closed and a closed one that owes again reopened,
 * and the change's events (after any the transaction announced before): their instants are set by
 * the statement from what it writes, so no outbox insert follows. `l` then holds the rows as
 * written. Returns the entries written (what the use case created).
 */
export async function flush(trx: Transaction<DB>, ctx: LendingContext, l: RowBook): Promise<LedgerEntry[]> {
  const { moved, creditStatus } = settle(l);
  const { reversal } = l.staged;
  const announced = changeEvents(
    ctx,
    {
      credit: l.credit,
      payment: l.staged.payment,
      reversal: reversal && { payment: l.payments.find((p) => p.id === reversal.paymentId)!, reason: reversal.reason },
    },
    // the rows as they will be written, their instants left to the statement (each event's stamp)
    {
      entries: l.staged.entries.map((e) => asWritten(ctx, l.credit.id, e, null)),
      now: null,
      paymentCreatedAt: null,
      creditStatus,
    },
  );
  const events: StampedEvent[] = [
    ...takeBufferedEvents(trx).map((e) => ({
      business_id: e.businessId,
      type: e.type,
      ordering_key: e.orderingKey,
      data: e.data,
      stamp: null,
    })),
    ...announced.map((a) => ({ business_id: ctx.businessId, ...eventOf(a.type, a.object, a), stamp: a.stamp })),
  ];
  const { entries, now } = await applyCreditChanges(trx, ctx.businessId, {
    creditId: l.credit.id,
    entries: l.staged.entries,
    accruedThrough: l.staged.accruedThrough,
    installments: moved,
    creditStatus,
    payment: l.staged.payment,
    reversal: l.staged.reversal,
    events,
  });
  l.staged = nothingStaged();
  // the rows as a re-read would give them, without the re-read
  const byId = new Map(moved.map((m) => [m.id, m]));
  l.installments = l.installments.map((i) => {
    const m = byId.get(i.id);
    return m ? { ...i, status: m.status, paid_date: m.paid_date, updated_at: now } : i;
  });
  if (creditStatus) l.credit = { ...l.credit, status: creditStatus, updated_at: now };
  l.ledger = [...l.ledger, ...entries];
  return entries;
}

/** A staged entry as its ledger row will read (created_at: given, or null for the statement to set). */
function asWritten<T extends Date | null>(
  ctx: LendingContext,
  creditId: string,
  e: RowBook['staged']['entries'][number],
  createdAt: T,
): Omit<LedgerEntry, 'created_at'> & { created_at: T } {
  return {
    ...e,
    business_id: ctx.businessId,
    credit_id: creditId,
    amount: String(e.amount),
    punitory_part: e.punitory_part === undefined ? '0.00' : String(e.punitory_part),
    vat_part: e.vat_part === undefined ? '0.00' : String(e.vat_part),
    interest_part: e.interest_part === undefined ? '0.00' : String(e.interest_part),
    charge_part: e.charge_part === undefined ? '0.00' : String(e.charge_part),
    fees_part: e.fees_part === undefined ? '0.00' : String(e.fees_part),
    insurance_part: e.insurance_part === undefined ? '0.00' : String(e.insurance_part),
    payment_id: e.payment_id ?? null,
    branch_id: e.branch_id ?? null,
    created_at: createdAt,
  };
}

/**
 * A payment staged on a book and taken as written (setAside), to be written with the others of a
 * batch (flushBatch).
 */
export interface SetAside {
  changes: CreditChanges;
  /** the credit before the change */
  credit: Credit;
}

/** Far in the future, before the staged entries' own (book.ts statesOf): what is set aside sorts after what was read. */
const SET_ASIDE_AT = 8.64e15 - 1e12;

/**
 * Takes what is staged on `l` as written without writing it (several payments of one batch, one
 * statement for all: flushBatch): the book then holds the rows a re-read would give (the entries,
 * the payment, statuses, the watermark), so the credit's next payment of the batch is decided on
 * them. No reversal (written alone, by flush).
 */
export function setAside(ctx: LendingContext, l: RowBook): SetAside {
  const { moved, creditStatus } = settle(l);
  const { staged, credit } = l;
  const changes: CreditChanges = {
    creditId: credit.id,
    entries: staged.entries,
    accruedThrough: staged.accruedThrough,
    installments: moved,
    creditStatus,
    payment: staged.payment,
    reversal: null,
  };
  const at = (k: number) => new Date(SET_ASIDE_AT + l.ledger.length + k);
  l.ledger = [...l.ledger, ...staged.entries.map((e, k) => asWritten(ctx, credit.id, e, at(k)) satisfies LedgerEntry)];
  if (staged.payment) {
    const p = staged.payment;
    const row: Payment = {
      ...p,
      method: p.method as Payment['method'],
      business_id: ctx.businessId,
      credit_id: credit.id,
      created_at: at(staged.entries.length),
      reversed_at: null,
      reversal_reason: null,
      reversed_by: null,
    };
    // in the order they apply: after every payment of its date or earlier
    const k = l.payments.findIndex((x) => x.paid_on > p.paid_on);
    l.payments = k < 0 ? [...l.payments, row] : [...l.payments.slice(0, k), row, ...l.payments.slice(k)];
  }
  const byId = new Map(moved.map((m) => [m.id, m]));
  l.installments = l.installments.map((i) => {
    const m = byId.get(i.id);
    return m ? { ...i, status: m.status, paid_date: m.paid_date } : i;
  });
  if (creditStatus) l.credit = { ...credit, status: creditStatus };
  l.staged = nothingStaged();
  return { changes, credit };
}

/** Writes what a batch set aside, in one statement, and announces each change in the order given. */
export async function flushBatch(trx: Transaction<DB>, ctx: LendingContext, batch: SetAside[]): Promise<void> {
  if (batch.length === 0) return;
  const applied = await applyManyCreditChanges(
    trx,
    ctx.businessId,
    batch.map((b) => b.changes),
  );
  for (const { changes, credit } of batch)
    for (const a of changeEvents(
      ctx,
      { credit, payment: changes.payment ?? null, reversal: null },
      {
        entries: changes.entries.map((e) => applied.entries.get(e.id)!),
        now: applied.now,
        paymentCreatedAt: changes.payment ? (applied.paymentCreatedAt.get(changes.payment.id) ?? null) : null,
        creditStatus: changes.creditStatus,
      },
    ))
      emit(trx, ctx.businessId, a.type, a.object, a);
}

/** An event of a change: its object, and which of its instants the write sets (StampedEvent). */
interface ChangeEvent {
  type: EventType;
  object: { id: string };
  creditId: string;
  extra?: Record<string, unknown>;
  stamp: StampedEvent['stamp'];
}

/**
 * The events of what was written: the payment, its reversal, punitory posted, the credit's status.
 * The instants are the written rows' (null: the write sets them, each event's stamp).
 */
function changeEvents(
  ctx: LendingContext,
  what: {
    /** the credit before the change */
    credit: Credit;
    payment: CreditChanges['payment'];
    reversal: { payment: Payment; reason: string } | null;
  },
  written: {
    entries: (Omit<LedgerEntry, 'created_at'> & { created_at: Date | null })[];
    now: Date | null;
    paymentCreatedAt: Date | null;
    creditStatus: Credit['status'] | null;
  },
): ChangeEvent[] {
  const creditId = what.credit.id;
  const { payment, reversal } = what;
  const out: ChangeEvent[] = [];
  // the punitory posted up to the payment's date comes before the payment, as in the ledger
  for (const e of written.entries)
    if (e.type === 'punitory')
      out.push({
        type: 'punitory.posted',
        object: presentLedgerEntry(e as LedgerEntry),
        creditId,
        stamp: { field: 'created_at', at: { entry: e.id } },
      });
  if (payment)
    out.push({
      type: 'payment.created',
      object: presentPayment({
        ...payment,
        method: payment.method as Payment['method'],
        business_id: ctx.businessId,
        credit_id: creditId,
        created_at: (written.paymentCreatedAt ?? written.now) as Date,
        reversed_at: null,
        reversal_reason: null,
        reversed_by: null,
      }),
      creditId,
      stamp: { field: 'created_at', at: 'payment' },
    });
  if (reversal)
    out.push({
      type: 'payment.reversed',
      object: presentPayment({
        ...reversal.payment,
        reversed_at: written.now as Date,
        reversal_reason: reversal.reason,
      }),
      creditId,
      stamp: { field: 'reversed_at', at: 'now' },
    });
  if (written.creditStatus)
    out.push({
      type: 'credit.status_changed',
      object: presentCredit({ ...what.credit, status: written.creditStatus, updated_at: written.now as Date }),
      creditId,
      extra: { previous_status: what.credit.status },
      stamp: { field: 'updated_at', at: 'now' },
    });
  return out;
}

/** credit.status_changed, with the status it had before (a step in the caller's transaction: the daily run's too). */
export function announceStatus(trx: Transaction<DB>, businessId: string, credit: Credit, previous: string): void {
  emit(trx, businessId, 'credit.status_changed', presentCredit(credit), {
    creditId: credit.id,
    extra: { previous_status: previous },
  });
}
