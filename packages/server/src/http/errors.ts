import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { DomainError, internalError, invalidInput, invalidRequestFormat, payloadTooLarge, serviceUnavailable, unsupportedMediaType } from '../core/errors.js';
import { isConnectionLoss } from '../lib/db-errors.js';
import { toFieldErrors } from './validation.js';
import type { RouteTable } from './route-table.js';
import { noteRefusal } from './request-log.js';
import { toJson } from '../lib/json.js';

// A connection lost at COMMIT leaves the outcome unknown to us: the same Idempotency-Key tells it.
export const databaseUnavailable = (): DomainError =>
  serviceUnavailable('The database connection was lost; send the request again (with the same Idempotency-Key, a change is made at most once)');

/** Maps a Fastify/framework failure to the spec's error; unknown failures become INTERNAL_ERROR. */
function toDomainError(error: FastifyError & { validation?: ErrorObject[]; validationContext?: string }, request: FastifyRequest): DomainError {
  if (error instanceof DomainError) return error;
  if (error.validation) return invalidInput(toFieldErrors(error.validation));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return invalidRequestFormat('The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(request.routeOptions.bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return invalidRequestFormat('Content-Length does not match the body');
    default:
      break;
  }
  if (isConnectionLoss(error)) return databaseUnavailable();
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return invalidRequestFormat('The request could not be read');
  }
  return internalError(request.id);
}

export function sendError(reply: FastifyReply, error: DomainError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  // Written with toJson: `details` may carry amounts as bigint, which go out as JSON integers.
  return reply.code(error.status).type('application/json').send(toJson(error.toBody()));
}

/** Every error leaves in one shape: {status, code, message, details?}. Nothing internal leaks. */
export function registerErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const domainError = toDomainError(error, request);
    if (domainError.status === 503) {
      // An outage, not a bug: one line with the driver's code, no stack.
      request.log.warn({ code: (error as { code?: unknown }).code, reason: error.message }, 'database unavailable');
      noteRefusal(request, domainError.code);
    } else if (domainError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
      noteRefusal(request, domainError.code);
    } else {
      // Bad input is not an incident: the request's one log line carries the code.
      noteRefusal(request, domainError.code);
    }
    return sendError(reply, domainError);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.methodsFor(path);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(reply, new DomainError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`));
    }
    return sendError(reply, new DomainError(404, 'REFERENCE_NOT_FOUND', `No route ${request.method} ${path}`, { reason: 'ROUTE_NOT_FOUND' }));
  });
}

/**
 * While the app drains (SIGTERM), a request still arriving on an open keep-alive connection is
 * refused with 503 in the error shape and the connection is closed, so the client (or the load
 * balancer) sends it to another instance; requests already running finish.
 */
export function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    noteRefusal(request, 'SERVICE_UNAVAILABLE');
    reply.header('Connection', 'close');
    return sendError(reply, serviceUnavailable('This server is shutting down; send the request again'));
  });
}
