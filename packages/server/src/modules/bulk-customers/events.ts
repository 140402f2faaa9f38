import type { BulkImportJobView } from './service.js';

declare module '../../core/events.js' {
  interface EventCatalogue {
    /** The job went through every row and at least one customer was created (failed rows are listed). */
    'BULK_UPLOAD.COMPLETED': BulkImportJobView;
    /** The job went through every row and none created a customer. */
    'BULK_UPLOAD.FAILED': BulkImportJobView;
  }
}

export const BULK_EVENTS = ['BULK_UPLOAD.COMPLETED', 'BULK_UPLOAD.FAILED'] as const;
