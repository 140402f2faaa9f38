import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db, Tx } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { AppError, invalidInput } from '../lib/errors.js';
import { canonicalJson } from '../lib/json.js';
import { sha256Hex } from '../lib/secrets.js';
import type { Sealer } from '../lib/sealed.js';

const KEY_LIFETIME_MS = 24 * 3600 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Lets an effect answer with a status other than the route's usual one (for example 202). */
export class WithStatus<T> {
  constructor(
    readonly status: number,
    readonly body: T,
  ) {}
}

/** What a state-changing service call receives: its transaction, the caller, and the request's time. */
export interface TxContext {
  tx: Tx;
  platformId: string;
  /** The platform's clock, read once before the transaction (never read the clock inside one). */
  now: Date;
}

export type Effect = (ctx: TxContext) => Promise<unknown>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request and reply
type AnyRequest = FastifyRequest<any, any, any, any, any, any, any, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyReply = FastifyReply<any, any, any, any, any, any, any, any>;

/** Sends the reply itself; route handlers return its promise. */
export type RunIdempotent = (request: AnyRequest, reply: AnyReply, status: number, effect: Effect) => Promise<void>;

/**
 * The one idempotency layer. Runs `effect` in a transaction; with an `Idempotency-Key` header the
 * key row is claimed in that same transaction and stores the response, so a replay returns it
 * unchanged (`Idempotent-Replayed: true`), the same key with another body is refused (409), and two
 * concurrent requests with one key execute once: the second waits on the first's uncommitted key
 * row and then replays its answer. A failed effect rolls the key back with everything else.
 */
export function createIdempotency({ db, clock, sealer }: { db: Db; clock: Clock; sealer: Sealer }): RunIdempotent {
  return async function runIdempotent(request, reply, status, effect) {
    const platformId = request.auth?.platformId;
    const rawKey = request.headers['idempotency-key'];
    const key = Array.isArray(rawKey) ? rawKey[0] : rawKey;

    if (platformId === undefined) throw new AppError(401, 'UNAUTHORIZED', 'API credentials are required');
    const now = await clock.now(platformId);
    if (key === undefined) {
      const text = await db.transaction().execute(async (tx) => serialize(reply, status, await effect({ tx, platformId, now })));
      reply.type('application/json').send(text);
      return;
    }
    if (!KEY_PATTERN.test(key)) {
      throw invalidInput([
        { field: 'Idempotency-Key', constraint: { maxLength: 255 }, message: 'Idempotency-Key must be 1-255 printable ASCII characters' },
      ]);
    }

    const requestHash = sha256Hex(`${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`);

    const outcome = await db.transaction().execute(async (tx) => {
      const claimed = await tx
        .insertInto('idempotency_keys')
        .values({ platform_id: platformId, key, request_hash: requestHash, created_at: now })
        .onConflict((oc) => oc.columns(['platform_id', 'key']).doNothing())
        .returning('key')
        .executeTakeFirst();

      if (!claimed) {
        const stored = await tx
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('platform_id', '=', platformId)
          .where('key', '=', key)
          .forUpdate()
          .executeTakeFirstOrThrow();
        const expired = now.getTime() - stored.created_at.getTime() > KEY_LIFETIME_MS;
        if (!expired) {
          if (stored.request_hash !== requestHash) {
            throw new AppError(409, 'CONFLICT', 'This Idempotency-Key was already used with a different request', {
              idempotencyKey: key,
            });
          }
          if (stored.response_status === null || stored.response_body === null) {
            throw new AppError(409, 'CONFLICT', 'A request with this Idempotency-Key is still in progress', {
              idempotencyKey: key,
            });
          }
          return { replayed: true, status: stored.response_status, text: sealer.open(stored.response_body, `${platformId}\n${key}`) };
        }
        await tx
          .updateTable('idempotency_keys')
          .set({ request_hash: requestHash, created_at: now, response_status: null, response_body: null })
          .where('platform_id', '=', platformId)
          .where('key', '=', key)
          .execute();
      }

      const text = serialize(reply, status, await effect({ tx, platformId, now }));
      await tx
        .updateTable('idempotency_keys')
        // Stored responses can carry secrets (a new API token's secret, a hosted-link token): sealed at rest.
        .set({ response_status: reply.statusCode, response_body: sealer.seal(text, `${platformId}\n${key}`) })
        .where('platform_id', '=', platformId)
        .where('key', '=', key)
        .execute();
      return { replayed: false, status: reply.statusCode, text };
    });

    if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
    reply.code(outcome.status).type('application/json').send(outcome.text);
  };
}

/** Serializes through the route's response schema, exactly as Fastify would, so a replay is identical. */
function serialize(reply: AnyReply, status: number, result: unknown): string {
  const { code, body } = result instanceof WithStatus ? { code: result.status, body: result.body } : { code: status, body: result };
  reply.code(code);
  return String(reply.serialize(body));
}
