import type { Command } from 'commander';
import { UsageError, uuidArg, type CliContext } from '../context.ts';
import { getBusiness, listBusinesses } from '../../services/businesses.ts';
import { actorContext } from '../../services/context.ts';
import { importHolidays, nationalHolidays } from '../../services/holidays.ts';

export function registerHolidays(h: Command, ctx: CliContext) {
  h.command('import')
    .description(
      "add a country's national (public) holidays of a year to a business, or to every business; dates it has already are skipped",
    )
    .requiredOption('--country <code>', 'two-letter country code (e.g. AR)')
    .requiredOption('--year <year>', 'the year, e.g. 2027')
    .option('--business <id>', 'the business (default: every business)')
    .action(async (opts: { country: string; year: string; business?: string }) => {
      if (!/^\d{4}$/.test(opts.year)) throw new UsageError('--year must be a year, e.g. 2027');
      const businessId = opts.business === undefined ? undefined : uuidArg('--business', opts.business);
      // the calendar is checked before the database is opened: an unknown country changes nothing
      const holidays = await nationalHolidays(opts.country, Number(opts.year));
      const results = await ctx.withDb(async (db) => {
        const businesses = businessId ? [await getBusiness(db, businessId)] : await listBusinesses(db);
        const out = [];
        for (const b of businesses) {
          const { added, skipped } = await importHolidays(
            db,
            actorContext({ businessId: b.id, timezone: b.timezone }, 'cli', ctx.clock),
            holidays,
          );
          out.push({ business_id: b.id, business_name: b.name, added, skipped });
        }
        return out;
      });
      ctx.print(results, () => {
        if (results.length === 0) return 'no businesses yet: nothing imported';
        const country = opts.country.toUpperCase();
        return results
          .map((r) =>
            [
              `${r.business_name} (${r.business_id}): ${r.added.length} added, ${r.skipped.length} skipped (${country} ${opts.year}, ${holidays.length} national holidays)`,
              ...r.added.map((a) => `  added    ${a.date}  ${a.name}`),
              ...r.skipped.map((s) => `  skipped  ${s.date}  ${s.name} (already a holiday)`),
            ].join('\n'),
          )
          .join('\n');
      });
    });
}
