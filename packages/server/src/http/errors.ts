import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject } from 'ajv';
import { AppError, invalidInput } from '../lib/errors.js';
import { toFieldErrors } from './validation.js';
import type { RouteTable } from './route-table.js';

/** Maps a Fastify/framework failure to the spec's error; unknown failures become INTERNAL_ERROR. */
function toAppError(error: FastifyError & { validation?: ErrorObject[]; validationContext?: string }, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    return invalidInput(toFieldErrors(error.validation));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, 'INVALID_REQUEST_FORMAT', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the ${request.routeOptions.bodyLimit} bytes this service accepts`, {
        limitBytes: request.routeOptions.bodyLimit,
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send request bodies as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError(400, 'INVALID_REQUEST_FORMAT', 'Content-Length does not match the body');
    default:
      break;
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode, 'INVALID_REQUEST_FORMAT', 'The request could not be read');
  }
  return new AppError(500, 'INTERNAL_ERROR', 'An internal error occurred; quote the request id when reporting it', {
    requestId: request.id,
  });
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) reply.headers(error.headers);
  return reply.code(error.status).type('application/json').send(error.toBody());
}

/** Every error leaves in one shape: {status, code, message, details?}. Nothing internal leaks. */
export function registerErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, request);
    if (appError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ code: appError.code, status: appError.status }, 'request refused');
    }
    return sendError(reply, appError);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.methodsFor(path);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(
        reply,
        new AppError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`),
      );
    }
    return sendError(reply, new AppError(404, 'NOT_FOUND', `No route ${request.method} ${path}`));
  });
}
