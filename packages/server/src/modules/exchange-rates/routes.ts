import type { Routes } from '../../http/routes.js';
import { unknownCurrency } from '../../lib/currencies.js';
import { notImplemented } from '../../core/errors.js';
import { noRateForCurrency } from '../../fx/errors.js';
import { destinationCurrencies, ExchangeRateList, ExchangeRateQuery } from './schemas.js';
import type { ExchangeRateService } from './service.js';

const tags = ['Exchange Rates'];

export function exchangeRateRoutes(r: Routes, { exchangeRates }: { exchangeRates: ExchangeRateService }): void {
  r.get(
    '/exchange-rates',
    {
      schema: {
        tags,
        summary: 'Indicative exchange rates and fees for every corridor the platform can send on',
        querystring: ExchangeRateQuery,
        response: { 200: ExchangeRateList },
      },
      errors: [unknownCurrency, noRateForCurrency, notImplemented],
    },
    (scope, req) => exchangeRates.list(scope, { ...req.query, destinationCurrency: destinationCurrencies(req.query.destinationCurrency) }),
  );
}
