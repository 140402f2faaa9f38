import { defineModule } from '../../contract/module.js';
import { dashboardPages } from './pages.js';

/** The dashboard has no service of its own: its pages read the other modules through the API. */
export type DashboardService = Record<string, never>;

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    dashboard: DashboardService;
  }
}

/** The dashboard: a static page at /dashboard that signs in with an API token and reads the public API. */
export default defineModule({
  name: 'dashboard',
  needs: [],
  createService: () => ({}),
  sitePages: dashboardPages,
});
