// E-mail to clients and users (docs/notifications.md): reminders queued by the daily run and sent
// by the mail job with retries, set-password links sent when they are made; each one a row of
// GET /api/notifications, whatever became of it. Without SMTP_URL nothing is sent and each is
// recorded `not_configured`.
import { withActor } from '../db/connection.ts';
import { unpaidDueOn } from '../db/repositories/installments.ts';
import {
  claimDueNotifications,
  insertNotifications,
  listNotifications as listRows,
  recordAttempt,
  remindableClients,
  type NewNotification,
  type NotificationFilter,
} from '../db/repositories/notifications.ts';
import type { PageRequest } from '../db/repositories/page.ts';
import type { NotificationRow } from '../db/schema.ts';
import { addDays } from '../domain/dates.ts';
import { MailFailure, type Mailer } from '../mail/transport.ts';
import type { ActorContext, Database } from './context.ts';
import { worklistItems } from './credits.ts';
import { getBusiness } from './businesses.ts';
import { emit } from './events.ts';

/** What sending needs: the database, the transport (null: not configured) and the attempts allowed. */
export interface MailDeps {
  db: Database;
  mailer: Mailer | null;
  maxAttempts: number;
}

export interface ReminderRules {
  /** days before the due date */
  before_due_days: number[];
  /** days late */
  overdue_days: number[];
}

const money = new Intl.NumberFormat('es-AR', { style: 'currency', currency: 'ARS', minimumFractionDigits: 2 });
const date = new Intl.DateTimeFormat('es-AR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });
const day = (d: string) => date.format(new Date(`${d}T00:00:00Z`));
const peso = (n: number) => money.format(n).replace(/\u00a0/g, ' ');

/** The reminder's Spanish text: who, which installment, how much and when. */
export function reminderText(r: {
  business: string;
  name: string | null;
  credit: number;
  installment: number;
  due_date: string;
  amount: number;
  outstanding: number;
  kind: 'reminder_before_due' | 'reminder_overdue';
  days: number;
}): { subject: string; text: string } {
  const hello = r.name ? `Hola, ${r.name}:` : 'Hola:';
  const what = `la cuota ${r.installment} de tu crédito N.º ${r.credit}`;
  if (r.kind === 'reminder_before_due') {
    const when = r.days === 0 ? 'vence hoy' : r.days === 1 ? 'vence mañana' : `vence en ${r.days} días`;
    return {
      subject: `${r.business}: tu cuota ${r.installment} ${when} (${day(r.due_date)})`,
      text: [
        hello,
        '',
        `Te recordamos que ${what} ${when}, el ${day(r.due_date)}.`,
        `Importe de la cuota: ${peso(r.amount)}. Saldo a pagar: ${peso(r.outstanding)}.`,
        '',
        'Si ya pagaste, no tengas en cuenta este mensaje.',
        '',
        r.business,
      ].join('\n'),
    };
  }
  return {
    subject: `${r.business}: tu cuota ${r.installment} está vencida`,
    text: [
      hello,
      '',
      `${what[0]!.toUpperCase()}${what.slice(1)} venció el ${day(r.due_date)} y lleva ${r.days} ${r.days === 1 ? 'día' : 'días'} de atraso.`,
      `Saldo a pagar hoy, con los intereses punitorios: ${peso(r.outstanding)}.`,
      '',
      'Acercate a tu sucursal o comunicate con nosotros para regularizarla. Si ya pagaste, no tengas en cuenta este mensaje.',
      '',
      r.business,
    ].join('\n'),
  };
}

/**
 * Queues today's reminders of a business (the daily run): one per unpaid installment of an active
 * credit due `n` days from today (each before-due rule) or `n` days ago (each overdue rule), to a
 * client with an e-mail who did not opt out. A reminder already queued for that installment, kind
 * and day offset is not queued again. Returns how many were queued.
 */
export async function queueReminders(
  db: Database,
  ctx: Pick<ActorContext, 'businessId' | 'today' | 'timezone' | 'now'> & { businessName: string },
  rules: ReminderRules,
  configured: boolean,
): Promise<number> {
  const byDay = new Map<string, { kind: 'reminder_before_due' | 'reminder_overdue'; days: number }[]>();
  const add = (d: string, kind: 'reminder_before_due' | 'reminder_overdue', days: number) =>
    byDay.set(d, [...(byDay.get(d) ?? []), { kind, days }]);
  for (const n of new Set(rules.before_due_days)) add(addDays(ctx.today, n), 'reminder_before_due', n);
  for (const n of new Set(rules.overdue_days)) if (n > 0) add(addDays(ctx.today, -n), 'reminder_overdue', n);
  if (byDay.size === 0) return 0;
  return withActor(db.kysely, { actor: 'system:reminders' }, async (trx) => {
    const rows = await unpaidDueOn(trx, ctx.businessId, [...byDay.keys()]);
    if (rows.length === 0) return 0;
    const clients = new Map(
      (await remindableClients(trx, ctx.businessId, [...new Set(rows.map((r) => r.client_id))])).map((c) => [c.id, c]),
    );
    const items = await worklistItems(
      trx,
      ctx,
      rows.filter((r) => clients.has(r.client_id)),
    );
    const out: NewNotification[] = [];
    for (const item of items) {
      const c = clients.get(item.client_id)!;
      for (const rule of byDay.get(item.due_date) ?? []) {
        const { subject, text } = reminderText({
          business: ctx.businessName,
          name: [c.first_name, c.last_name].filter(Boolean).join(' ') || null,
          credit: item.credit_sequential_id,
          installment: item.number,
          due_date: item.due_date,
          amount: item.amount,
          outstanding: item.outstanding,
          kind: rule.kind,
          days: rule.days,
        });
        out.push({
          client_id: c.id,
          credit_id: item.credit_id,
          installment_id: item.id,
          kind: rule.kind,
          offset_days: rule.days,
          to: c.email,
          subject,
          body: text,
          ...(configured
            ? { status: 'queued' as const, next_attempt_at: ctx.now }
            : { status: 'not_configured' as const, error: 'SMTP_URL is not set: nothing was sent' }),
        });
      }
    }
    return (await insertNotifications(trx, ctx.businessId, out)).length;
  });
}

/** Minutes before the next attempt after `attempts` failed ones: 1, 2, 4, … up to an hour. */
export const retryDelayMs = (attempts: number) => Math.min(60, 2 ** Math.max(0, attempts - 1)) * 60_000;

/**
 * Sends what is due (of one business, or of every one): each claimed for a lease, sent, and
 * recorded as sent, retried later, or failed (a refusal, or the last attempt), which announces
 * notification.failed. Safe in several processes at once. Returns the attempts made.
 */
export async function deliverDueNotifications(
  deps: MailDeps,
  opts: { now: Date; businessId?: string; limit?: number; leaseMs?: number; stop?: () => boolean },
): Promise<{ attempted: number; sent: number; failed: number }> {
  const out = { attempted: 0, sent: 0, failed: 0 };
  if (!deps.mailer) return out;
  const claimed = await claimDueNotifications(deps.db.kysely, {
    now: opts.now,
    limit: opts.limit ?? 20,
    leaseMs: opts.leaseMs ?? 60_000,
    ...(opts.businessId ? { businessId: opts.businessId } : {}),
  });
  for (const n of claimed) {
    if (opts.stop?.()) break;
    out.attempted++;
    const outcome = await attempt(deps.mailer, n);
    await withActor(deps.db.kysely, { actor: 'system:mail' }, async (trx) => {
      if (outcome === null) {
        if (await recordAttempt(trx, n, { status: 'sent', at: new Date() })) out.sent++;
        return;
      }
      const last = outcome.permanent || n.attempts >= deps.maxAttempts;
      const recorded = await recordAttempt(
        trx,
        n,
        last
          ? { status: 'failed', error: outcome.message }
          : {
              status: 'queued',
              error: outcome.message,
              next_attempt_at: new Date(opts.now.getTime() + retryDelayMs(n.attempts)),
            },
      );
      if (recorded && last) {
        out.failed++;
        emit(trx, n.business_id, 'notification.failed', presentNotification(recorded), {
          ...(n.credit_id ? { creditId: n.credit_id } : {}),
        });
      }
    });
  }
  return out;
}

async function attempt(mailer: Mailer, n: NotificationRow): Promise<MailFailure | null> {
  try {
    await mailer.send({ to: n.to, subject: n.subject, text: n.body ?? '' });
    return null;
  } catch (err) {
    return err instanceof MailFailure ? err : new MailFailure(String(err), false);
  }
}

/**
 * E-mails a set-password link to its user, once, now: the link is a credential, so it is never
 * stored (the row keeps the subject, not the body) and never retried; a failure is recorded and
 * announced, and the admin still has the link to hand over.
 */
export async function emailPasswordLink(
  deps: MailDeps,
  ctx: Pick<ActorContext, 'businessId'>,
  r: { user: { id: string; email: string }; link: { expires_at: Date }; url: string; invited: boolean },
): Promise<void> {
  const business = await getBusiness(deps.db, ctx.businessId);
  const m = {
    userId: r.user.id,
    to: r.user.email,
    business: business.name,
    url: r.url,
    expires_at: r.link.expires_at,
    invited: r.invited,
  };
  const subject = m.invited
    ? `${m.business}: te invitaron a usar el sistema de créditos`
    : `${m.business}: elegí una nueva contraseña`;
  const until = new Intl.DateTimeFormat('es-AR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'UTC' }).format(
    m.expires_at,
  );
  const text = [
    'Hola:',
    '',
    m.invited
      ? `Te crearon una cuenta en ${m.business}. Para entrar, elegí tu contraseña en este enlace:`
      : `Para elegir una nueva contraseña en ${m.business}, abrí este enlace:`,
    '',
    m.url,
    '',
    `El enlace sirve una sola vez, hasta el ${until} (UTC). Si no lo pediste, no tengas en cuenta este mensaje.`,
  ].join('\n');
  const base = { user_id: m.userId, kind: 'password_link' as const, to: m.to, subject, body: null };
  let row: NewNotification;
  if (!deps.mailer) row = { ...base, status: 'not_configured', error: 'SMTP_URL is not set: nothing was sent' };
  else {
    const failure = await attempt(deps.mailer, { ...base, body: text } as NotificationRow);
    row = failure
      ? { ...base, status: 'failed', attempts: 1, error: failure.message }
      : { ...base, status: 'sent', attempts: 1, sent_at: new Date() };
  }
  await withActor(deps.db.kysely, { actor: 'system:mail' }, async (trx) => {
    const [saved] = await insertNotifications(trx, ctx.businessId, [row]);
    if (saved && saved.status === 'failed')
      emit(trx, ctx.businessId, 'notification.failed', presentNotification(saved));
  });
}

export const presentNotification = (n: NotificationRow) => ({
  id: n.id,
  client_id: n.client_id,
  user_id: n.user_id,
  credit_id: n.credit_id,
  installment_id: n.installment_id,
  kind: n.kind,
  offset_days: n.offset_days,
  channel: 'email' as const,
  to: n.to,
  subject: n.subject,
  status: n.status,
  attempts: n.attempts,
  error: n.error,
  created_at: n.created_at,
  sent_at: n.sent_at,
});

/**
 * GET /api/notifications: newest first. The e-mails to users (set-password links) are staff
 * matters: only admins and `full` keys see them, as with the staff entries of the audit log.
 */
export async function listNotifications(
  db: Database,
  ctx: ActorContext & { scope: 'read' | 'full' | null; role: string | null },
  f: NotificationFilter & PageRequest,
) {
  const staff = ctx.scope === 'full' || ctx.role === 'admin';
  const page = await listRows(db.kysely, ctx.businessId, { ...f, clientsOnly: !staff });
  return { ...page, items: page.items.map(presentNotification) };
}
