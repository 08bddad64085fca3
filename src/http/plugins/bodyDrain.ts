// An answer given before the request's body has all arrived (a 413, a 401 before the body is
// read, a refused upload) must reach a client that is still writing: closing the connection with
// unread bytes resets it, and the client may lose the answer. So the rest of the body is read and
// discarded, up to DRAIN_LIMIT bytes (and within REQUEST_TIMEOUT), and the connection stays
// usable; a client that sends more is cut off.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import fp from 'fastify-plugin';
import type { App } from '../types.ts';

export const DRAIN_LIMIT = 16 * 1024 * 1024;

// the request of each connection that was answered before its body ended: a timeout that comes
// while its body is still arriving closes the connection without a second answer
// (clientErrorHandler). Once its body has ended (node marks it complete as the parser reads the
// last byte, before 'end' is emitted), what the parser refuses is the connection's next request,
// which gets its own answer.
const answered = new WeakMap<Socket, IncomingMessage>();
export const wasAnswered = (socket: Socket) => answered.get(socket)?.complete === false;

export default fp(
  async (app: App) => {
    app.addHook('onSend', async (req, reply, payload) => {
      if (req.raw.complete || wasAnswered(req.raw.socket)) return payload;
      // Fastify closes the connection after a body parser's error, the 413 included: read on instead
      if (reply.statusCode === 413) reply.removeHeader('connection');
      // read from here on (node would discard the rest itself, but with no bound)
      const socket = req.raw.socket;
      answered.set(socket, req.raw);
      let discarded = 0;
      req.raw.on('data', (chunk: Buffer) => {
        discarded += chunk.length;
        if (discarded > DRAIN_LIMIT) socket.destroy();
      });
      req.raw.resume();
      return payload;
    });
  },
  { name: 'body-drain' },
);
