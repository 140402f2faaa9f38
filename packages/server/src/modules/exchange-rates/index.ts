import { defineModule } from '../../contract/module.js';
import { createPricing } from '../../fx/pricing.js';
import { FX_ERRORS } from '../../fx/errors.js';
import { exchangeRateRoutes } from './routes.js';
import { createExchangeRateService, type ExchangeRateService } from './service.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    exchangeRates: ExchangeRateService;
  }
}

/** Exchange rates and the pricing of every conversion (listings and quotes alike). */
export default defineModule({
  name: 'exchangeRates',
  needs: ['platforms'],
  createService: ({ db, providers, platforms, config }) =>
    createExchangeRateService({ db, platforms, pricing: createPricing({ rates: providers.rates, platforms, serviceFeeBps: config.serviceFeeBps }) }),
  routes: exchangeRateRoutes,
  errors: FX_ERRORS,
});
