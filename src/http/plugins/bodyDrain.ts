// An answer given before the request's body has all arrived (a 413, a 401 before the body is
// read, a refused upload) must reach a client that is still writing: closing the connection with
// unread bytes resets it, and the client may lose the answer. So the rest of the body is read and
// discarded, up to DRAIN_LIMIT bytes (and within REQUEST_TIMEOUT), and the connection stays
// usable; a client that sends more is cut off.
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import type { App } from '../types.ts';

export const DRAIN_LIMIT = 16 * 1024 * 1024;

// connections whose request was answered before its body ended: a timeout that comes meanwhile
// closes them without a second answer (clientErrorHandler)
const answered = new WeakSet<Socket>();
export const wasAnswered = (socket: Socket) => answered.has(socket);

export default fp(
  async (app: App) => {
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.raw.complete || answered.has(req.raw.socket)) return payload;
      // Fastify closes the connection after a body parser's error, the 413 included: read on instead
      if (reply.statusCode === 413) reply.removeHeader('connection');
      // read from here on (node would discard the rest itself, but with no bound)
      const socket = req.raw.socket;
      answered.add(socket);
      let discarded = 0;
      req.raw.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > DRAIN_LIMIT) socket.destroy();
      });
      req.raw.once('end', () => answered.delete(socket));
      req.raw.resume();
      return payload;
    });
  },
  { name: 'body-drain' },
);
