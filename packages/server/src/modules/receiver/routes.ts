import type { ApiApp } from '../../http/types.js';
import { errorResponses, errorResponsesWithoutRail } from '../../http/schema-kit.js';
import { ReceiverAccountParams, ReceiverExternalAccountLookup, ReceiverLookupQuery } from './schemas.js';
import type { ReceiverService } from './service.js';

export function registerReceiverRoutes(app: ApiApp, { receiver }: { receiver: ReceiverService }) {
  app.get(
    '/receiver/external-account/:accountId',
    {
      schema: {
        tags: ['Cross-Currency Transfers'],
        summary: 'What an external account accepts: its currency, an estimated rate from the sender, limits, required payer data',
        params: ReceiverAccountParams,
        querystring: ReceiverLookupQuery,
        response: { 200: ReceiverExternalAccountLookup, ...errorResponsesWithoutRail },
      },
    },
    (req) => receiver.lookupExternalAccount(req.auth!.platformId, req.params.accountId, req.query),
  );
}
