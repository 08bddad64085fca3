// The HTTP ceiling of the hot reads on PostgreSQL: a bare Fastify route per read, serving the app's
// own statement (src/db/repositories/documents.ts, prepared) for the bench book's business through
// a pg pool of the app's size, with no key check, plugins, validation or logging. It answers what
// an HTTP route around that statement costs on this machine, which the pgbench ceiling leaves out.
// Run as a child process by bench/lib/harness.ts:
//   node --import tsx bench/lib/barePostgres.ts <DATABASE_URL> <business id> <time zone>   (prints "listening on <url>")
import Fastify, { type FastifyReply } from 'fastify';
import pg from 'pg';
import { DOCUMENT_STATEMENTS } from '../../src/db/repositories/documents.ts';
import { todayIn } from '../../src/domain/index.ts';

const [url, bid, timezone] = process.argv.slice(2);
if (!url || !bid || !timezone) throw new Error('usage: barePostgres.ts <DATABASE_URL> <business id> <time zone>');
// as the app: 10 connections (src/db/connection.ts), dates and numerics as text
const pool = new pg.Pool({ connectionString: url, max: 10 });
pg.types.setTypeParser(1082, (v) => v);
pg.types.setTypeParser(1700, (v) => v);

async function send(reply: FastifyReply, name: keyof typeof DOCUMENT_STATEMENTS, values: unknown[]) {
  const r = await pool.query<{ body: string }>({ name: `document_${name}`, text: DOCUMENT_STATEMENTS[name], values });
  if (!r.rows[0]) return reply.code(404).send({ error: 'not found' });
  return reply.type('application/json; charset=utf-8').send(r.rows[0].body);
}

const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/api/clients/:id', (req, reply) =>
  send(reply, 'client', [bid, req.params.id, todayIn(timezone), timezone]),
);
app.get<{ Params: { id: string } }>('/api/clients/:id/credits', (req, reply) =>
  send(reply, 'client_credits', [bid, req.params.id]),
);
app.get<{ Params: { id: string } }>('/api/credits/:id/ledger', (req, reply) =>
  send(reply, 'credit_ledger', [bid, req.params.id]),
);
app.get('/api/credit-configs', (_req, reply) => send(reply, 'plans', [bid]));
app.get('/api/branches', (_req, reply) => send(reply, 'branches', [bid]));
const listening = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${listening}\n`);
process.once('SIGTERM', () => void app.close().then(() => pool.end()));
