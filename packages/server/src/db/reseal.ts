import type { Db } from './schema.js';
import type { Sealer } from '../lib/sealed.js';

/**
 * Re-seals, with the current key, what earlier keys sealed outside the modules: webhook signing keys
 * and stored idempotent responses. The contexts are the ones their writers bind (events/signing-keys.ts,
 * http/idempotency.ts). Card data is the cards module's (CardService.resealCardData).
 */
export async function resealInfrastructure(db: Db, sealer: Sealer): Promise<{ signingKeys: number; idempotentResponses: number }> {
  let signingKeys = 0;
  const keys = await db.selectFrom('webhook_signing_keys').select(['id', 'private_key_sealed']).execute();
  for (const key of keys.filter((k) => !sealer.isCurrent(k.private_key_sealed))) {
    const context = `webhook-key:${key.id}`;
    await db.updateTable('webhook_signing_keys').set({ private_key_sealed: sealer.seal(sealer.open(key.private_key_sealed, context), context) }).where('id', '=', key.id).execute();
    signingKeys++;
  }
  let idempotentResponses = 0;
  const stored = await db.selectFrom('idempotency_keys').select(['platform_id', 'key', 'response_body']).where('response_body', 'is not', null).execute();
  for (const row of stored.filter((r) => !sealer.isCurrent(r.response_body!))) {
    const context = `${row.platform_id}\n${row.key}`;
    await db
      .updateTable('idempotency_keys')
      .set({ response_body: sealer.seal(sealer.open(row.response_body!, context), context) })
      .where('platform_id', '=', row.platform_id)
      .where('key', '=', row.key)
      .execute();
    idempotentResponses++;
  }
  return { signingKeys, idempotentResponses };
}
