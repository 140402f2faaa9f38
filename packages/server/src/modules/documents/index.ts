import { defineModule } from '../../contract/module.js';
import { DOCUMENT_ERRORS } from './errors.js';
import { documents as createTables } from './migrations.js';
import { acceptingReview, suffixReview } from './review.js';
import { documentRoutes } from './routes.js';
import { createDocumentService, type DocumentService } from './service.js';
import { createDatabaseDocumentStore } from './store.js';
import './tables.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    documents: DocumentService;
  }
  interface ModuleSettings {
    documents: { store: 'database'; maxBytes: number };
  }
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/** Documents: files uploaded for customers and beneficial owners (streamed, checked by content, stored behind a DocumentStore). */
export default defineModule({
  name: 'documents',
  needs: ['customers', 'beneficialOwners'],
  migrations: { '20261127T110000_documents': createTables },
  settings(environment) {
    const store = environment.DOCUMENTS_STORE ?? 'database';
    // The one store shipped keeps content in the database; an object store implements DocumentStore (store.ts) and is named here.
    if (store !== 'database') throw new Error(`DOCUMENTS_STORE must be "database" (got "${store}")`);
    const raw = environment.DOCUMENTS_MAX_BYTES;
    const maxBytes = raw === undefined ? DEFAULT_MAX_BYTES : Number(raw);
    if (!Number.isInteger(maxBytes) || maxBytes < 1024 || maxBytes > 100 * 1024 * 1024) throw new Error('DOCUMENTS_MAX_BYTES must be an integer from 1024 to 104857600');
    return { store, maxBytes };
  },
  createService: ({ db, config, customers, beneficialOwners, settings }) =>
    createDocumentService({
      db,
      store: createDatabaseDocumentStore(),
      // The sandbox's document review rejects by the file name's suffix (review.ts); production keeps every well-formed file.
      review: config.mode === 'sandbox' ? suffixReview : acceptingReview,
      maxBytes: settings.maxBytes,
      customers,
      beneficialOwners,
    }),
  routes: documentRoutes,
  errors: DOCUMENT_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});

