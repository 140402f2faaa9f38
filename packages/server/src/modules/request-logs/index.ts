import { defineModule } from '../../contract/module.js';
import { requestLogs as createTables, slimRequestLogs } from './migrations.js';
import { requestLogRoutes } from './routes.js';
import { createRequestLogService, type RequestLogService } from './service.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    requestLogs: RequestLogService;
  }
  interface ModuleSettings {
    requestLogs: { retentionDays: number };
  }
}

/** The request log: each API request of a platform, listed and streamed (`moneta logs tail`). */
export default defineModule({
  name: 'requestLogs',
  needs: [],
  migrations: { '20261127T143000_request_logs': createTables, '20261130T090000_request_logs_slim': slimRequestLogs },
  settings(environment) {
    const raw = environment.MONETA_REQUEST_LOG_DAYS ?? '7';
    if (!/^[1-9][0-9]{0,2}$/.test(raw)) throw new Error('MONETA_REQUEST_LOG_DAYS must be a whole number of days from 1 to 999');
    return { retentionDays: Number(raw) };
  },
  createService: ({ db, settings }) => createRequestLogService({ db, retentionDays: settings.retentionDays }),
  routes: requestLogRoutes,
});
