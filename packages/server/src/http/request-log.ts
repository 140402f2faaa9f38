import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** The spec code a request was refused with, for its log line (set by the error handlers). */
const refusals = new WeakMap<FastifyRequest, string>();

/** The spec code a request was refused with, if it was. */
export function refusalOf(request: FastifyRequest): string | undefined {
  return refusals.get(request);
}

/** Remembers why a request was refused, so its one log line says so. */
export function noteRefusal(request: FastifyRequest, code: string): void {
  refusals.set(request, code);
}

/**
 * One log line per request at the default level (info), written when it completes: the request
 * (through the `req` serializer, so query values and hosted-link tokens stay redacted), its status,
 * how long it took and, for a refusal, the spec code. Fastify's own "incoming request" line is kept
 * at debug, for following a request that never completes.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const code = refusals.get(request);
    const line = { req: request, res: reply, responseTime: reply.elapsedTime, ...(code !== undefined ? { code } : {}) };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
