import type { ModuleFixtures } from '../../contract/module.js';

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country';

/** A one-row customer CSV, base64-encoded for the JSON form of the upload. */
export function csvBody(platformCustomerId: string): { file: string; fileName: string } {
  const csv = `${HEADER}\n$${platformCustomerId}@example.com,${platformCustomerId},INDIVIDUAL,Bulk Fixture,1990-01-15,1 Main St,Seattle,WA,98101,US\n`;
  return { file: Buffer.from(csv).toString('base64'), fileName: 'customers.csv' };
}

export const fixtures: ModuleFixtures = {
  bodies: { 'POST /customers/bulk/csv': csvBody('bulk-fixture') },
  async create({ call, ids, label }) {
    const accepted = await call('POST', '/customers/bulk/csv', csvBody(`${label}-bulk`));
    ids.set('Job', (accepted.body as { jobId: string }).jobId);
  },
};
