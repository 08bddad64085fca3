// Reads off a PostgreSQL streaming replica (DATABASE_READ_URL): which connection a read that may
// come from the replica takes (docs/deployment.md#read-replicas). The replica is used only while
// it is within READ_MAX_LAG_MS of the primary and has replayed the caller's last write; otherwise
// the read goes to the primary, and the counts say why.
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.ts';

/** Why a read went where it went (the metric's reason label). */
export type ReadReason = 'replica' | 'lag' | 'own_write' | 'unavailable';

export interface ReadStats {
  /** reads by where they went and why: replica/replica, primary/lag, primary/own_write, primary/unavailable */
  reads: Record<ReadReason, number>;
  /** the replica's lag at its last check, in ms (0: it had replayed everything the primary had written); null before the first or after a failed check */
  lagMs: number | null;
}

/** A WAL position ('16/B374D848') as a number that compares. */
export function lsn(text: string): bigint {
  const [hi = '0', lo = '0'] = text.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/** A WAL position as PostgreSQL writes it: the consistency token a write's answer carries. */
export function lsnText(position: bigint): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** Whether a text is a WAL position ('16/B374D848'): what a consistency token must be. */
export function isLsn(text: string): boolean {
  return /^[0-9A-Fa-f]{1,8}\/[0-9A-Fa-f]{1,8}$/.test(text);
}

interface Status {
  /** when the check started (performance.now()) */
  at: number;
  /** the primary's position the check read first, or null when it could not be read */
  primary: bigint | null;
  /** the replica's replay position, or null when it could not be read (then the replica is not used) */
  replay: bigint | null;
  lagMs: number | null;
}

/** Callers remembered at most (their last write's position); the oldest are forgotten first. */
const MAX_CALLERS = 100_000;
/** A caller whose write position could not be read reads from the primary this long. */
const UNKNOWN_WRITE_MS = 10_000;
/** After a failed check the replica is left alone this long. */
const UNAVAILABLE_MS = 1_000;

export class ReadRouter {
  private status: Status | null = null;
  private checking: { at: number; status: Promise<Status> } | null = null;
  /** caller → the primary's WAL position after its last write (or, when it could not be read, until when to read the primary) */
  private readonly writes = new Map<string, { lsn: bigint } | { until: number }>();
  private readonly counts: Record<ReadReason, number> = { replica: 0, lag: 0, own_write: 0, unavailable: 0 };
  /** how long a check stays valid: a read may be up to this much older than the bound says */
  private readonly statusMs: number;

  private readonly primary: Kysely<DB>;
  readonly replica: Kysely<DB>;
  private readonly maxLagMs: number;
  constructor(primary: Kysely<DB>, replica: Kysely<DB>, maxLagMs: number) {
    this.primary = primary;
    this.replica = replica;
    this.maxLagMs = maxLagMs;
    this.statusMs = Math.min(100, Math.max(10, Math.floor(maxLagMs / 4)));
  }

  /**
   * The primary's WAL position now, remembered for the caller: called once its write has
   * committed, so the position is at or after the write's commit. Its next reads go to the
   * replica only once the replica has replayed that far.
   */
  async wrote(caller: string): Promise<bigint | null> {
    let mark: { lsn: bigint } | { until: number };
    try {
      mark = { lsn: await this.primaryPosition() };
    } catch {
      mark = { until: Date.now() + UNKNOWN_WRITE_MS };
    }
    this.writes.delete(caller);
    this.writes.set(caller, mark);
    if (this.writes.size > MAX_CALLERS) this.writes.delete(this.writes.keys().next().value!);
    return 'lsn' in mark ? mark.lsn : null;
  }

  /**
   * Where a read of the caller (null: no one in particular, e.g. the CLI) goes now. `after`: a WAL
   * position the caller brought (the consistency token of a write it made, maybe through another
   * process): the replica serves it only once it has replayed that far.
   */
  async reader(caller: string | null, after: bigint | null = null): Promise<Kysely<DB>> {
    const since = performance.now();
    let known = caller === null ? undefined : this.writes.get(caller);
    if (known && 'until' in known) {
      if (Date.now() < known.until) return this.toPrimary('own_write');
      this.writes.delete(caller!);
      known = undefined;
    }
    // the later of the write this process remembers and the one the caller brought
    const own = known && 'lsn' in known ? known.lsn : null;
    const wait = own === null ? after : after === null || own > after ? own : after;
    let s = await this.current();
    if (s.replay === null) return this.toPrimary('unavailable');
    if (wait !== null && s.replay < wait) {
      // the write may have been replayed since the last check: look once more, with a check that
      // started after this read did (concurrent reads share it)
      s = await this.current(since);
      if (s.replay === null) return this.toPrimary('unavailable');
      // a position beyond the primary's own is no one's write (a made-up token): it waits for
      // what the primary has, no more, so it cannot keep a caller's reads off the replica
      const bound = s.primary !== null && wait > s.primary ? s.primary : wait;
      if (s.replay < bound) return this.toPrimary('own_write');
    }
    if (known) this.writes.delete(caller!); // replayed: from now on the replica has it
    if (s.lagMs === null || s.lagMs > this.maxLagMs) return this.toPrimary('lag');
    this.counts.replica++;
    return this.replica;
  }

  stats(): ReadStats {
    return { reads: { ...this.counts }, lagMs: this.status?.lagMs ?? null };
  }

  private toPrimary(reason: Exclude<ReadReason, 'replica'>): Kysely<DB> {
    this.counts[reason]++;
    return this.primary;
  }

  private async primaryPosition(): Promise<bigint> {
    // flushed, not inserted: called after the write committed (synchronous_commit on, the default:
    // its commit record is flushed), and the insert position can point past a page header the
    // standby's replay only passes with the next record, which a quiet primary may never write
    const { rows } = await sql<{ lsn: string }>`SELECT pg_current_wal_flush_lsn()::text AS lsn`.execute(this.primary);
    return lsn(rows[0]!.lsn);
  }

  /**
   * Without `since`, the last check while it is fresh, else a new one; with `since`, a check that
   * started at or after it (the last one, the one under way, or a new one). Concurrent reads share
   * a check.
   */
  private async current(since?: number): Promise<Status> {
    const now = performance.now();
    const s = this.status;
    const c = this.checking;
    if (since === undefined) {
      if (s && now - s.at < (s.replay === null ? UNAVAILABLE_MS : this.statusMs)) return s;
      if (c) return c.status;
    } else {
      if (s && s.at >= since) return s;
      if (c && c.at >= since) return c.status;
    }
    const mine = { at: now, status: this.check(now) };
    this.checking = mine;
    try {
      const status = await mine.status;
      // a check that started later may have finished first: keep the newest
      if (!this.status || this.status.at <= status.at) this.status = status;
      return status;
    } finally {
      if (this.checking === mine) this.checking = null;
    }
  }

  /**
   * The primary's position first, then the replica's: a replica that has replayed the position
   * read a moment before is not behind (lag 0). Otherwise its lag is at most the age of the last
   * transaction it replayed (what follows it in the WAL is younger): an upper bound, so a
   * bound is never overstepped, though a replica that has replayed no transaction for a while
   * (the primary idle but for its own housekeeping) may count as late until it catches up.
   */
  private async check(at: number): Promise<Status> {
    let primary: bigint | null = null;
    try {
      primary = await this.primaryPosition();
      const { rows } = await sql<{ replay: string | null; age_ms: number | string | null }>`
        SELECT pg_last_wal_replay_lsn()::text AS replay,
               extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000 AS age_ms`.execute(
        this.replica,
      );
      const r = rows[0];
      // not a standby (no replay position): it is not a replica of anything we can measure
      if (!r?.replay) return { at, primary, replay: null, lagMs: null };
      const replay = lsn(r.replay);
      const lagMs = replay >= primary ? 0 : r.age_ms === null ? null : Math.max(0, Number(r.age_ms));
      return { at, primary, replay, lagMs };
    } catch {
      return { at, primary, replay: null, lagMs: null };
    }
  }
}
