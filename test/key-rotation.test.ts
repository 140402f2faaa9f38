import { createCipheriv, randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createSealer } from '../packages/server/src/lib/sealed.js';
import { resealInfrastructure } from '../packages/server/src/db/reseal.js';
import { resealWalletData } from '../packages/server/src/modules/wallets/reseal.js';
import { decryptExportBundle, generateP256KeyPair } from '@turnkey/crypto';
import type { CardId } from '../packages/server/src/core/ids.js';
import { sealContext } from '../packages/server/src/modules/cards/service.js';
import { createTestApp, type TestApp } from './harness.js';
import { httpApi, paymentFixtures } from './payments-fixtures.js';
import type { Card, CardReveal } from './wire-types.js';

describe('the sealer', () => {
  const a = randomBytes(32);
  const b = randomBytes(32);

  it('seals with the current key and opens with any configured one, by key id', () => {
    const old = createSealer(a);
    const sealed = old.seal('4000001234567890', 'card:x:pan');
    expect(sealed).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect(sealed).not.toContain('4000001234567890');
    const rotated = createSealer({ current: b, previous: [a] });
    expect(rotated.open(sealed, 'card:x:pan')).toBe('4000001234567890');
    expect(rotated.isCurrent(sealed)).toBe(false);
    expect(rotated.isCurrent(rotated.seal('x', 'c'))).toBe(true);
    expect(() => createSealer(b).open(sealed, 'card:x:pan')).toThrow(/not configured/);
    // Bound to its context: a sealed number cannot be moved to another card.
    expect(() => rotated.open(sealed, 'card:y:pan')).toThrow();
  });

  it('still opens values sealed before key ids (v1) with whichever configured key fits', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', a, iv);
    cipher.setAAD(Buffer.from('ctx', 'utf8'));
    const body = Buffer.concat([cipher.update('secret', 'utf8'), cipher.final()]);
    const v1 = `v1.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
    expect(createSealer({ current: b, previous: [a] }).open(v1, 'ctx')).toBe('secret');
    expect(() => createSealer(b).open(v1, 'ctx')).toThrow(/not configured/);
  });
});

describe('rotating the encryption key of a running installation', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
  });

  it('keeps card numbers readable through a rotation, re-seals them with the new key, and then needs only the new key', async () => {
    const before = await createTestApp({}, { listen: true, encryptionKey: keyA });
    apps.push(before);
    const api = httpApi(before);
    const f = paymentFixtures(before, before.platform, api);
    const { customerId, accountId } = await f.customerWithAccount('USD', 0, 'Rita Rotation');
    const card = (await api<Card>(before.platform, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] })).body;
    await before.container.jobs.runDue();
    await api(before.platform, 'GET', '/config'); // creates the platform's webhook signing key, sealed with A
    const revealOn = async (app: TestApp) => {
      const link = (await httpApi(app)<CardReveal>(before.platform, 'POST', `/cards/${card.id}/reveal`)).body.panEmbedUrl;
      const page = await fetch(link);
      const html = await page.text();
      return { status: page.status, pan: /id="pan">([0-9 ]+)</.exec(html)?.[1]?.replace(/ /g, '') };
    };
    const original = await revealOn(before);
    expect(original.status).toBe(200);
    expect(original.pan!.endsWith(card.last4)).toBe(true);

    // The operator makes B current and lists A as previous: everything still opens.
    const rotating = await createTestApp({}, { listen: true, encryptionKey: { current: keyB, previous: [keyA] }, database: before.database });
    apps.push(rotating);
    expect(await revealOn(rotating)).toEqual(original);

    // `npm run cli -- reseal` does this: every secret sealed with A is sealed again with B.
    expect(await rotating.container.cards.resealCardData()).toBe(1);
    const infrastructure = await resealInfrastructure(rotating.database.db, rotating.container.sealer);
    expect(infrastructure.signingKeys).toBeGreaterThanOrEqual(1);
    expect(await rotating.container.cards.resealCardData()).toBe(0);

    // A can go: B alone opens the card, and A alone no longer can.
    const after = await createTestApp({}, { listen: true, encryptionKey: keyB, database: before.database });
    apps.push(after);
    expect(await revealOn(after)).toEqual(original);
    const row = await after.database.db.selectFrom('cards').select('pan_sealed').where('id', '=', card.id as CardId).executeTakeFirstOrThrow();
    expect(() => createSealer(keyA).open(row.pan_sealed, sealContext(card.id as CardId, 'pan'))).toThrow(/not configured/);
    expect((await httpApi(after)(before.platform, 'GET', '/config')).status).toBe(200);
  });

  it('keeps a wallet’s secret and the bundle-signing key through a rotation (cli reseal), so an export gives the same secret', async () => {
    const before = await createTestApp({}, { encryptionKey: keyA });
    apps.push(before);
    await before.api(before.platform, 'PATCH', '/config', { embeddedWalletConfig: { appName: 'Rotation' } });
    const customer = await before.api<{ id: string }>(before.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'rot-wallet', region: 'US', email: 'rot@wallet.test', fullName: 'Rota Wallet' });
    const wallet = (await before.api<{ data: { id: string }[] }>(before.platform, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!.id;
    const exportOn = async (app: TestApp) => {
      const target = generateP256KeyPair();
      const body = { clientPublicKey: target.publicKeyUncompressed };
      const first = await app.api<{ requestId: string }>(before.platform, 'POST', `/internal-accounts/${wallet}/export`, body);
      const done = await app.api<{ encryptedWalletCredentials: string }>(before.platform, 'POST', `/internal-accounts/${wallet}/export`, body, { 'service-wallet-signature': 'sandbox-valid-signature', 'request-id': first.body.requestId });
      const signer = (await app.api<{ publicKey: string }>(before.platform, 'GET', '/auth/bundle-signing-key')).body.publicKey;
      return { signer, secret: await decryptExportBundle({ exportBundle: done.body.encryptedWalletCredentials, embeddedKey: target.privateKey, organizationId: wallet, dangerouslyOverrideSignerPublicKey: signer, keyFormat: 'HEXADECIMAL', returnMnemonic: false }) };
    };
    const original = await exportOn(before);

    const rotating = await createTestApp({}, { encryptionKey: { current: keyB, previous: [keyA] }, database: before.database });
    apps.push(rotating);
    const resealed = await resealWalletData(rotating.database.db, rotating.container.sealer, rotating.container.wallets, new Date());
    expect(resealed.wallets).toBe(1);
    expect(resealed.serviceKeys).toBe(1);

    const after = await createTestApp({}, { encryptionKey: keyB, database: before.database });
    apps.push(after);
    // The same secret, signed by the same pinned key.
    expect(await exportOn(after)).toEqual(original);
  });
});
