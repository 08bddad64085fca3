// kill -9 under write load: the real server, several clients writing payments and credits with an
// Idempotency-Key each, the server killed at random moments and started again. A request whose
// answer did not arrive is sent again, same key and same body, until it gets one. At the end:
// every acknowledged write is there (by the ids in its answer), none is there twice, the ledger
// adds up, every acknowledged write has its audit rows, and a replay answers what was acknowledged.
import { isDeepStrictEqual } from 'node:util';
import { Rng } from './rng.ts';
import { bearer, jsonHeaders, send, type Request } from './http.ts';
import { today } from './generate.ts';
import { ServerProcess, createTarget, createTenant, type DbKind, type StartFigures } from './server.ts';

export interface ChaosOptions {
  db: DbKind;
  postgresUrl: string;
  seed: number;
  kills: number;
  /** concurrent writers */
  workers?: number;
  clients?: number;
  /** load between two kills: a random time in this range (ms), and at least `minWrites` writes answered */
  loadMs?: [number, number];
  minWrites?: number;
  log?: (line: string) => void;
}

export interface ChaosReport {
  db: DbKind;
  seed: number;
  kills: number;
  firstStart: StartFigures;
  /** a stop with SIGTERM and a start: what a restart costs when nothing went wrong */
  cleanRestart: StartFigures;
  /** each start after a kill -9 */
  restarts: StartFigures[];
  writes: number;
  acknowledged: { payments: number; credits: number };
  refused: Record<string, number>;
  /** writes whose first answer did not arrive (sent again) */
  interrupted: number;
  /** of those, how many the server answered as a replay (it had committed before the kill) */
  replayedOnRetry: number;
  ledgerEntriesChecked: number;
  auditRowsChecked: number;
  failures: string[];
}

interface Entry {
  id: string;
  installment_id: string;
  type: 'installment' | 'punitory' | 'payment';
  amount: number;
  credit_id: string;
}
interface CreditRead {
  credit: { id: string; client_id: string; status: string; total: number };
  installments: { id: string; number: number; amount: number; status: string }[];
  ledgerEntries: Entry[];
}

interface Write {
  kind: 'payment' | 'credit';
  req: Request;
  /** the credit paid, or the client the credit is for */
  target: string;
  amount: number;
  status?: number;
  body?: unknown;
  interrupted: boolean;
  replayed: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cents = (x: number) => Math.round(x * 100);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? (() => {});
  const rng = new Rng(o.seed);
  const target = await createTarget(o.db, o.postgresUrl);
  const server = new ServerProcess(target.env);
  const failures: string[] = [];
  try {
    const firstStart = await server.start();
    log(`[${o.db}] server ready in ${firstStart.ms} ms`);
    const me = await createTenant(target.env, 'Chaos');
    await server.stop();
    const cleanRestart = await server.start();
    log(`[${o.db}] clean restart (SIGTERM, start): ${cleanRestart.ms} ms`);

    // ---- seed: a plan with punitory, clients, a credit each that is already late ----
    const post = async (path: string, body: unknown) => {
      const r = await send(
        server.url,
        { method: 'POST', path, headers: jsonHeaders(me.full), body: JSON.stringify(body) },
        30_000,
      );
      if (r.status < 200 || r.status >= 300)
        throw new Error(`seeding: POST ${path} answered ${r.status || r.error} ${r.text.slice(0, 300)}`);
      return r.json as any;
    };
    const plan = await post('/api/credit-configs', {
      name: 'chaos',
      installments_count: 6,
      cut_type: 'fixed',
      days_until_first_payment: 30,
      interest_rate: 0.2,
      daily_punitory_rate: 0.003,
    });
    const clients: string[] = [];
    const credits: string[] = [];
    const seeded = new Map<string, string>(); // client → its first credit
    for (let i = 0; i < (o.clients ?? 4); i++) {
      const c = await post('/api/clients', {
        dni: `${o.seed}${i}${rng.digits(6)}`,
        first_name: 'Chaos',
        last_name: `C${i}`,
      });
      clients.push(c.id);
      const credit = await post(`/api/clients/${c.id}/credits`, {
        credit_config_id: plan.id,
        amount: 80_000,
        start_date: today(-120),
      });
      credits.push(credit.credit.id);
      seeded.set(c.id, credit.credit.id);
    }

    // ---- the load ----
    const writes: Write[] = [];
    let stopping = false;
    let n = 0;
    let answered = 0;
    const nextWrite = (w: number): Write => {
      const key = `chaos-${o.seed}-${w}-${++n}`;
      if (rng.chance(0.3)) {
        const client = rng.pick(clients);
        const amount = rng.money(50_000, 100_000);
        const body = JSON.stringify({ credit_config_id: plan.id, amount, start_date: today(-rng.int(0, 90)) });
        return {
          kind: 'credit',
          target: client,
          amount,
          interrupted: false,
          replayed: false,
          req: {
            method: 'POST',
            path: `/api/clients/${client}/credits`,
            headers: { ...jsonHeaders(me.full), 'idempotency-key': key },
            body,
          },
        };
      }
      const credit = rng.pick(credits);
      const amount = rng.money(1, 100);
      return {
        kind: 'payment',
        target: credit,
        amount,
        interrupted: false,
        replayed: false,
        req: {
          method: 'POST',
          path: `/api/credits/${credit}/payments`,
          headers: { ...jsonHeaders(me.full), 'idempotency-key': key },
          body: JSON.stringify({ amount }),
        },
      };
    };
    /** sends until an answer arrives; a 5xx is a failure, and the write is sent again */
    const settle = async (w: Write) => {
      for (;;) {
        const r = await send(server.url, w.req, 20_000);
        if (r.status === 0) {
          w.interrupted = true;
          await sleep(100);
          continue;
        }
        if (r.status >= 500) {
          failures.push(`${w.req.method} ${w.req.path} answered ${r.status}: ${r.text.slice(0, 200)}`);
          await sleep(200);
          continue;
        }
        answered++;
        w.status = r.status;
        w.body = r.json;
        w.replayed = r.headers.get('idempotent-replayed') === 'true';
        if (r.status >= 200 && r.status < 300 && w.kind === 'credit') credits.push((r.json as CreditRead).credit.id);
        return;
      }
    };
    const worker = async (id: number) => {
      while (!stopping) {
        const w = nextWrite(id);
        writes.push(w);
        await settle(w);
      }
    };
    const workers = Array.from({ length: o.workers ?? 4 }, (_, i) => worker(i));

    const restarts: StartFigures[] = [];
    const [minLoad, maxLoad] = o.loadMs ?? [300, 3000];
    for (let k = 0; k < o.kills; k++) {
      const before = answered;
      await sleep(rng.int(minLoad, maxLoad));
      while (answered - before < (o.minWrites ?? 5)) await sleep(50);
      await server.kill9();
      const fig = await server.start();
      restarts.push(fig);
      log(
        `[${o.db}] kill ${k + 1}/${o.kills}: back in ${fig.ms} ms (${fig.failedAttempts} failed starts), ${writes.length} writes so far`,
      );
    }
    await sleep(500);
    stopping = true;
    await Promise.all(workers);

    // ---- verify ----
    const get = async (path: string) => {
      const r = await send(server.url, { method: 'GET', path, headers: bearer(me.full) }, 30_000);
      if (r.status !== 200) throw new Error(`GET ${path} answered ${r.status || r.error}`);
      return r.json as any;
    };
    const acked = writes.filter((w) => w.status! >= 200 && w.status! < 300);
    const refused: Record<string, number> = {};
    for (const w of writes.filter((x) => x.status! >= 400)) {
      refused[w.status!] = (refused[w.status!] ?? 0) + 1;
      if (w.status === 409 && /Idempotency-Key/.test(JSON.stringify(w.body)))
        failures.push(`${w.req.path}: a retry with the same key and body was refused as a different request`);
    }
    const ackedCredits = acked.filter((w) => w.kind === 'credit');
    const ackedPayments = acked.filter((w) => w.kind === 'payment');

    // credits: each acknowledged one is there, and each client has exactly the credits acknowledged for it
    for (const client of clients) {
      const listed = ((await get(`/api/clients/${client}/credits`)) as { id: string }[]).map((c) => c.id).sort();
      const expected = [
        seeded.get(client)!,
        ...ackedCredits.filter((w) => w.target === client).map((w) => (w.body as CreditRead).credit.id),
      ].sort();
      const missing = expected.filter((id) => !listed.includes(id));
      const extra = listed.filter((id) => !expected.includes(id));
      if (missing.length) failures.push(`client ${client}: acknowledged credits missing: ${missing.join(', ')}`);
      if (extra.length)
        failures.push(`client ${client}: credits nobody was told about (duplicated writes?): ${extra.join(', ')}`);
    }

    // payments and the ledger, credit by credit
    let ledgerEntriesChecked = 0;
    const auditIds: { id: string; table: string }[] = ackedCredits.map((w) => ({
      id: (w.body as CreditRead).credit.id,
      table: 'credits',
    }));
    for (const creditId of new Set(credits)) {
      const read = (await get(`/api/credits/${creditId}`)) as CreditRead;
      const mine = ackedPayments.filter((w) => w.target === creditId);
      const ackedEntries = mine.flatMap((w) => (w.body as CreditRead).ledgerEntries);
      const inLedger = new Map(read.ledgerEntries.map((e) => [e.id, e]));
      ledgerEntriesChecked += read.ledgerEntries.length;
      for (const e of ackedEntries) {
        if (!inLedger.has(e.id))
          failures.push(`credit ${creditId}: acknowledged ledger entry ${e.id} (${e.type} ${e.amount}) missing`);
        auditIds.push({ id: e.id, table: 'ledger' });
      }
      const ackedIds = new Set(ackedEntries.map((e) => e.id));
      const extraPayments = read.ledgerEntries.filter((e) => e.type === 'payment' && !ackedIds.has(e.id));
      if (extraPayments.length)
        failures.push(
          `credit ${creditId}: ${extraPayments.length} payment entries nobody was told about (duplicated writes?)`,
        );
      const paidAcked = mine.reduce((s, w) => s + cents(w.amount), 0);
      const paidLedger = read.ledgerEntries
        .filter((e) => e.type === 'payment')
        .reduce((s, e) => s + cents(e.amount), 0);
      if (paidAcked !== paidLedger)
        failures.push(
          `credit ${creditId}: payments acknowledged ${paidAcked / 100}, in the ledger ${paidLedger / 100}`,
        );
      failures.push(...ledgerProblems(read));
    }

    // audit rows for every acknowledged write
    let auditRowsChecked = 0;
    for (const { id, table } of auditIds) {
      const page = (await get(`/api/logs?record_id=${id}`)) as { items: { table_name: string; action: string }[] };
      auditRowsChecked += page.items.length;
      if (!page.items.some((a) => a.table_name === table && a.action === 'INSERT'))
        failures.push(`no audit INSERT on ${table} for acknowledged ${id}`);
    }

    // a replay answers what was acknowledged, and writes nothing
    for (const w of [...acked.filter((x) => x.interrupted), ...acked.filter((x) => !x.interrupted)].slice(0, 10)) {
      const r = await send(server.url, w.req, 30_000);
      if (
        r.status !== w.status ||
        r.headers.get('idempotent-replayed') !== 'true' ||
        !isDeepStrictEqual(r.json, w.body)
      ) {
        failures.push(
          `replay of ${w.req.path} (${w.req.headers!['idempotency-key']}) answered ${r.status} replayed=${r.headers.get('idempotent-replayed')}, not the acknowledged ${w.status}`,
        );
      }
    }

    return {
      db: o.db,
      seed: o.seed,
      kills: o.kills,
      firstStart,
      cleanRestart,
      restarts,
      writes: writes.length,
      acknowledged: { payments: ackedPayments.length, credits: ackedCredits.length },
      refused,
      interrupted: writes.filter((w) => w.interrupted).length,
      replayedOnRetry: writes.filter((w) => w.interrupted && w.replayed).length,
      ledgerEntriesChecked,
      auditRowsChecked,
      failures,
    };
  } catch (err) {
    throw new Error(`${(err as Error).message}\nserver output:\n${server.output().slice(-3000)}`);
  } finally {
    await server.stop();
    await target.dispose();
  }
}

/** What a credit read must satisfy (docs/domain.md: the schedule, payments, credit statuses). */
export function ledgerProblems(read: CreditRead): string[] {
  const p: string[] = [];
  const id = read.credit.id;
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  if (sum(read.installments.map((i) => cents(i.amount))) !== cents(read.credit.total))
    p.push(`credit ${id}: installments do not add up to the total ${read.credit.total}`);
  for (const inst of read.installments) {
    const of = (type: Entry['type']) =>
      sum(
        read.ledgerEntries.filter((e) => e.installment_id === inst.id && e.type === type).map((e) => cents(e.amount)),
      );
    const due = of('installment');
    const punitory = of('punitory');
    const paid = of('payment');
    const where = `credit ${id} installment ${inst.number}`;
    if (due !== cents(inst.amount)) p.push(`${where}: installment entries ${due / 100} ≠ amount ${inst.amount}`);
    if (paid > due + punitory)
      p.push(`${where}: paid ${paid / 100} > amount ${due / 100} + posted punitory ${punitory / 100}`);
    const status = paid === 0 ? 'pending' : paid >= due + punitory ? 'paid' : 'partial';
    if (inst.status !== status)
      p.push(
        `${where}: status ${inst.status}, the ledger says ${status} (paid ${paid / 100} of ${(due + punitory) / 100})`,
      );
  }
  const allPaid = read.installments.every((i) => i.status === 'paid');
  if (read.credit.status === 'closed' && !allPaid) p.push(`credit ${id}: closed with unpaid installments`);
  if (read.credit.status === 'active' && allPaid) p.push(`credit ${id}: every installment paid but still active`);
  return p;
}

export function formatChaosReport(r: ChaosReport): string {
  const ms = r.restarts.map((f) => f.ms);
  const attempts = r.restarts.map((f) => f.failedAttempts);
  const s = (x: number) => `${(x / 1000).toFixed(1)} s`;
  const lines = [
    `chaos on ${r.db} (seed ${r.seed}): ${r.kills} kill -9 under load`,
    `  first start ${s(r.firstStart.ms)}; clean restart ${s(r.cleanRestart.ms)}; restart after kill -9: min ${s(Math.min(...ms))}, median ${s(median(ms))}, max ${s(Math.max(...ms))} ` +
      `(failed starts before one held: ${attempts.length ? `${Math.min(...attempts)}-${Math.max(...attempts)}` : '-'})`,
    ...[...new Set(r.restarts.map((f) => f.failedWith).filter(Boolean))].map((w) => `  a failed start said: ${w}`),
    `  ${r.writes} writes: ${r.acknowledged.payments} payments and ${r.acknowledged.credits} credits acknowledged, refused ${JSON.stringify(r.refused)}; ` +
      `${r.interrupted} interrupted and sent again (${r.replayedOnRetry} of them had committed: answered as a replay)`,
    `  checked ${r.ledgerEntriesChecked} ledger entries and ${r.auditRowsChecked} audit rows`,
    r.failures.length ? `  FAILURES (${r.failures.length}):` : '  no failures',
    ...r.failures.slice(0, 50).map((f) => `    ${f}`),
  ];
  return lines.join('\n');
}
