// Prometheus metrics (prom-client), served on their own listener (METRICS_PORT on HOST) so the
// API port never exposes them. One registry per server instance, not prom-client's global one:
// tests run several servers in one process.
//
// Series (docs/deployment.md#observability):
// - lending_http_request_duration_seconds{route,method,status}: histogram; route is the pattern
//   (/api/clients/:id), "(unmatched)" when no route matched, so ids never become labels
// - lending_db_pool_connections{state=total|idle|waiting}: the PostgreSQL pool; embedded, its one
//   session (total 1, idle 0 while a query or transaction holds it) and the queries queued for it
// - lending_job_duration_seconds{job,outcome}, lending_job_entries_total{job},
//   lending_job_failures_total{job}, lending_job_last_success_timestamp_seconds{job}
// - lending_webhook_attempts_total{outcome=delivered|failed_attempt|disabled}: delivery attempts by
//   outcome (disabled: the last attempt of 3 days failed, the delivery failed and its endpoint was
//   disabled); lending_webhook_attempt_duration_seconds{outcome=delivered|failed}: histogram of
//   each attempt's HTTP call; lending_webhook_pending_deliveries: deliveries not yet delivered nor
//   failed, all businesses (set by the delivery job every few seconds)
// - lending_db_reads_total{to=replica|primary,reason=ok|lag|own_write|unavailable}: with a replica
//   (DATABASE_READ_URL), where the reads that may come from it went: to=replica reason=ok, or to the
//   primary because the replica lagged more than READ_MAX_LAG_MS (lag), had not yet replayed the
//   caller's last write (own_write), or did not answer (unavailable);
//   lending_db_replica_lag_seconds: its lag at the last check (docs/deployment.md#read-replicas)
// - prom-client's defaults: process memory and CPU, heap, GC, event loop lag (nodejs_eventloop_lag_*)
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface ReadStats {
  reads: Record<'replica' | 'lag' | 'own_write' | 'unavailable', number>;
  lagMs: number | null;
}

export interface JobRun {
  ms: number;
  ok: boolean;
  /** what the run wrote or removed (ledger entries, files), when it says */
  entries?: number;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly http: Histogram<'route' | 'method' | 'status'>;
  private readonly jobDuration: Histogram<'job' | 'outcome'>;
  private readonly jobEntries: Counter<'job'>;
  private readonly jobFailures: Counter<'job'>;
  private readonly jobLastSuccess: Gauge<'job'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookDuration: Histogram<'outcome'>;
  private readonly webhookPending: Gauge;

  constructor(opts: { pool?: () => PoolStats; reads?: () => ReadStats | null } = {}) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.http = new Histogram({
      name: 'lending_http_request_duration_seconds',
      help: 'HTTP requests by route pattern, method and status: time from the request to the end of its response',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    const pool = opts.pool;
    new Gauge({
      name: 'lending_db_pool_connections',
      help: 'database connections by state (embedded: its one session); waiting counts queries queued for one',
      labelNames: ['state'],
      registers,
      collect() {
        if (!pool) return;
        const s = pool();
        this.set({ state: 'total' }, s.total);
        this.set({ state: 'idle' }, s.idle);
        this.set({ state: 'waiting' }, s.waiting);
      },
    });
    const reads = opts.reads;
    new Counter({
      name: 'lending_db_reads_total',
      help: 'with a replica: reads that may come from it, by where they went (replica, primary) and why (ok; lag: beyond READ_MAX_LAG_MS; own_write: the caller’s last write not yet replayed; unavailable)',
      labelNames: ['to', 'reason'],
      registers,
      collect() {
        const s = reads?.();
        if (!s) return;
        this.reset();
        this.inc({ to: 'replica', reason: 'ok' }, s.reads.replica);
        for (const reason of ['lag', 'own_write', 'unavailable'] as const)
          this.inc({ to: 'primary', reason }, s.reads[reason]);
      },
    });
    new Gauge({
      name: 'lending_db_replica_lag_seconds',
      help: 'with a replica: its lag behind the primary at the last check (0: it had replayed all the primary had written)',
      registers,
      collect() {
        const s = reads?.();
        if (s?.lagMs !== null && s?.lagMs !== undefined) this.set(s.lagMs / 1000);
      },
    });
    this.jobDuration = new Histogram({
      name: 'lending_job_duration_seconds',
      help: 'scheduled job runs by job and outcome (ok, failed)',
      labelNames: ['job', 'outcome'],
      buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers,
    });
    this.jobEntries = new Counter({
      name: 'lending_job_entries_total',
      help: 'what scheduled job runs wrote or removed (accrual: ledger entries; file sweep: files)',
      labelNames: ['job'],
      registers,
    });
    this.jobFailures = new Counter({
      name: 'lending_job_failures_total',
      help: 'scheduled job runs that failed',
      labelNames: ['job'],
      registers,
    });
    this.jobLastSuccess = new Gauge({
      name: 'lending_job_last_success_timestamp_seconds',
      help: 'when each scheduled job last finished without failure (Unix time)',
      labelNames: ['job'],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'lending_webhook_attempts_total',
      help: 'webhook delivery attempts by outcome: delivered, failed_attempt (retried later), disabled (failed for 3 days: the delivery failed and its endpoint was disabled)',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookDuration = new Histogram({
      name: 'lending_webhook_attempt_duration_seconds',
      help: "webhook delivery attempts' HTTP calls by outcome (delivered, failed), from resolving the host to the answer",
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.webhookPending = new Gauge({
      name: 'lending_webhook_pending_deliveries',
      help: 'webhook deliveries waiting to be delivered (due, backing off or in flight), all businesses',
      registers,
    });
  }

  /** one webhook delivery attempt: its outcome and how long its HTTP call took */
  webhookAttempt(outcome: 'delivered' | 'failed_attempt' | 'disabled', ms: number) {
    this.webhookAttempts.inc({ outcome });
    this.webhookDuration.observe({ outcome: outcome === 'delivered' ? 'delivered' : 'failed' }, ms / 1000);
  }

  webhookBacklog(pending: number) {
    this.webhookPending.set(pending);
  }

  request(route: string | undefined, method: string, status: number, ms: number) {
    this.http.observe({ route: route ?? '(unmatched)', method, status: String(status) }, ms / 1000);
  }

  job(job: string, run: JobRun) {
    this.jobDuration.observe({ job, outcome: run.ok ? 'ok' : 'failed' }, run.ms / 1000);
    if (run.entries) this.jobEntries.inc({ job }, run.entries);
    if (run.ok) this.jobLastSuccess.set({ job }, Date.now() / 1000);
    else this.jobFailures.inc({ job });
  }
}

/** Serves GET /metrics (the Prometheus text format) on its own port; anything else is 404. */
export function startMetricsServer(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
