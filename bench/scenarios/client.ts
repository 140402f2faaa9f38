import { createMonetaClient } from '../../packages/client/src/index.js';
import { measureLoops, type Row } from '../lib/load.js';
import type { Server } from '../lib/server.js';
import { API } from '../lib/settings.js';

/**
 * The typed client's own cost: `GET /customers/{id}` through `@moneta/client` (openapi-fetch, its
 * middlewares, the retrying fetch, error mapping) beside the same request with bare `fetch`, both
 * from closed loops in this process.
 */
export async function benchClient(label: string, server: Server, customerId: string): Promise<Row[]> {
  const [tokenId, clientSecret] = Buffer.from(server.authorization.slice('Basic '.length), 'base64').toString('utf8').split(':') as [string, string];
  const moneta = createMonetaClient({ baseUrl: server.base, tokenId, clientSecret, retry: { maxRetries: 0 } });
  const url = `${server.base}${API}/customers/${encodeURIComponent(customerId)}`;
  const bare = await measureLoops(label, `bare fetch GET ${API}/customers/{id}`, 'req/s', async () => {
    const response = await fetch(url, { headers: { authorization: server.authorization } });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.json();
  });
  const sdk = await measureLoops(label, `@moneta/client GET /customers/{id}`, 'req/s', async () => {
    await moneta.GET('/customers/{customerId}', { params: { path: { customerId } } });
  });
  return [{ ...sdk, ceiling: bare }, bare];
}

