import type { ApiApp } from '../../http/types.js';
import { errorResponses, errorResponsesWithoutRail } from '../../http/schema-kit.js';
import { ExchangeRateList, ExchangeRateQuery } from './schemas.js';
import type { ExchangeRateService } from './service.js';

const tags = ['Exchange Rates'];

export function registerExchangeRateRoutes(app: ApiApp, { exchangeRates }: { exchangeRates: ExchangeRateService }) {
  app.get(
    '/exchange-rates',
    {
      schema: {
        tags,
        summary: 'Indicative exchange rates and fees for every corridor the platform can send on',
        querystring: ExchangeRateQuery,
        response: { 200: ExchangeRateList, ...errorResponsesWithoutRail },
      },
    },
    (req) => exchangeRates.list(req.auth!.platformId, req.query),
  );
}
