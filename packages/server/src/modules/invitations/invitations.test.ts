import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { readInvitationSettings } from './settings.js';

interface Invitation {
  code: string;
  createdAt: string;
  claimedAt?: string;
  url: string;
  expiresAt?: string;
  inviterUma: string;
  inviteeUma?: string;
  status: string;
  firstName?: string;
  amountToSend?: { amount: number; currency: { code: string; decimals: number } };
}

let t: TestApp;
let p: TestPlatform;
beforeAll(async () => {
  t = await createTestApp();
  p = await t.newPlatform('Inviting platform');
  expect((await t.api(p, 'PATCH', '/config', { umaDomain: 'invites.example' })).status).toBe(200);
});
afterAll(async () => t?.close());

let serial = 0;
/** A customer of the platform with its own UMA address at the platform's domain. */
async function customer(who: TestPlatform = p, currencies: string[] = ['EUR']): Promise<{ id: string; umaAddress: string }> {
  serial += 1;
  const umaAddress = `$person${serial}@invites.example`;
  const res = await t.api<{ id: string; umaAddress: string }>(who, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Person ${serial}`, currencies, umaAddress });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function invite(body: Record<string, unknown>, who: TestPlatform = p) {
  return t.api<Invitation>(who, 'POST', '/invitations', body);
}

async function claimedEvents(code: string) {
  const rows = await t.database.db.selectFrom('events').select(['type', 'payload', 'platform_id']).where('type', '=', 'INVITATION.CLAIMED').execute();
  return rows.filter((r) => (r.payload.data as { code?: string }).code === code);
}

describe('invitations', () => {
  it('creates an invitation with a short random code, a claim URL, the first name and the amount in the inviter’s currency', async () => {
    const inviter = await customer();
    const res = await invite({ inviterUma: inviter.umaAddress, firstName: 'Ada', amountToSend: 12_550, expiresAt: '2099-09-01T14:30:00Z' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.code).toMatch(/^[0-9a-hjkmnp-tv-z]{12}$/);
    expect(res.body).toMatchObject({
      inviterUma: inviter.umaAddress,
      status: 'PENDING',
      firstName: 'Ada',
      expiresAt: '2099-09-01T14:30:00.000Z',
      url: `http://moneta.test/hosted/invitations/${res.body.code}`,
      amountToSend: { amount: 12_550, currency: { code: 'EUR', decimals: 2 } },
    });
    expect(res.body).not.toHaveProperty('inviteeUma');
    expect(res.body).not.toHaveProperty('claimedAt');

    const got = await t.api<Invitation>(p, 'GET', `/invitations/${res.body.code}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    // Codes are read in any case.
    expect((await t.api<Invitation>(p, 'GET', `/invitations/${res.body.code.toUpperCase()}`)).body).toEqual(res.body);
  });

  it('without an amount or an expiry has neither, and every code differs', async () => {
    const inviter = await customer();
    const codes = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await invite({ inviterUma: inviter.umaAddress });
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('amountToSend');
      expect(res.body).not.toHaveProperty('expiresAt');
      codes.add(res.body.code);
    }
    expect(codes.size).toBe(5);
  });

  it('refuses an inviter that is not a customer of the platform, a malformed address and an expiry in the past, all at once where they are fields', async () => {
    const stranger = await invite({ inviterUma: '$nobody@invites.example' });
    expect(errorOf(stranger)).toBe('INVALID_UMA_ADDRESS INVITER_NOT_A_CUSTOMER');

    const bad = await invite({ inviterUma: 'alice@invites.example', amountToSend: 0, expiresAt: 'tomorrow' });
    expect(bad.status).toBe(400);
    const fields = ((bad.body as unknown as { details: { errors: { field: string }[] } }).details.errors ?? []).map((e) => e.field).sort();
    expect(fields).toEqual(['amountToSend', 'expiresAt', 'inviterUma']);

    const inviter = await customer();
    const past = await invite({ inviterUma: inviter.umaAddress, expiresAt: '2001-01-01T00:00:00Z' });
    expect(errorOf(past)).toBe('INVALID_INPUT');
    // A customer of another platform cannot be named as the inviter.
    const other = await t.newPlatform('Other platform');
    expect(errorOf(await invite({ inviterUma: inviter.umaAddress }, other))).toBe('INVALID_UMA_ADDRESS INVITER_NOT_A_CUSTOMER');
  });

  it('is claimed once by another provider’s address: CLAIMED with the invitee and the time, and one INVITATION.CLAIMED webhook', async () => {
    const inviter = await customer();
    const created = (await invite({ inviterUma: inviter.umaAddress, amountToSend: 500 })).body;
    const claimed = await t.api<Invitation>(p, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$bob@other-wallet.example' });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body).toMatchObject({ code: created.code, status: 'CLAIMED', inviteeUma: '$bob@other-wallet.example', amountToSend: created.amountToSend });
    expect(Date.parse(claimed.body.claimedAt!)).toBeGreaterThanOrEqual(Date.parse(created.createdAt));
    expect((await t.api<Invitation>(p, 'GET', `/invitations/${created.code}`)).body).toEqual(claimed.body);

    const events = await claimedEvents(created.code);
    expect(events).toHaveLength(1);
    expect(events[0]!.platform_id).toBe(p.id);
    expect(events[0]!.payload.data).toEqual(claimed.body);

    const again = await t.api(p, 'POST', `/invitations/${created.code}/claim`, { inviteeUma: '$carol@other-wallet.example' });
    expect(errorOf(again)).toBe('INVITATION_ALREADY_CLAIMED');
    expect(errorOf(await t.api(p, 'POST', `/invitations/${created.code}/cancel`))).toBe('INVITATION_ALREADY_CLAIMED');
    expect((await t.api<Invitation>(p, 'GET', `/invitations/${created.code}`)).body.inviteeUma).toBe('$bob@other-wallet.example');
    expect(await claimedEvents(created.code)).toHaveLength(1);
  });

  it('claimed by an address at the platform’s own domain needs that address to be a customer’s, and never the inviter’s', async () => {
    const inviter = await customer();
    const invitee = await customer();
    const code = (await invite({ inviterUma: inviter.umaAddress })).body.code;

    expect(errorOf(await t.api(p, 'POST', `/invitations/${code}/claim`, { inviteeUma: '$ghost@invites.example' }))).toBe('UMA_NOT_FOUND INVITEE_NOT_A_CUSTOMER');
    expect(errorOf(await t.api(p, 'POST', `/invitations/${code}/claim`, { inviteeUma: inviter.umaAddress }))).toBe('INVALID_UMA_ADDRESS INVITEE_IS_INVITER');
    expect((await t.api<Invitation>(p, 'GET', `/invitations/${code}`)).body.status).toBe('PENDING');

    const claimed = await t.api<Invitation>(p, 'POST', `/invitations/${code}/claim`, { inviteeUma: invitee.umaAddress });
    expect(claimed.status).toBe(200);
    expect(claimed.body.inviteeUma).toBe(invitee.umaAddress);
    const row = await t.database.db.selectFrom('uma_invitations').select('invitee_customer_id').where('code', '=', code).executeTakeFirstOrThrow();
    expect(row.invitee_customer_id).toBe(invitee.id);
  });

  it('once cancelled cannot be claimed or cancelled again', async () => {
    const inviter = await customer();
    const code = (await invite({ inviterUma: inviter.umaAddress })).body.code;
    const cancelled = await t.api<Invitation>(p, 'POST', `/invitations/${code}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(errorOf(await t.api(p, 'POST', `/invitations/${code}/claim`, { inviteeUma: '$bob@other-wallet.example' }))).toBe('INVITATION_CANCELLED');
    expect(errorOf(await t.api(p, 'POST', `/invitations/${code}/cancel`))).toBe('INVITATION_CANCELLED');
    expect(await claimedEvents(code)).toHaveLength(0);
  });

  it('reads EXPIRED after its expiry on the platform’s clock, and is then neither claimed nor cancelled', async () => {
    const q = await t.newPlatform('Expiring platform');
    const inviter = await customer(q);
    const now = (await t.api<{ now: string }>(q, 'GET', '/sandbox/clock')).body.now;
    const expiresAt = new Date(Date.parse(now) + 3_600_000).toISOString();
    const code = (await invite({ inviterUma: inviter.umaAddress, expiresAt }, q)).body.code;
    expect((await t.api<Invitation>(q, 'GET', `/invitations/${code}`)).body.status).toBe('PENDING');
    expect((await t.api(q, 'POST', '/sandbox/clock/advance', { seconds: 3_601 })).status).toBe(200);
    expect((await t.api<Invitation>(q, 'GET', `/invitations/${code}`)).body.status).toBe('EXPIRED');
    expect(errorOf(await t.api(q, 'POST', `/invitations/${code}/claim`, { inviteeUma: '$bob@other-wallet.example' }))).toBe('EXPIRED INVITATION_EXPIRED');
    expect(errorOf(await t.api(q, 'POST', `/invitations/${code}/cancel`))).toBe('EXPIRED INVITATION_EXPIRED');
    expect(await claimedEvents(code)).toHaveLength(0);
  });

  it('claimed by 20 callers at once: exactly one wins, the others are told it was claimed, one webhook', async () => {
    const inviter = await customer();
    const code = (await invite({ inviterUma: inviter.umaAddress })).body.code;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.api<Invitation>(p, 'POST', `/invitations/${code}/claim`, { inviteeUma: `$racer${i}@other-wallet.example` })),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) expect(errorOf(loser)).toBe('INVITATION_ALREADY_CLAIMED');
    const stored = (await t.api<Invitation>(p, 'GET', `/invitations/${code}`)).body;
    expect(stored.inviteeUma).toBe(winners[0]!.body.inviteeUma);
    expect(await claimedEvents(code)).toHaveLength(1);
  });

  it('belong to their platform: another platform gets INVITATION_NOT_FOUND on every route and changes nothing', async () => {
    const inviter = await customer();
    const code = (await invite({ inviterUma: inviter.umaAddress })).body.code;
    const other = await t.newPlatform('Nosy platform');
    expect(errorOf(await t.api(other, 'GET', `/invitations/${code}`))).toBe('INVITATION_NOT_FOUND');
    expect(errorOf(await t.api(other, 'POST', `/invitations/${code}/claim`, { inviteeUma: '$bob@other-wallet.example' }))).toBe('INVITATION_NOT_FOUND');
    expect(errorOf(await t.api(other, 'POST', `/invitations/${code}/cancel`))).toBe('INVITATION_NOT_FOUND');
    expect((await t.api<Invitation>(p, 'GET', `/invitations/${code}`)).body.status).toBe('PENDING');
    expect(errorOf(await t.api(p, 'GET', '/invitations/zzzzzzzzzzzz'))).toBe('INVITATION_NOT_FOUND');
  });
});

describe('the invitation page (the default url)', () => {
  const form = (path: string, inviteeUma: string) =>
    t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ inviteeUma }).toString() });

  it('shows who invites and the amount, and claims for the address given, as the API does (webhook included)', async () => {
    const inviter = await customer();
    const created = (await invite({ inviterUma: inviter.umaAddress, firstName: 'Ada <b>', amountToSend: 12_550 })).body;
    const path = new URL(created.url).pathname;
    const shown = await t.app.inject({ method: 'GET', url: path });
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-security-policy']).toContain("default-src 'none'");
    expect(shown.body).toContain('Ada &lt;b&gt;');
    expect(shown.body).toContain('125.50 EUR');
    expect(shown.body).toContain('id="claim"');

    const malformed = await form(path, 'not an address');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('id="problem"');
    const self = await form(path, inviter.umaAddress);
    expect(self.statusCode).toBe(400);
    expect(self.body).toContain('cannot claim its own invitation');

    const claimed = await form(path, '$dora@other-wallet.example');
    expect(claimed.statusCode, claimed.body).toBe(200);
    expect(claimed.body).toContain('$dora@other-wallet.example');
    expect((await t.api<Invitation>(p, 'GET', `/invitations/${created.code}`)).body).toMatchObject({ status: 'CLAIMED', inviteeUma: '$dora@other-wallet.example' });
    expect(await claimedEvents(created.code)).toHaveLength(1);

    const after = await t.app.inject({ method: 'GET', url: path });
    expect(after.body).toContain('has been claimed');
    expect(after.body).not.toContain('id="claim"');
    expect((await form(path, '$eve@other-wallet.example')).statusCode).toBe(400);
  });

  it('answers 404 for a code that names nothing', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/hosted/invitations/zzzzzzzzzzzz' })).statusCode).toBe(404);
    expect((await form('/hosted/invitations/zzzzzzzzzzzz', '$x@y.example')).statusCode).toBe(404);
  });
});

describe('the claim URL setting', () => {
  it('MONETA_INVITATIONS_URL is an http(s) URL holding {code}; anything else stops the start', () => {
    expect(readInvitationSettings({})).toEqual({ urlTemplate: undefined });
    expect(readInvitationSettings({ MONETA_INVITATIONS_URL: 'https://pay.example.com/i/{code}' })).toEqual({ urlTemplate: 'https://pay.example.com/i/{code}' });
    expect(() => readInvitationSettings({ MONETA_INVITATIONS_URL: 'https://pay.example.com/i/' })).toThrow(/MONETA_INVITATIONS_URL/);
    expect(() => readInvitationSettings({ MONETA_INVITATIONS_URL: 'ftp://pay.example.com/{code}' })).toThrow(/MONETA_INVITATIONS_URL/);
  });

  it('links invitations to the operator’s claim page when set', async () => {
    const app = await createTestApp({ MONETA_INVITATIONS_URL: 'https://pay.example.com/i/{code}' });
    try {
      const res = await app.api<{ id: string; umaAddress: string }>(app.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Url Person', umaAddress: '$url.person@moneta.local' });
      const created = await app.api<Invitation>(app.platform, 'POST', '/invitations', { inviterUma: res.body.umaAddress });
      expect(created.body.url).toBe(`https://pay.example.com/i/${created.body.code}`);
    } finally {
      await app.close();
    }
  });
});
