// E-mail through a real SMTP server that the test starts (smtp-server): set-password links sent to
// the user, reminders queued for the right installments and delivered by the mail job's pass,
// and a server that refuses, is slow or is down: retried with backoff, failed for good once, and
// announced. Both databases.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { build, json, settableClock, type Harness } from '../helpers/app.ts';
import { userSession } from '../helpers/sessions.ts';
import { deliverDueNotifications, queueReminders, retryDelayMs } from '../../src/services/notifications.ts';
import { smtpMailer } from '../../src/mail/transport.ts';
import { startMailDelivery } from '../../src/jobs/mail.ts';
import { openTestDb, testDbKind } from '../helpers/db.ts';

interface Inbox {
  url: string;
  port: number;
  messages: { to: string[]; raw: string }[];
  /** what the server does with the next messages */
  mode: 'accept' | 'refuse' | 'slow';
  close(): Promise<void>;
}

async function smtp(t: TestContext): Promise<Inbox> {
  const inbox = { messages: [], mode: 'accept' } as unknown as Inbox;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (inbox.mode === 'refuse') {
        const err = Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 });
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const done = () => {
          inbox.messages.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          cb();
        };
        if (inbox.mode === 'slow') setTimeout(done, 1500);
        else done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  inbox.port = port;
  inbox.url = `smtp://127.0.0.1:${port}`;
  inbox.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  t.after(() => inbox.close());
  return inbox;
}

/** The text of a message, quoted-printable and soft line breaks undone. */
const textOf = (raw: string) =>
  Buffer.from(
    raw
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    'latin1',
  )
    .toString('utf8')
    .replace(/\r/g, '');

const mailEnv = (url: string) => ({ SMTP_URL: url, MAIL_FROM: 'Demo <creditos@demo.example>', MAIL_TIMEOUT_MS: '500' });

async function notifications(h: Harness, query = '', key?: string) {
  const res = await h.get(`/api/notifications${query}`, key);
  assert.equal(res.statusCode, 200, res.body);
  return json<{ items: Record<string, any>[]; total: number }>(res);
}

test('an invited user gets the set-password link by e-mail; only admins and full keys see that e-mail', async (t) => {
  const inbox = await smtp(t);
  const h = await build(t, { env: mailEnv(inbox.url) });
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: admin.write,
    payload: { email: 'nuevo@demo.example', role: 'employee' },
  });
  assert.equal(res.statusCode, 201, res.body);
  const invitation = json(res);
  assert.equal(inbox.messages.length, 1);
  assert.deepEqual(inbox.messages[0]!.to, ['nuevo@demo.example']);
  assert.ok(textOf(inbox.messages[0]!.raw).includes(invitation.set_password_url), 'the e-mail carries the link');

  const list = await notifications(h);
  assert.equal(list.items[0]!.kind, 'password_link');
  assert.equal(list.items[0]!.status, 'sent');
  assert.equal(list.items[0]!.to, 'nuevo@demo.example');
  // a read key is not staff: the e-mails to users are not its business
  assert.equal((await notifications(h, '', h.tenant.readKey)).total, 0);
});

test('without SMTP_URL nothing is sent and each e-mail is recorded not_configured', async (t) => {
  const h = await build(t);
  const admin = await userSession(h, h.tenant.businessId, 'admin');
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/users',
    headers: admin.write,
    payload: { email: 'otro@demo.example', role: 'viewer' },
  });
  assert.equal(res.statusCode, 201, res.body);
  const [n] = (await notifications(h)).items;
  assert.equal(n!.status, 'not_configured');
  assert.equal(n!.attempts, 0);
});

/** A business with a plan of 3 monthly installments and a credit from `start` for a client with this e-mail. */
async function creditFor(h: Harness, email: string | null, start: string, extra: Record<string, unknown> = {}) {
  const plan = json(await h.post('/api/credit-configs', { name: `P${Math.random()}`, installments_count: 3 }));
  const client = json(
    await h.post('/api/clients', { dni: `${Math.floor(Math.random() * 1e8)}`, first_name: 'Ana', email, ...extra }),
  );
  const credit = json(
    await h.post(`/api/clients/${client.id}/credits`, { credit_config_id: plan.id, amount: 30000, start_date: start }),
  );
  return { client, credit: credit.credit ?? credit, installments: credit.installments };
}

async function business(h: Harness) {
  const b = await h.db.kysely
    .selectFrom('businesses')
    .select(['name', 'timezone'])
    .where('id', '=', h.tenant.businessId)
    .executeTakeFirstOrThrow();
  return b;
}

const RULES = { before_due_days: [3], overdue_days: [1, 7] };

test('reminders: before the due date and when late, once per installment and rule, never to an opted-out client', async (t) => {
  const inbox = await smtp(t);
  const clock = settableClock('2026-01-10');
  const h = await build(t, { env: mailEnv(inbox.url), clock });
  const ana = await creditFor(h, 'ana@cliente.example', '2026-01-10');
  await creditFor(h, 'optout@cliente.example', '2026-01-10', { notifications_opt_out: true });
  await creditFor(h, null, '2026-01-10');
  const firstDue = ana.installments[0].due_date as string;
  const { name, timezone } = await business(h);
  const ctx = (today: string) => ({
    businessId: h.tenant.businessId,
    businessName: name,
    today,
    timezone,
    now: new Date(`${today}T09:00:00Z`),
  });
  const deps = {
    db: h.db,
    mailer: smtpMailer({ smtpUrl: inbox.url, from: 'x@demo.example', timeoutMs: 500, maxAttempts: 3 }),
    maxAttempts: 3,
  };
  t.after(() => deps.mailer.close());

  // every day of two months: what is queued, by day
  const queued: Record<string, number> = {};
  for (
    let d = new Date('2026-01-10T00:00:00Z');
    d < new Date('2026-03-12T00:00:00Z');
    d.setUTCDate(d.getUTCDate() + 1)
  ) {
    const today = d.toISOString().slice(0, 10);
    clock.set(today);
    const n = await queueReminders(h.db, ctx(today), RULES, true);
    // the same day again queues nothing more
    assert.equal(await queueReminders(h.db, ctx(today), RULES, true), 0);
    if (n) queued[today] = n;
    await deliverDueNotifications(deps, { now: new Date(`${today}T09:00:00Z`), businessId: h.tenant.businessId });
    // the client pays installment 1 eight days late: no reminder for it after that
    if (today === addDaysIso(firstDue, 8)) {
      const pay = await h.post(`/api/credits/${ana.credit.id}/payments`, {
        amount: ana.installments[0].amount,
        paid_on: today,
      });
      assert.equal(pay.statusCode, 201, pay.body);
    }
  }
  const due = ana.installments.map((i: { due_date: string }) => i.due_date);
  const expected: Record<string, number> = {};
  const bump = (day: string) => {
    if (day >= '2026-01-10' && day < '2026-03-12') expected[day] = (expected[day] ?? 0) + 1;
  };
  for (const d of due) {
    bump(addDaysIso(d, -3));
    bump(addDaysIso(d, 1));
    bump(addDaysIso(d, 7));
  }
  assert.deepEqual(queued, expected);
  // only Ana was written to, and every message was delivered
  assert.ok(
    inbox.messages.every((m) => m.to[0] === 'ana@cliente.example'),
    "every m of inbox.messages: m.to[0] === 'ana@cliente.example'",
  );
  assert.equal(
    inbox.messages.length,
    Object.values(expected).reduce((a, b) => a + b, 0),
  );
  const text = textOf(inbox.messages[0]!.raw);
  assert.match(text, /vence en 3 días/);
  assert.match(text, /\$ ?10\.000,00/);
  const list = await notifications(h, `?client_id=${ana.client.id}&status=sent`);
  assert.equal(list.total, inbox.messages.length);
});

function addDaysIso(d: string, n: number) {
  const x = new Date(`${d}T00:00:00Z`);
  x.setUTCDate(x.getUTCDate() + n);
  return x.toISOString().slice(0, 10);
}

test('a refused message fails at once and is announced; a slow or absent server is retried with backoff until the last attempt', async (t) => {
  const inbox = await smtp(t);
  const clock = settableClock('2026-01-10');
  const h = await build(t, { env: mailEnv(inbox.url), clock });
  const { name, timezone } = await business(h);
  const a = await creditFor(h, 'a@cliente.example', '2026-01-10');
  const due = a.installments[0].due_date as string;
  const today = addDaysIso(due, -3);
  const now = new Date(`${today}T09:00:00Z`);
  const ctx = { businessId: h.tenant.businessId, businessName: name, today, timezone, now };
  assert.equal(await queueReminders(h.db, ctx, { before_due_days: [3], overdue_days: [] }, true), 1);

  // refused (550): failed at once, one event
  inbox.mode = 'refuse';
  const deps = (url = inbox.url) => ({
    db: h.db,
    mailer: smtpMailer({ smtpUrl: url, from: 'x@demo.example', timeoutMs: 500, maxAttempts: 3 }),
    maxAttempts: 3,
  });
  let pass = await deliverDueNotifications(deps(), { now, businessId: h.tenant.businessId });
  assert.deepEqual(pass, { attempted: 1, sent: 0, failed: 1 });
  let [n] = (await notifications(h)).items;
  assert.equal(n!.status, 'failed');
  assert.match(n!.error, /550/);
  const events = json(await h.get('/api/events?after=0&limit=100'));
  assert.equal(events.items.filter((e: { type: string }) => e.type === 'notification.failed').length, 1);

  // slow, then down: queued again with the backoff, failed after the third attempt
  const b = await creditFor(h, 'b@cliente.example', '2026-01-10');
  const ctxB = { ...ctx, today: addDaysIso(b.installments[0].due_date, -3) };
  assert.equal(await queueReminders(h.db, { ...ctxB, now }, { before_due_days: [3], overdue_days: [] }, true), 1);
  inbox.mode = 'slow';
  pass = await deliverDueNotifications(deps(), { now, businessId: h.tenant.businessId });
  assert.deepEqual(pass, { attempted: 1, sent: 0, failed: 0 });
  [n] = (await notifications(h, '?status=queued')).items;
  assert.equal(n!.attempts, 1);
  assert.match(n!.error, /timeout|ETIMEDOUT|Timeout/i);
  // not due before its backoff has passed
  assert.equal((await deliverDueNotifications(deps(), { now, businessId: h.tenant.businessId })).attempted, 0);
  await inbox.close();
  const later = new Date(now.getTime() + retryDelayMs(1));
  pass = await deliverDueNotifications(deps(), { now: later, businessId: h.tenant.businessId });
  assert.deepEqual(pass, { attempted: 1, sent: 0, failed: 0 });
  const last = new Date(later.getTime() + retryDelayMs(2));
  pass = await deliverDueNotifications(deps(), { now: last, businessId: h.tenant.businessId });
  assert.deepEqual(pass, { attempted: 1, sent: 0, failed: 1 });
  [n] = (await notifications(h, `?client_id=${b.client.id}`)).items;
  assert.equal(n!.status, 'failed');
  assert.equal(n!.attempts, 3);
});

test('SMTP_URL and MAIL_FROM go together, and a wrong one stops the server from starting with a clear message', async () => {
  const { loadConfig } = await import('../../src/config.ts');
  assert.throws(() => loadConfig({ SMTP_URL: 'smtp://localhost:25' }), /MAIL_FROM/);
  assert.throws(() => loadConfig({ MAIL_FROM: 'a@b.example' }), /SMTP_URL/);
  assert.throws(() => loadConfig({ SMTP_URL: 'http://x', MAIL_FROM: 'a@b.example' }), /smtp:\/\//);
  assert.equal(loadConfig({}).mail, null);
});

test('the daily run queues the reminders the business set (PUT /api/settings), and the mail job delivers them', async (t) => {
  const inbox = await smtp(t);
  const clock = settableClock('2026-01-10');
  const h = await build(t, { env: mailEnv(inbox.url), clock });
  const a = await creditFor(h, 'ana@cliente.example', '2026-01-10');
  const due = a.installments[0].due_date as string;
  const { runAccrual } = await import('../../src/services/accrual.ts');
  const run = async (day: string) => {
    clock.set(day);
    await runAccrual(h.db, { businessId: h.tenant.businessId, actor: 'cli', clock, mailConfigured: true });
    await deliverDueNotifications(
      {
        db: h.db,
        mailer: smtpMailer({ smtpUrl: inbox.url, from: 'x@demo.example', timeoutMs: 500, maxAttempts: 3 }),
        maxAttempts: 3,
      },
      { now: clock(), businessId: h.tenant.businessId },
    );
  };
  // reminders off (the default): nothing
  await run(addDaysIso(due, -2));
  assert.equal(inbox.messages.length, 0);
  const settings = json(await h.get('/api/settings'));
  assert.equal(settings.reminders.enabled, false);
  const put = await h.put('/api/settings', {
    ...settings,
    reminders: { enabled: true, before_due_days: [2], overdue_days: [1] },
  });
  assert.equal(put.statusCode, 200, put.body);
  await run(addDaysIso(due, -2));
  await run(addDaysIso(due, -2));
  await run(addDaysIso(due, 1));
  assert.equal(inbox.messages.length, 2);
  assert.match(textOf(inbox.messages[1]!.raw), /1 día de atraso/);
});

test('two mail workers (two app instances on one database, each running the mail job) deliver each queued e-mail exactly once', async (t) => {
  // the embedded database is one process per data directory: a second instance cannot open it
  // (the data directory lock), so two workers only meet on PostgreSQL
  if (testDbKind() !== 'postgres') return t.skip('two processes on one database: PostgreSQL only');
  const inbox = await smtp(t);
  // a day long past: the workers claim what is due by their clock, so no other test's e-mails
  const day = '2020-03-02';
  const clock = settableClock(day);
  const h = await build(t, { env: mailEnv(inbox.url), clock });
  const tag = Math.random().toString(36).slice(2, 8);
  const credits = [];
  for (let k = 0; k < 30; k++) credits.push(await creditFor(h, `c${k}.${tag}@cliente.example`, '2020-02-01'));
  const due = credits[0]!.installments[0].due_date as string;
  const { name, timezone } = await business(h);
  const today = addDaysIso(due, -3);
  clock.set(today);
  const queued = await queueReminders(
    h.db,
    { businessId: h.tenant.businessId, businessName: name, today, timezone, now: clock() },
    { before_due_days: [3], overdue_days: [] },
    true,
  );
  assert.equal(queued, 30);

  // the second instance: its own connections to the same database, its own mail job
  const other = await openTestDb();
  t.after(() => other.close());
  const stops = [h.db, other].map((db) => startMailDelivery({ db, config: h.config, log: h.app.log, clock }));
  const pending = () =>
    h.db.kysely
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('business_id', '=', h.tenant.businessId)
      .where('status', '=', 'queued')
      .executeTakeFirstOrThrow();
  for (let k = 0; k < 600 && Number((await pending()).n) > 0; k++) await new Promise((ok) => setTimeout(ok, 50));
  await Promise.all(stops.map((stop) => stop()));

  const mine = inbox.messages.filter((m) => m.to[0]!.endsWith(`.${tag}@cliente.example`)).map((m) => m.to[0]);
  assert.equal(mine.length, 30, 'every e-mail delivered');
  assert.equal(new Set(mine).size, 30, 'none twice');
  const list = await notifications(h, '?limit=100');
  assert.deepEqual(
    list.items.map((n) => [n.status, n.attempts]),
    Array.from({ length: 30 }, () => ['sent', 1]),
  );
});
