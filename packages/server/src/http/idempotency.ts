import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Tx } from '../db/schema.js';
import { transact } from '../db/transact.js';
import type { Clock } from '../lib/clock.js';
import { idempotencyKeyInProgress, idempotencyKeyReused, invalidInput, unauthorized } from '../core/errors.js';
import { SignatureRequired } from '../core/signature.js';
import { openUnitOfWork, sendTogether, type DeferredWrite, type Scope, type UnitOfWork } from '../core/unit-of-work.js';
import { canonicalJson } from '../lib/json.js';
import { sha256Hex } from '../lib/secrets.js';
import type { Sealer } from '../lib/sealed.js';

const KEY_LIFETIME_MS = 24 * 3600 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;


/**
 * Keys are scoped by credential: the platform's API tokens share one space, and each agent has its
 * own, so an agent reusing a key cannot replay, block or learn the platform's requests (nor the
 * platform an agent's). A client's key is printable ASCII, so the newline cannot forge a scope.
 */
function storedKey(scope: Scope, clientKey: string): string {
  return scope.actor.type === 'AGENT' ? `${scope.actor.agentId}\n${clientKey}` : clientKey;
}

/** How a route that changes state runs: its success status, and whether its work can run in one transaction. */
export interface ChangeRoute {
  status: number;
  /** False for work that calls out over the network: it runs between two short transactions, not inside one. */
  transactional: boolean;
  /** The group-commit lane of a request (RouteSpec.lane). */
  lane?: ((request: FastifyRequest) => string | undefined | Promise<string | undefined>) | undefined;
  /** What else a request's batch may read ahead for it (RouteSpec.readsAhead). */
  readsAhead?: ((request: FastifyRequest) => readonly (string | undefined)[]) | undefined;
}

export type ChangeEffect = (uow: UnitOfWork) => Promise<unknown>;
export type OutsideEffect = (scope: Scope) => Promise<unknown>;

/** The calling platform's scope: who (the API token), for which platform, at the platform's time now. */
export async function requestScope(request: FastifyRequest, clock: Clock): Promise<Scope> {
  const auth = request.auth;
  if (!auth) throw unauthorized('API credentials are required');
  const actor = auth.agent
    ? ({ type: 'AGENT', agentId: auth.agent.id, customerId: auth.agent.customerId } as const)
    : ({ type: 'API_TOKEN', tokenId: auth.tokenId, permissions: auth.permissions } as const);
  return { platformId: auth.platformId, actor, now: await clock.now(auth.platformId) };
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key !== undefined && !KEY_PATTERN.test(key)) {
    throw invalidInput([{ field: 'Idempotency-Key', constraint: { maxLength: 255 }, message: 'Idempotency-Key must be 1-255 printable ASCII characters' }]);
  }
  return key;
}

/** Serializes through the route's response schema, exactly as Fastify would, so a replay is identical. */
function serialize(reply: FastifyReply, status: number, result: unknown): Answer {
  const challenge = result instanceof SignatureRequired;
  const answer = challenge ? { status: 202, body: result.challenge } : { status, body: result };
  reply.code(answer.status);
  return { status: answer.status, text: reply.serialize(answer.body) as string, challenge };
}

/** A serialized answer; `challenge` marks a 202 asking for the end user's signature (never stored). */
interface Answer {
  status: number;
  text: string;
  challenge: boolean;
}

type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; text: string };

export type ChangeRunner = ReturnType<typeof createChangeRunner>;

/**
 * The one way a state-changing route runs: in a unit of work, under the one idempotency layer. The
 * route table applies it to every POST, PATCH and DELETE of the API; no route opts in by hand.
 *
 * With an `Idempotency-Key`, the key row is claimed in the same transaction as the effect and
 * stores the response, so a replay returns it unchanged (`Idempotent-Replayed: true`), the same key
 * with another request is refused (409), and two concurrent requests with one key execute once: the
 * second waits on the first's uncommitted key row and then replays its answer. A failed effect
 * rolls the key back with everything else. A 202 asking for the end user's signature is not
 * stored: the signed retry under the same key is the request that executes.
 */
export function createChangeRunner({ db, clock, sealer }: { db: Db; clock: Clock; sealer: Sealer }) {
  async function claim(tx: Tx, scope: Scope, clientKey: string, requestHash: string): Promise<Claim> {
    const key = storedKey(scope, clientKey);
    const claimed = await tx
      .insertInto('idempotency_keys')
      .values({ platform_id: scope.platformId, key, request_hash: requestHash, created_at: scope.now })
      .onConflict((oc) => oc.columns(['platform_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (claimed) return { kind: 'claimed' };
    const stored = await tx.selectFrom('idempotency_keys').selectAll().where('platform_id', '=', scope.platformId).where('key', '=', key).forNoKeyUpdate().executeTakeFirstOrThrow();
    const expired = scope.now.getTime() - stored.created_at.getTime() > KEY_LIFETIME_MS;
    if (!expired) {
      if (stored.request_hash !== requestHash) throw idempotencyKeyReused(clientKey);
      if (stored.response_status === null || stored.response_body === null) throw idempotencyKeyInProgress(clientKey);
      return { kind: 'replay', status: stored.response_status, text: sealer.open(stored.response_body, `${scope.platformId}\n${key}`) };
    }
    await tx
      .updateTable('idempotency_keys')
      .set({ request_hash: requestHash, created_at: scope.now, response_status: null, response_body: null })
      .where('platform_id', '=', scope.platformId)
      .where('key', '=', key)
      .execute();
    return { kind: 'claimed' };
  }

  /** The write that stores the answer under its key (or frees the key of a 202 challenge), built but not sent. */
  function storing(tx: Tx, scope: Scope, clientKey: string, answer: Answer): DeferredWrite {
    const key = storedKey(scope, clientKey);
    if (answer.challenge) return tx.deleteFrom('idempotency_keys').where('platform_id', '=', scope.platformId).where('key', '=', key);
    return (
      tx
        .updateTable('idempotency_keys')
        // Stored responses can carry secrets (a new API token's secret, a hosted-link token): sealed at rest.
        .set({ response_status: answer.status, response_body: sealer.seal(answer.text, `${scope.platformId}\n${key}`) })
        .where('platform_id', '=', scope.platformId)
        .where('key', '=', key)
    );
  }

  /** Runs `effect` in one transaction with the key claim and the stored response. */
  async function inTransaction(request: FastifyRequest, reply: FastifyReply, route: ChangeRoute, effect: ChangeEffect): Promise<{ replayed: boolean; status: number; text: string }> {
    const scope = await requestScope(request, clock);
    const key = idempotencyKeyOf(request);
    const requestHash = key === undefined ? '' : sha256Hex(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`);
    const lane = await route.lane?.(request);
    return transact(db, async (tx) => {
      if (key !== undefined) {
        const claimed = await claim(tx, scope, key, requestHash);
        if (claimed.kind === 'replay') return { replayed: true, status: claimed.status, text: claimed.text };
      }
      const { uow, complete } = openUnitOfWork(tx, scope);
      const answer = serialize(reply, route.status, await effect(uow));
      // The answer is stored by the unit of work's last statement, with its events.
      await complete(key === undefined ? [] : [storing(tx, scope, key, answer)], { thenCommit: true });
      return { replayed: false, ...answer };
    }, { lane, owner: scope.platformId, reads: route.readsAhead?.(request).filter((id) => typeof id === 'string') });
  }

  /** Work that must not hold a transaction open: the key is claimed and committed first, the response stored after. */
  async function outsideTransaction(request: FastifyRequest, reply: FastifyReply, route: ChangeRoute, effect: OutsideEffect): Promise<{ replayed: boolean; status: number; text: string }> {
    const scope = await requestScope(request, clock);
    const key = idempotencyKeyOf(request);
    if (key === undefined) return { replayed: false, ...serialize(reply, route.status, await effect(scope)) };
    const requestHash = sha256Hex(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`);
    const claimed = await transact(db, (tx) => claim(tx, scope, key, requestHash));
    if (claimed.kind === 'replay') return { replayed: true, status: claimed.status, text: claimed.text };
    let answer: Answer;
    try {
      answer = serialize(reply, route.status, await effect(scope));
    } catch (error) {
      await db.deleteFrom('idempotency_keys').where('platform_id', '=', scope.platformId).where('key', '=', storedKey(scope, key)).execute();
      throw error;
    }
    await transact(db, (tx) => sendTogether(tx, [storing(tx, scope, key, answer)]));
    return { replayed: false, ...answer };
  }

  return {
    /** Sends the reply itself; route handlers return its promise. */
    async run(request: FastifyRequest, reply: FastifyReply, route: ChangeRoute, effect: ChangeEffect | OutsideEffect): Promise<void> {
      const outcome = route.transactional
        ? await inTransaction(request, reply, route, effect)
        : await outsideTransaction(request, reply, route, effect as OutsideEffect);
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
      reply.code(outcome.status).type('application/json').send(outcome.text);
    },
  };
}
