import type { Command } from 'commander';
import { UsageError, record, table, uuidArg, type CliContext } from '../context.ts';
import { createKey, listKeys, revokeKey, type Scope } from '../../services/apiKeys.ts';

export function registerKeys(k: Command, ctx: CliContext) {
  k.command('create')
    .description('create an API key; prints its record and, once, the secret as "key"')
    .requiredOption('--business <id>', 'business id')
    .requiredOption('--scope <scope>', 'read or full')
    .option('--name <name>', 'a label for the key')
    .action(async (opts: { business: string; scope: string; name?: string }) => {
      if (opts.scope !== 'read' && opts.scope !== 'full') throw new UsageError('--scope must be read or full');
      const businessId = uuidArg('--business', opts.business);
      const created = await ctx.withDb((db) =>
        createKey(db, { businessId, scope: opts.scope as Scope, name: opts.name ?? null }),
      );
      const out = { ...created.record, key: created.key };
      ctx.print(
        out,
        () => `${record(created.record)}\n\nkey  ${created.key}\n\nKeep the key now: it is not shown again.`,
      );
    });
  k.command('list')
    .description("list a business's keys (never the secrets)")
    .requiredOption('--business <id>', 'business id')
    .action(async (opts: { business: string }) => {
      const businessId = uuidArg('--business', opts.business);
      const rows = await ctx.withDb((db) => listKeys(db, businessId));
      ctx.print(rows, () =>
        rows.length
          ? table(rows, ['id', 'name', 'scope', 'prefix', 'created_at', 'last_used_at', 'revoked_at'])
          : 'no keys',
      );
    });
  k.command('revoke')
    .description('revoke a key: it is refused from the next request on')
    .argument('<key-id>', 'the key id (from keys list)')
    .action(async (keyId: string) => {
      const id = uuidArg('key id', keyId);
      const revoked = await ctx.withDb((db) => revokeKey(db, id));
      ctx.print(revoked, () => record(revoked));
    });
}
