import { defineModule } from '../../contract/module.js';
import type { JobId } from '../../core/ids.js';
import { BULK_ERRORS } from './errors.js';
import { BULK_EVENTS } from './events.js';
import { bulkImports } from './migrations.js';
import { bulkCustomerRoutes } from './routes.js';
import { BATCH_JOB, createBulkCustomerService, type BulkCustomerService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    bulkCustomers: BulkCustomerService;
  }
  interface ModuleSettings {
    bulkCustomers: { maxBytes: number; batchRows: number };
  }
}

const DEFAULT_MAX_BYTES = 100 * 1024 * 1024;
const DEFAULT_BATCH_ROWS = 500;

function integerSetting(environment: Readonly<Record<string, string | undefined>>, name: string, fallback: number, min: number, max: number): number {
  const raw = environment[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^[0-9]+$/.test(raw) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

/** Bulk customer onboarding: a CSV file streamed in, its rows created as customers by a job, in batches. */
export default defineModule({
  name: 'bulkCustomers',
  needs: ['customers'],
  migrations: { '20261127T140000_bulk_customer_imports': bulkImports },
  settings: (environment) => ({
    maxBytes: integerSetting(environment, 'BULK_CUSTOMERS_MAX_BYTES', DEFAULT_MAX_BYTES, 1024, 1024 * 1024 * 1024),
    batchRows: integerSetting(environment, 'BULK_CUSTOMERS_BATCH_ROWS', DEFAULT_BATCH_ROWS, 1, 5000),
  }),
  createService: ({ db, customers, settings }) => createBulkCustomerService({ db, customers, maxBytes: settings.maxBytes, batchRows: settings.batchRows }),
  routes: bulkCustomerRoutes,
  jobs: ({ bulkCustomers }) => ({ [BATCH_JOB]: (uow, payload) => bulkCustomers.runBatch(uow, String(payload.jobId) as JobId) }),
  errors: BULK_ERRORS,
  events: BULK_EVENTS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
