// Every error response is the Error body of src/http/errors.ts: what a route or hook throws, a
// path no route answers, what the router refuses before any route runs and what node's HTTP
// parser refuses before Fastify sees a request.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../domain/errors.ts';
import { errorBody, toAppError } from '../errors.ts';
import type { App } from '../types.ts';
import { wasAnswered } from './bodyDrain.ts';

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  return reply
    .status(404)
    .send(errorBody(new AppError('not_found', `no route ${req.method} ${req.url.split('?')[0]}`), req.id));
}

/** Fastify's frameworkErrors option: errors the router raises before any route or error handler runs. */
export function frameworkErrors(err: unknown, req: FastifyRequest, reply: FastifyReply) {
  const appErr = toAppError(err);
  void reply
    .status(appErr.status)
    .header('x-request-id', req.id)
    .type('application/json; charset=utf-8')
    .send(errorBody(appErr, req.id));
}

function clientError(err: NodeJS.ErrnoException): AppError {
  if (err.code === 'HPE_HEADER_OVERFLOW') return new AppError('headers_too_large', 'the request headers are too large');
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError('request_timeout', 'the request did not arrive in time: the request is closed');
  return new AppError('validation_failed', 'the request is not valid HTTP');
}

/** How long a connection refused by the parser stays open for the client to finish sending and read the answer. */
const LINGER_MS = 5000;

// connections answered here: node's parser reports its error again for every later chunk of the
// refused request, and those reports must not close the connection
const refused = new WeakSet<Socket>();

/**
 * Fastify's clientErrorHandler option: a request node's HTTP parser refuses (headers too large,
 * unknown method) or that did not arrive within the request or headers timeout. Answered only
 * when no answer has started on the connection; then it is closed once the client has stopped
 * sending, or after LINGER_MS. Closing at once, with the rest of the refused request still
 * arriving, resets the connection, and a client still writing (a 100 KB URL) loses the answer.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
  if (refused.has(socket)) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent || wasAnswered(socket)) {
    socket.destroy();
    return;
  }
  const appErr = clientError(err);
  // the request never parsed: its own X-Request-Id cannot be read, so it gets a new one
  const id = randomUUID();
  const body = JSON.stringify(errorBody(appErr, id));
  refused.add(socket);
  socket.end(
    `HTTP/1.1 ${appErr.status} ${STATUS_CODES[appErr.status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
  );
  // what still arrives is read (and refused again by the parser, ignored above) until the client
  // closes its side, which ends the connection, or the linger runs out
  socket.resume();
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

export default fp(
  async (app: App) => {
    app.setErrorHandler((err, req, reply) => {
      const appErr = toAppError(err);
      if (appErr.status >= 500) req.log.error({ err }, 'request failed');
      // the code only: a message may quote what was sent (a dni already taken, a path)
      else
        req.log.info(
          { code: appErr.code, ...(appErr.logDetail ? { detail: appErr.logDetail } : {}) },
          'request refused',
        );
      if (appErr.headers) reply.headers(appErr.headers);
      return reply.status(appErr.status).type('application/json; charset=utf-8').send(errorBody(appErr, req.id));
    });
    app.setNotFoundHandler(notFoundHandler);
  },
  { name: 'errors' },
);
