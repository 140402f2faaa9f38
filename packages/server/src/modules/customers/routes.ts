import { walletSignatureOf } from '../../core/signature.js';
import type { Routes } from '../../http/routes.js';
import { WalletSignatureHeaders } from '../../http/schema-kit.js';
import { EndUserTerms, Customer, CustomerCreateRequest, CustomerListQuery, CustomerListResponse, CustomerParams, CustomerUpdateRequest } from './schemas.js';
import type { CustomerService } from './service.js';
import { customerDeleted, customerNotFound, duplicatePlatformCustomerId, endUserTermsVersionNotFound } from './errors.js';

const tags = ['Customers'];
const lookup = [customerNotFound, customerDeleted];

export function customerRoutes(r: Routes, { customers }: { customers: CustomerService }): void {
  r.post('/customers', { schema: { tags, summary: 'Create a customer', body: CustomerCreateRequest, response: { 201: Customer } }, status: 201, errors: [duplicatePlatformCustomerId, endUserTermsVersionNotFound] }, (uow, req) =>
    customers.create(uow, req.body),
  );

  r.get(
    '/customers/end-user-terms',
    {
      schema: {
        tags,
        summary: 'Get the current end-user terms',
        description: "The current version of the platform's end-user terms and where it is hosted (PATCH /config endUserTermsConfig sets both). A customer's endUserTermsConsent names a version.",
        response: { 200: EndUserTerms },
      },
    },
    (scope) => customers.endUserTerms(scope),
  );

  r.get('/customers', { schema: { tags, summary: 'List customers', querystring: CustomerListQuery, response: { 200: CustomerListResponse } } }, (scope, req) => customers.list(scope, req.query));

  r.get('/customers/:customerId', { schema: { tags, summary: 'Get a customer', params: CustomerParams, response: { 200: Customer } }, errors: lookup }, (scope, req) =>
    customers.get(scope, req.params.customerId),
  );

  r.patch(
    '/customers/:customerId',
    {
      schema: {
        tags,
        summary: 'Update a customer (202 with a payload to sign when a wallet-tied contact changes)',
        params: CustomerParams,
        headers: WalletSignatureHeaders,
        body: CustomerUpdateRequest,
        response: { 200: Customer },
      },
      signed: true,
      errors: [...lookup, duplicatePlatformCustomerId, endUserTermsVersionNotFound],
    },
    (uow, req) => customers.update(uow, req.params.customerId, req.body, walletSignatureOf(req.headers)),
  );

  r.delete(
    '/customers/:customerId',
    { schema: { tags, summary: 'Delete a customer (later reads answer 410)', params: CustomerParams, response: { 200: Customer } }, status: 200, errors: lookup },
    (uow, req) => customers.remove(uow, req.params.customerId),
  );
}
