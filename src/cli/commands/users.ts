// `lending operators create` and `lending users create`: an account without a password, and the
// one-time link (72 hours) where its person chooses one. The link's base is PUBLIC_URL, else
// http://HOST:PORT (docs/users.md).
import type { Command } from 'commander';
import type { Config } from '../../config.ts';
import { ROLES, type Role } from '../../domain/access.ts';
import { actorContext } from '../../services/context.ts';
import { createOperator, createUserFor, setPasswordPath, type PasswordLink } from '../../services/users.ts';
import { UsageError, record, uuidArg, type CliContext } from '../context.ts';

/** Where links lead: PUBLIC_URL, else the address the server listens on. */
export function linkBase(config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The account's record with its one-time link (as POST /api/users answers). */
function printLinked(ctx: CliContext, account: object, link: PasswordLink) {
  const url = `${linkBase(ctx.config)}${setPasswordPath(link.token)}`;
  ctx.print(
    { ...account, set_password_url: url, set_password_expires_at: link.expires_at },
    () =>
      `${record(account)}\n\nset-password link  ${url}\n\nSend it to them: it works once, until ${link.expires_at.toISOString()}, and is not shown again.`,
  );
}

export function registerOperators(o: Command, ctx: CliContext) {
  o.command('create')
    .description('create a platform operator; prints the one-time link where they choose a password')
    .requiredOption('--email <email>', 'their email: what they sign in with')
    .option('--name <name>', 'their name')
    .action(async (opts: { email: string; name?: string }) => {
      const created = await ctx.withDb((db) =>
        createOperator(db, { email: opts.email, name: opts.name ?? null }, ctx.clock()),
      );
      printLinked(ctx, created.operator, created.link);
    });
}

export function registerUsers(u: Command, ctx: CliContext) {
  u.command('create')
    .description('create a user of a business; prints the one-time link where they choose a password')
    .requiredOption('--business <id>', 'business id')
    .requiredOption('--email <email>', 'their email: unique within the business')
    .requiredOption('--role <role>', ROLES.join(', '))
    .option('--name <name>', 'their name')
    .action(async (opts: { business: string; email: string; role: string; name?: string }) => {
      if (!(ROLES as readonly string[]).includes(opts.role))
        throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const businessId = uuidArg('--business', opts.business);
      const created = await ctx.withDb((db) =>
        createUserFor(db, businessId, { email: opts.email, role: opts.role as Role, name: opts.name ?? null }, (b) =>
          actorContext(b, 'cli', ctx.clock),
        ),
      );
      printLinked(ctx, created.user, created.link);
    });
}
