import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, internalError, invalidRequestFormat, type ErrorBody } from '../core/errors.js';
import { noteRefusal } from './request-log.js';

/** The longest path parameter the router accepts (ids are 50 characters at most). */
export const MAX_PARAM_LENGTH = 200;

/**
 * What the router refuses before any route runs: a path that is not valid percent-encoding, or a
 * path parameter over the length limit. Answered in the error shape, without echoing the path.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let refusal: DomainError;
  if (error.code === 'FST_ERR_BAD_URL') refusal = invalidRequestFormat('The request path is not valid percent-encoding');
  else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') refusal = new DomainError(414, 'URI_TOO_LONG', `A path parameter is longer than the ${MAX_PARAM_LENGTH} characters any id can be`);
  else refusal = internalError(request.id);
  noteRefusal(request, refusal.code);
  // Set here: a refusal made before routing does not always pass through the app's onSend hook.
  reply.header('x-request-id', request.id);
  void reply.code(refusal.status).type('application/json').send(refusal.toBody());
}

/**
 * What Node's HTTP parser refuses before Fastify sees a request (headers too large, a method or
 * request line it cannot parse, a client too slow): answered in the error shape on the raw socket,
 * which is then closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let body: ErrorBody;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') body = { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive' };
  else if (error.code === 'HPE_HEADER_OVERFLOW') body = { status: 431, code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than this service accepts' };
  else body = invalidRequestFormat('The request could not be read as HTTP/1.1').toBody();
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
  }
  socket.destroy();
}
