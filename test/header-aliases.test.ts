import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp } from './harness.js';
import { createOneOfEach } from './route-fixtures.js';

/** The reference's clients send the wallet signature as Grid-Wallet-Signature: read as ours. */
describe('header aliases', () => {
  let t: TestApp;
  let cardId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const ids = await createOneOfEach(t, t.platform, 'hdr');
    cardId = ids.get('Card')!;
  }, 120_000);
  afterAll(async () => t?.close());

  it('Grid-Wallet-Signature is checked exactly as Service-Wallet-Signature is', async () => {
    const ours = await t.api(t.platform, 'PATCH', `/cards/${cardId}`, { state: 'FROZEN' }, { 'service-wallet-signature': 'not-a-stamp', 'request-id': 'Request:x' });
    const theirs = await t.api(t.platform, 'PATCH', `/cards/${cardId}`, { state: 'FROZEN' }, { 'grid-wallet-signature': 'not-a-stamp', 'request-id': 'Request:x' });
    expect(ours.status).toBeGreaterThanOrEqual(400);
    expect([theirs.status, errorOf(theirs)]).toEqual([ours.status, errorOf(ours)]);
    const card = await t.api<{ state: string }>(t.platform, 'GET', `/cards/${cardId}`);
    expect(card.body.state).not.toBe('FROZEN');
  });

  it('both names with different values are refused, naming the header', async () => {
    const res = await t.api(t.platform, 'PATCH', `/cards/${cardId}`, { state: 'FROZEN' }, { 'service-wallet-signature': 'a', 'grid-wallet-signature': 'b' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toContain('INVALID_INPUT');
    expect(JSON.stringify(res.body)).toContain('service-wallet-signature');
  });
});
