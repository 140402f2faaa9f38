import type { FastifyInstance } from 'fastify';
import type { CustomerId } from '../../core/ids.js';
import type { Db } from '../../db/schema.js';
import { customerNotFound } from './errors.js';

/**
 * The bench's bare read (MONETA_BENCH_CEILINGS=on, sandbox only): the indexed read of
 * GET /customers/{id} on the server's own pool, the row answered as it comes, with no credentials,
 * no platform scope, no clock, no view and no request log. `npm run bench` measures the API route
 * beside it, so the ratio is what everything but the read costs.
 */
export function registerBenchCeiling(app: FastifyInstance, db: Db): void {
  app.get<{ Params: { id: string } }>('/bench/customers/:id', { schema: { hide: true }, config: { public: true } }, async (request) => {
    const row = await db.selectFrom('customers').selectAll().where('id', '=', request.params.id as CustomerId).executeTakeFirst();
    if (!row) throw customerNotFound();
    return row;
  });
}
