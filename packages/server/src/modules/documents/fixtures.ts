import type { ModuleFixtures } from '../../contract/module.js';

/** The smallest complete PDF the checks accept (ASCII, so it travels in a JSON string or a text multipart body). */
export const TINY_PDF = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /documents': (id) => ({ documentHolder: id('Customer'), documentType: 'PASSPORT', country: 'US', fileName: 'passport.pdf', file: Buffer.from(TINY_PDF).toString('base64') }),
    'PUT /documents/:documentId': { documentType: 'PASSPORT', country: 'US', side: 'FRONT', fileName: 'passport-new.pdf', file: Buffer.from(TINY_PDF).toString('base64') },
  },
  async create({ call, ids }) {
    const customerId = ids.get('Customer');
    if (!customerId) throw new Error('the documents fixtures need a Customer');
    const document = await call('POST', '/documents', { documentHolder: customerId, documentType: 'PASSPORT', country: 'US', fileName: 'passport.pdf', file: Buffer.from(TINY_PDF).toString('base64') });
    ids.set('Document', (document.body as { id: string }).id);
  },
};
