import type { FastifyReply, FastifyRequest, FastifySchema, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { BODY_ERRORS, COMMON_ERRORS, MUTATION_ERRORS, requestRateExceeded, type ErrorSpec } from '../core/errors.js';
import type { Scope, UnitOfWork } from '../core/unit-of-work.js';
import type { Clock } from '../lib/clock.js';
import type { Permission } from '../core/auth.js';
import { errorResponses } from './error-responses.js';
import { requestScope, type ChangeRoute, type ChangeRunner } from './idempotency.js';
import { SignedRequestChallenge, WalletSignatureHeaders } from './schema-kit.js';
import { runEventStream, wantsEventStream, type EventSink } from './event-stream.js';
import type { ApiApp } from './types.js';

/** A request as a route handler sees it: params, query, body and headers typed from the route's schema. */
export type ApiRequest<S extends FastifySchema> = FastifyRequest<RouteGenericInterface, RawServerDefault, RawRequestDefaultExpression, S, TypeBoxTypeProvider>;

export interface RouteSpec<S extends FastifySchema> {
  /** Tags, summary, params, querystring, body, headers and the success response(s); errors are added from `errors`. */
  schema: S & { response: Record<number, TSchema> };
  /** The errors this route can answer beyond those every route can (bad input, credentials, permission, idempotency). */
  errors?: readonly ErrorSpec[];
  /** Permission the API token needs; VIEW for reads and TRANSACT for changes by default. */
  permission?: Permission;
  /** The status of success for a change: 200 by default, 204 for DELETE. */
  status?: number;
  /** The change may need the end user's wallet signature: answers 202 with a payload to sign, then takes the signed retry. */
  signed?: boolean;
  /**
   * Called by an agent with its own bearer token (`/agents/me/*`), not with API credentials: the
   * scope's actor is the agent, bound to its customer. Platform credentials are refused here.
   */
  agent?: boolean;
  /**
   * The route also takes a multipart/form-data body (a file upload), which its handler reads as a
   * stream (`request.parts()`); every other route refuses multipart with 415.
   */
  multipart?: boolean;
  /**
   * For a change that moves money: the account it locks, read from the request (a path parameter,
   * a body field), so that with group commit on the moves of one account share batches
   * (db/group-commit.ts, lanes). Only the speed depends on it, never the outcome. A request without
   * one runs in a transaction of its own, as must one that waits on another server (a batch's unit
   * holds back every unit after it). A promise when the account must be read first (a quote's
   * execution: modules/quotes/execution-lanes.ts); the read goes before the unit of work.
   */
  lane?(this: void, request: ApiRequest<S>): string | undefined | Promise<string | undefined>;
  /**
   * With a lane: ids of the other rows the change reads (an external account it pays), which its
   * group-commit batch may read for all its units in one round trip (db/group-commit.ts, read-aheads).
   * Only the speed depends on it.
   */
  readsAhead?(this: void, request: ApiRequest<S>): readonly (string | undefined)[];
}

export type ReadHandler<S extends FastifySchema> = (scope: Scope, request: ApiRequest<S>) => unknown;
export type ChangeHandler<S extends FastifySchema> = (uow: UnitOfWork, request: ApiRequest<S>) => Promise<unknown>;
export type OutsideHandler<S extends FastifySchema> = (scope: Scope, request: ApiRequest<S>) => Promise<unknown>;
/**
 * Opens a server-sent event stream: first checks what it was asked (throwing answers an error as
 * any route does), then returns the writer, which runs until `sink.signal` aborts (the client left
 * or the server closes).
 */
export type StreamHandler<S extends FastifySchema> = (scope: Scope, request: ApiRequest<S>) => Promise<(sink: EventSink) => Promise<void>>;

/**
 * How a module declares its routes. Reads get the caller's scope; changes get a unit of work and
 * run under the one idempotency layer, declared by nothing more than being a POST, PATCH or DELETE.
 * Every route's OpenAPI entry lists the error codes it can answer.
 */
export interface Routes {
  get<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ReadHandler<S>): void;
  /**
   * A GET that answers JSON as `get` does, or, asked with `Accept: text/event-stream`, a server-sent
   * event stream (same credentials, permission and query validation). Say so in the route's description.
   */
  getOrStream<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ReadHandler<S>, stream: StreamHandler<S>): void;
  post<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ChangeHandler<S>): void;
  patch<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ChangeHandler<S>): void;
  delete<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ChangeHandler<S>): void;
  /** A full replacement of a resource (a document's file); like a PATCH, under the idempotency layer. */
  put<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ChangeHandler<S>): void;
  /** A POST whose work calls out over the network (so it holds no transaction open); still idempotent. */
  postOutsideTransaction<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: OutsideHandler<S>): void;
  /**
   * A POST that takes no credentials because what it carries is the proof (a device code): it
   * opens its own transaction for the platform it finds, and has no Idempotency-Key (it works once).
   */
  postPublic<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: (request: ApiRequest<S>) => Promise<unknown>): void;
}

/** What a route's config carries, read back by the route table, the authenticator and the tests. */
export interface RouteConfig {
  permission?: Permission;
  /** Every error the route can answer: the common ones and its own. */
  errors?: readonly ErrorSpec[];
  /** Set on state-changing routes: they run under the idempotency layer. */
  change?: { status: number; transactional: boolean };
  /** Agent routes: bearer token of an agent instead of API credentials. */
  agent?: boolean;
  /** Takes a multipart/form-data body (see RouteSpec.multipart). */
  multipart?: boolean;
}

function allErrors(method: string, spec: RouteSpec<FastifySchema>): ErrorSpec[] {
  const changes = method !== 'GET';
  // Any POST, PUT, PATCH or DELETE can be sent a body, declared or not: one too large, or of a type
  // the route does not take (multipart to a route without uploads), is refused with 413 or 415.
  return [...COMMON_ERRORS, ...(changes ? MUTATION_ERRORS : []), ...(changes || spec.schema.body ? BODY_ERRORS : []), ...(spec.errors ?? [])];
}

function fullSchema(spec: RouteSpec<FastifySchema>, errors: readonly ErrorSpec[]): FastifySchema {
  return {
    ...spec.schema,
    ...(spec.signed ? { headers: spec.schema.headers ?? WalletSignatureHeaders } : {}),
    response: { ...spec.schema.response, ...(spec.signed ? { 202: SignedRequestChallenge } : {}), ...errorResponses(errors) },
  };
}

export function createRoutes(app: ApiApp, { clock, changes }: { clock: Clock; changes: ChangeRunner }): Routes {
  // Open event streams end when the server starts closing, so they do not hold the drain open.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  function read<S extends FastifySchema>(url: string, spec: RouteSpec<S>, handler: ReadHandler<S>, stream?: StreamHandler<S>): void {
    const errors = allErrors('GET', spec);
    const config: RouteConfig = { ...(spec.permission ? { permission: spec.permission } : {}), ...(spec.agent ? { agent: true } : {}), errors };
    app.route({
      method: 'GET',
      url,
      schema: fullSchema(spec, errors),
      config,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const scope = await requestScope(request, clock);
        if (stream === undefined || !wantsEventStream(request)) return handler(scope, request as ApiRequest<S>);
        const write = await stream(scope, request as ApiRequest<S>);
        await runEventStream(request, reply, closing.signal, write);
        return reply;
      },
    });
  }

  function change<S extends FastifySchema>(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, spec: RouteSpec<S>, handler: ChangeHandler<S> | OutsideHandler<S>, transactional: boolean): void {
    const errors = allErrors(method, spec);
    const status = spec.status ?? (method === 'DELETE' ? 204 : 200);
    const config: RouteConfig = {
      ...(spec.permission ? { permission: spec.permission } : {}),
      ...(spec.agent ? { agent: true } : {}),
      ...(spec.multipart ? { multipart: true } : {}),
      errors,
      change: { status, transactional },
    };
    app.route({
      method,
      url,
      schema: fullSchema(spec, errors),
      config,
      // A body may be left out (no body, no Content-Type, as clients send an empty POST): the route
      // validates {} instead, so an optional body passes and a required field is named as missing.
      ...(spec.schema.body
        ? {
            preValidation: async (request: FastifyRequest) => {
              request.body ??= {};
            },
          }
        : {}),
      handler: (request: FastifyRequest, reply: FastifyReply) =>
        changes.run(request, reply, { status, transactional, lane: spec.lane as ChangeRoute['lane'], readsAhead: spec.readsAhead as ChangeRoute['readsAhead'] }, (context: UnitOfWork & Scope) => (handler as ChangeHandler<S>)(context, request as ApiRequest<S>)),
    });
  }

  return {
    get: (url, spec, handler) => read(url, spec, handler),
    getOrStream: read,
    post: (url, spec, handler) => change('POST', url, spec, handler, true),
    patch: (url, spec, handler) => change('PATCH', url, spec, handler, true),
    delete: (url, spec, handler) => change('DELETE', url, spec, handler, true),
    put: (url, spec, handler) => change('PUT', url, spec, handler, true),
    postOutsideTransaction: (url, spec, handler) => change('POST', url, spec, handler, false),
    postPublic: (url, spec, handler) => {
      // No credential, so neither its checks nor its request rate apply.
      const errors = [...allErrors('GET', spec).filter((e) => e.status !== 401 && e.status !== 403 && e !== requestRateExceeded), ...BODY_ERRORS.filter(() => Boolean(spec.schema.body))];
      app.route({
        method: 'POST',
        url,
        schema: { ...fullSchema(spec, errors), security: [] },
        config: { public: true, errors },
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const result = await handler(request as ApiRequest<typeof spec.schema>);
          return reply.code(spec.status ?? 200).send(result);
        },
      });
    },
  };
}
