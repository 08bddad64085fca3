// At most config.maxConnections connections at once, and config.maxConnectionsPerIp from one
// address (0: no cap), so a flood of slow clients cannot take every descriptor. A connection over
// a cap is not dropped (its client would see a reset and could not tell why): its first request
// is answered 503 unavailable with Retry-After, and the connection closed. One that sends no
// request is closed soon. Only real connections count (app.inject makes none).
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import type { App } from '../types.ts';

/** How long a connection over a cap may take to send its request. */
const REFUSED_GRACE_MS = 2000;

export default fp(
  async (app: App) => {
    const { maxConnections, maxConnectionsPerIp } = app.config;
    if (maxConnections === 0 && maxConnectionsPerIp === 0) return;
    let total = 0;
    const perIp = new Map<string, number>();
    const refused = new WeakSet<Socket>();

    app.server.on('connection', (socket: Socket) => {
      const ip = socket.remoteAddress ?? '';
      const fromIp = perIp.get(ip) ?? 0;
      if (
        (maxConnections > 0 && total >= maxConnections) ||
        (maxConnectionsPerIp > 0 && fromIp >= maxConnectionsPerIp)
      ) {
        refused.add(socket);
        socket.setTimeout(REFUSED_GRACE_MS);
        return;
      }
      total++;
      perIp.set(ip, fromIp + 1);
      socket.once('close', () => {
        total--;
        const left = perIp.get(ip)! - 1;
        if (left > 0) perIp.set(ip, left);
        else perIp.delete(ip);
      });
    });

    app.addHook('onRequest', async (req, reply) => {
      if (!refused.has(req.raw.socket)) return;
      reply.header('connection', 'close');
      throw new AppError(
        'unavailable',
        'the server has too many connections open (from your address, or in all); retry shortly',
        undefined,
        { 'retry-after': '1' },
      );
    });
  },
  { name: 'connection-limit' },
);
