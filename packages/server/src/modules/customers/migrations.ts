import { sql, type Kysely } from 'kysely';

/**
 * Identification is stored under today's names only (`idType`, `identifier`, `countryOfIssuance`):
 * a profile that holds the snapshot's (`taxIdType`, `taxIdentifier`, `taxIdCountryOfIssuance`)
 * keeps its values under today's names; where a profile holds both names, today's wins.
 */
export const identificationUnderTodaysNames = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`
      UPDATE customers
         SET profile = (profile - 'taxIdType' - 'taxIdentifier' - 'taxIdCountryOfIssuance')
                       || jsonb_strip_nulls(jsonb_build_object(
                            'idType', coalesce(profile -> 'idType', profile -> 'taxIdType'),
                            'identifier', coalesce(profile -> 'identifier', profile -> 'taxIdentifier'),
                            'countryOfIssuance', coalesce(profile -> 'countryOfIssuance', profile -> 'taxIdCountryOfIssuance')))
       WHERE profile ?| array['taxIdType', 'taxIdentifier', 'taxIdCountryOfIssuance']`.execute(db);
  },
  // Nothing to undo: responses read either storage (the snapshot's names are emitted from today's).
  async down(): Promise<void> {},
};

/** A customer's contact verification state (the reference's Customer.contactVerification); null where none is required. */
export const customerContactVerification = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE customers ADD COLUMN contact_verification jsonb`.execute(db);
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await sql`ALTER TABLE customers DROP COLUMN contact_verification`.execute(db);
  },
};
