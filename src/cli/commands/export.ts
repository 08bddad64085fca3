// `lending export DATASET --business ID [--from] [--to] > file.csv`: the CSV of
// GET /api/reports/exports/{dataset}.csv on stdout, streamed: the next batch is read from the
// database only when stdout has taken the previous one (also through the admin socket, when the
// command runs inside the server). A progress line on stderr when stderr is a terminal.
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { UsageError, type CliContext } from '../context.ts';
import { getBusiness } from '../../db/repositories/businesses.ts';
import { isUuid, todayIn } from '../../domain/index.ts';
import { DATASETS, countExport, exportCsv, parseBound, type Bound, type Dataset } from '../../services/reports.ts';

function bound(flag: string, v: string | undefined): Bound | undefined {
  if (v === undefined) return undefined;
  const b = parseBound(v);
  if (!b) throw new UsageError(`${flag} ${v} is not a date (YYYY-MM-DD) or an RFC 3339 date-time with offset`);
  return b;
}

/** Writes and waits while the stream's buffer is full; rejects if it fails or closes first. */
function write(out: Writable, text: string): Promise<void> | void {
  if (out.write(text)) return;
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      out.off('drain', ok);
      out.off('error', fail);
      out.off('close', closed);
      if (err) reject(err);
      else resolve();
    };
    const ok = () => done();
    const fail = (err: Error) => done(err);
    const closed = () => done(new Error('stdout was closed'));
    out.on('drain', ok);
    out.on('error', fail);
    out.on('close', closed);
  });
}

export function registerExport(cmd: Command, ctx: CliContext) {
  cmd
    .argument('<dataset>', DATASETS.join(' | '))
    .requiredOption('--business <id>', 'business id')
    .option(
      '--from <when>',
      'rows created from (changed_at for logs): YYYY-MM-DD (whole day, business time zone) or a date-time with offset',
    )
    .option('--to <when>', 'rows created up to, inclusive: YYYY-MM-DD or a date-time with offset')
    .action(async (dataset: string, opts: { business: string; from?: string; to?: string }) => {
      if (!(DATASETS as readonly string[]).includes(dataset))
        throw new UsageError(`unknown dataset ${dataset}: one of ${DATASETS.join(', ')}`);
      if (!isUuid(opts.business)) throw new UsageError('--business must be a uuid');
      const from = bound('--from', opts.from);
      const to = bound('--to', opts.to);
      const businessId = opts.business.toLowerCase();
      await ctx.withDb(async (db) => {
        const business = await getBusiness(db.kysely, businessId);
        if (!business) throw new UsageError(`no business ${businessId}`);
        const filter = { businessId, timezone: business.timezone, ...(from ? { from } : {}), ...(to ? { to } : {}) };
        let progress: Progress | null = null;
        if (ctx.io.stderrIsTTY)
          progress = new Progress(ctx.io.stderr, dataset, await countExport(db.kysely, dataset as Dataset, filter));
        let seen = 0;
        try {
          for await (const chunk of exportCsv(db, dataset as Dataset, {
            ...filter,
            today: todayIn(business.timezone, ctx.clock()),
          })) {
            await write(ctx.io.stdout, chunk.csv);
            seen += chunk.rows;
            progress?.update(seen);
          }
        } finally {
          progress?.end();
        }
      });
    });
}

/**
 * One line on a terminal's stderr, rewritten in place (\r) at most every 100 ms: rows written of
 * the count taken before the export started (rows added since grow the total).
 */
class Progress {
  private shown = 0;
  private seen = 0;
  private readonly out: Writable;
  private readonly label: string;
  private total: number;
  constructor(out: Writable, label: string, total: number) {
    this.out = out;
    this.label = label;
    this.total = total;
    this.draw();
  }
  update(seen: number) {
    this.seen = seen;
    if (seen > this.total) this.total = seen;
    if (Date.now() - this.shown >= 100) this.draw();
  }
  end() {
    this.draw();
    this.out.write('\n');
  }
  private draw() {
    this.shown = Date.now();
    const pct = this.total ? Math.floor((100 * this.seen) / this.total) : 100;
    this.out.write(`\r${this.label}: ${this.seen}/${this.total} rows (${pct}%)\x1b[K`);
  }
}
