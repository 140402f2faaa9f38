import { notImplemented } from '../../core/errors.js';
import type { Routes } from '../../http/routes.js';
import { noRateForCurrency } from '../../fx/errors.js';
import { customerNotFound } from '../customers/errors.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import { ReceiverAccountParams, ReceiverExternalAccountLookup, ReceiverLookupQuery } from './schemas.js';
import type { ReceiverService } from './service.js';

export function receiverRoutes(r: Routes, { receiver }: { receiver: ReceiverService }): void {
  r.get(
    '/receiver/external-account/:accountId',
    {
      schema: {
        tags: ['Cross-Currency Transfers'],
        summary: 'What an external account accepts: its currency, an estimated rate from the sender, limits, required payer data',
        params: ReceiverAccountParams,
        querystring: ReceiverLookupQuery,
        response: { 200: ReceiverExternalAccountLookup },
      },
      errors: [externalAccountNotFound, customerNotFound, noRateForCurrency, notImplemented],
    },
    (scope, req) => receiver.lookupExternalAccount(scope, req.params.accountId, req.query),
  );
}
