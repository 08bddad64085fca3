// The backfill of the disclosed cost (migration 045): credits granted before it have no stored
// figures and show them computed on every read until this fills them, batch by batch, each batch
// one transaction (docs/lending-engine.md, "The disclosed cost"). Safe to run while the service
// serves: a batch only fills credits still without figures, and the figures depend only on the
// schedule as granted.
import { withActor, type Database } from '../../db/connection.ts';
import { listBusinesses } from '../../db/repositories/businesses.ts';
import { creditsWithoutCost, storeCosts } from '../../db/repositories/credits.ts';
import { computeCost, costColumns } from '../present.ts';

export interface BackfillResult {
  business_id: string;
  credits_filled: number;
}

export async function backfillCosts(
  db: Database,
  opts: { businessId?: string; batch?: number; actor?: string } = {},
): Promise<BackfillResult[]> {
  const batch = opts.batch ?? 500;
  const businesses = opts.businessId ? [opts.businessId] : (await listBusinesses(db.kysely)).map((b) => b.id);
  const results: BackfillResult[] = [];
  for (const businessId of businesses) {
    let filled = 0;
    let after: string | null = null;
    for (;;) {
      const r = await withActor(db.kysely, { actor: opts.actor ?? 'cli' }, async (trx) => {
        const credits = await creditsWithoutCost(trx, businessId, after, batch);
        const costs = credits.map((c) => ({ id: c.id, ...costColumns(computeCost(c, c.installments)) }));
        return { filled: await storeCosts(trx, businessId, costs), read: credits.length, last: credits.at(-1)?.id };
      });
      filled += r.filled;
      if (r.read < batch || !r.last) break;
      after = r.last;
    }
    results.push({ business_id: businessId, credits_filled: filled });
  }
  return results;
}
