import { createECDH } from 'node:crypto';
import { bech32m } from '@scure/base';
import type { ModuleFixtures } from '../../contract/module.js';
import { sparkAddress } from '../../sandbox/funding-instructions.js';

let links = 0;
let tokens = 0;

/** A Spark token identifier of the right form (btkn1…), for registering a coin. */
export function sparkTokenIdentifier(): string {
  const key = createECDH('secp256k1');
  key.generateKeys();
  return bech32m.encode('btkn', bech32m.toWords(key.getPublicKey().subarray(1, 33)), 1024);
}

/** A link body reaching a provider account not linked before (the sandbox derives the account from the client id). */
const linkBody = () => ({ provider: 'BRALE', apiClientId: `fixture-client-${process.pid}-${++links}`, apiClientSecret: 'fixture-secret' });
/** A register body for a token not registered before (the sandbox knows any upper-case identifier). */
const registerBody = (id: (idType: string, variant?: string) => string) => ({
  providerTokenIdentifier: `FX${++tokens}`,
  networkTokenIdentifier: sparkTokenIdentifier(),
  network: 'SPARK',
  stablecoinProviderAccountId: id('StablecoinProviderAccount'),
});

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /stablecoin-provider-accounts': linkBody,
    'POST /stablecoins': registerBody,
    'POST /stablecoins/:stablecoinId/mints': (id) => ({ amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: id('ExternalAccount', 'spark') } }),
    'POST /stablecoins/:stablecoinId/burns': (id) => ({
      amount: '1000000',
      source: { type: 'EXTERNAL_ACCOUNT' },
      destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: id('ExternalAccount', '/platform/external-accounts'), rail: 'ACH_CREDIT' },
    }),
  },
  async create({ call, ids }) {
    const link = (await call('POST', '/stablecoin-provider-accounts', linkBody())).body as { id: string };
    ids.set('StablecoinProviderAccount', link.id);
    const coin = (await call('POST', '/stablecoins', registerBody((type) => ids.get(type)!))).body as { id: string };
    ids.set('Stablecoin', coin.id);
    const wallet = (await call('POST', '/platform/external-accounts', { currency: 'USDB', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress() } })).body as { id: string };
    ids.set('ExternalAccount at spark', wallet.id);
    const mint = (await call('POST', `/stablecoins/${coin.id}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: wallet.id } })).body as { id: string };
    ids.set('StablecoinOperation', mint.id);
  },
};
