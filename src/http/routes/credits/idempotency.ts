import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../types.ts';

export interface Answer {
  status: number;
  body: unknown;
}

/** Runs a creation; (Idempotency-Key support comes later). */
export async function idempotent(_app: App, _req: FastifyRequest, reply: FastifyReply, run: () => Promise<Answer>) {
  const a = await run();
  return reply.status(a.status).send(a.body);
}
