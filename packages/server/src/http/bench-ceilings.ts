import type { FastifyInstance } from 'fastify';
import type { CustomerId } from '../core/ids.js';
import type { Db } from '../db/schema.js';

/**
 * The bench's bare routes (MONETA_BENCH_CEILINGS=on, sandbox only): each does the database read of a
 * bench scenario on the server's own pool and answers the row as it comes, with no credentials, no
 * platform scope, no clock, no view and no request log. `npm run bench` measures the API route
 * beside it, so the ratio is what everything but the read costs.
 */
export function registerBenchCeilings(app: FastifyInstance, db: Db): void {
  // The indexed read of GET /customers/{id}.
  app.get<{ Params: { id: string } }>('/bench/customers/:id', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const row = await db.selectFrom('customers').selectAll().where('id', '=', request.params.id as CustomerId).executeTakeFirst();
    return row ? row : reply.code(404).send({ status: 404, code: 'NOT_FOUND', message: 'No such customer' });
  });
}
