// The embedded ceiling for the client read: a bare Fastify route on PGlite serving the app's own
// statement (src/db/repositories/documents.ts) for the business of the data directory, with no
// key check, plugins or logging. Run as a child process by bench/embedded.ts:
//   node --import tsx bench/lib/bareEmbedded.ts <DATA_DIR>   (prints "listening on <url>")
import Fastify from 'fastify';
import { PGlite } from '@electric-sql/pglite';
import { DOCUMENT_STATEMENTS } from '../../src/db/repositories/documents.ts';
import { todayIn } from '../../src/domain/index.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: bareEmbedded.ts <DATA_DIR>');
const db = await PGlite.create({
  dataDir: `${dir}/pgdata`,
  parsers: { 1082: (v: string) => v, 1700: (v: string) => v },
});
const { id, timezone } = (
  await db.query<{ id: string; timezone: string }>('SELECT id, timezone FROM businesses LIMIT 1')
).rows[0]!;
const app = Fastify({ logger: false });
app.get<{ Params: { id: string } }>('/api/clients/:id', async (req, reply) => {
  const r = await db.query<{ body: string }>(DOCUMENT_STATEMENTS.client, [
    id,
    req.params.id,
    todayIn(timezone),
    timezone,
  ]);
  if (!r.rows[0]) return reply.code(404).send({ error: 'client not found' });
  return reply.type('application/json; charset=utf-8').send(r.rows[0].body);
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${url}\n`);
process.once('SIGTERM', () => void app.close().then(() => db.close()));
