import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import { errorResponses } from '../../http/schema-kit.js';
import { SignedRequestChallenge, WalletSignatureHeaders } from '../../http/schema-kit.js';
import { Customer, CustomerCreateRequest, CustomerListQuery, CustomerListResponse, CustomerParams, CustomerUpdateRequest } from './schemas.js';
import type { CustomerService } from './service.js';

const tags = ['Customers'];
const responses = { ...errorResponses, 410: errorResponses[404] };

export function registerCustomerRoutes(app: ApiApp, { customers, idempotent }: { customers: CustomerService; idempotent: RunIdempotent }) {
  app.post(
    '/customers',
    { schema: { tags, summary: 'Create a customer', body: CustomerCreateRequest, response: { 201: Customer, ...responses } } },
    (req, reply) => idempotent(req, reply, 201, (ctx) => customers.create(ctx, req.body)),
  );

  app.get(
    '/customers',
    { schema: { tags, summary: 'List customers', querystring: CustomerListQuery, response: { 200: CustomerListResponse, ...responses } } },
    (req) => customers.list(req.auth!.platformId, req.query),
  );

  app.get(
    '/customers/:customerId',
    { schema: { tags, summary: 'Get a customer', params: CustomerParams, response: { 200: Customer, ...responses } } },
    (req) => customers.get(req.auth!.platformId, req.params.customerId),
  );

  app.patch(
    '/customers/:customerId',
    {
      schema: {
        tags,
        summary: 'Update a customer (202 with a payload to sign when a wallet-tied contact changes)',
        params: CustomerParams,
        headers: WalletSignatureHeaders,
        body: CustomerUpdateRequest,
        response: { 200: Customer, 202: SignedRequestChallenge, ...responses },
      },
    },
    (req, reply) =>
      idempotent(req, reply, 200, (ctx) =>
        customers.update(ctx, req.params.customerId, req.body, { signature: req.headers['service-wallet-signature'], requestId: req.headers['request-id'] }),
      ),
  );

  app.delete(
    '/customers/:customerId',
    { schema: { tags, summary: 'Delete a customer (later reads answer 410)', params: CustomerParams, response: { 200: Customer, ...responses } } },
    (req, reply) => idempotent(req, reply, 200, (ctx) => customers.remove(ctx, req.params.customerId)),
  );
}
