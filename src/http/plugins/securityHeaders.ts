// Headers every response carries: browsers must not guess a content type (an uploaded file served
// back, an Error body).
import fp from 'fastify-plugin';
import type { App } from '../types.ts';

export default fp(
  async (app: App) => {
    app.addHook('onSend', async (_req, reply, payload) => {
      reply.header('X-Content-Type-Options', 'nosniff');
      return payload;
    });
  },
  { name: 'security-headers' },
);
