// Shared steps of the webhook tests: a receiver on a loopback port that the test scripts (answer
// 2xx, 500, hang), events of a business (as the services announce them), and the delivery job's
// two steps run at a chosen instant for one business.
import type { TestContext } from 'node:test';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withActor } from '../../src/db/connection.ts';
import { emit, type EventType } from '../../src/services/events.ts';
import { deliverDue, dispatch, type DeliveryPass, type WebhookDeps } from '../../src/services/webhooks.ts';
import type { Harness } from './app.ts';
import { json } from './app.ts';

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** the body exactly as received */
  body: string;
  event: { id: string; sequence: number; type: string; created_at: string; data: { object: { id: string } } };
}

/** What the receiver does with a request: a status to answer, or 'hang' (never answers). */
export type Behaviour = (r: Received) => number | 'hang';

export interface Receiver {
  url: string;
  /** every request, in the order they arrived */
  received: Received[];
  behave(b: Behaviour): void;
}

export async function receiver(t: TestContext, behaviour: Behaviour = () => 200): Promise<Receiver> {
  let behave = behaviour;
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let event: Received['event'];
      try {
        event = JSON.parse(body);
      } catch {
        event = null as never;
      }
      const r: Received = { method: req.method!, url: req.url!, headers: req.headers, body, event };
      received.push(r);
      const status = behave(r);
      if (status === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : `receiver says ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, behave: (b) => (behave = b) };
}

/**
 * Announces events for the business, one transaction each, as the services do (emit in a
 * withActor): `credit` keeps a credit's events in order, as a payment's would be.
 */
export async function announce(
  h: Harness,
  events: { type: EventType; id?: string; credit?: string; object?: Record<string, unknown> }[],
  businessId = h.tenant.businessId,
): Promise<void> {
  for (const e of events) {
    const id = e.id ?? crypto.randomUUID();
    await withActor(h.db.kysely, { actor: 'test' }, async (trx) =>
      emit(trx, businessId, e.type, { id, ...e.object }, e.credit ? { creditId: e.credit } : {}),
    );
  }
}

/** The job's deps over the test's database and configuration. */
export const depsOf = (h: Harness, extra: Partial<WebhookDeps> = {}): WebhookDeps => ({
  db: h.db,
  config: h.config,
  random: () => 0.5,
  ...extra,
});

/** What the job does in one run, at `now`, for the test's business only. */
export async function runAt(
  h: Harness,
  now: Date,
  extra: Partial<WebhookDeps> = {},
  businessId = h.tenant.businessId,
): Promise<DeliveryPass> {
  const deps = depsOf(h, extra);
  await dispatch(deps, { now, businessId });
  return deliverDue(deps, { now, businessId });
}

export async function createEndpoint(h: Harness, body: Record<string, unknown>) {
  const res = await h.post('/api/webhook-endpoints', body);
  if (res.statusCode !== 201) throw new Error(`endpoint not created: ${res.statusCode} ${res.body}`);
  return json<{ endpoint: { id: string } & Record<string, unknown>; secret: string }>(res);
}

export interface DeliveryRecord {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  sequence: number;
  status: 'pending' | 'delivered' | 'failed';
  attempt: number;
  status_code: number | null;
  error: string | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export async function deliveries(h: Harness, endpointId: string, query = ''): Promise<DeliveryRecord[]> {
  const res = await h.get(`/api/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`);
  if (res.statusCode !== 200) throw new Error(`deliveries: ${res.statusCode} ${res.body}`);
  return json(res).items;
}

export const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
