import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../../test/harness.js';
import { WithStatus } from '../../http/idempotency.js';
import { createCustomerService, type ContactChangeApprover } from './service.js';

/**
 * The seam the wallet module plugs into: a contact change tied to a wallet's OTP credential
 * answers 202 with a payload to sign, and only the approved retry changes the record.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('contact changes that need a wallet signature', () => {
  it('answer 202 with the challenge and change nothing until the approver accepts the signed retry', async () => {
    const seen: unknown[] = [];
    const approver: ContactChangeApprover = async (_ctx, customer, patch, signature) => {
      seen.push({ customer: customer.id, email: patch.email, signature });
      return signature?.signature === 'signed' ? undefined : { payloadToSign: `{"email":"${String(patch.email)}"}`, requestId: 'Request:0', expiresAt: new Date(0).toISOString() };
    };
    const customers = createCustomerService({ db: t.database.db, sandbox: true, umaDomain: t.services.platforms.umaDomain, accounts: t.services.accounts, contactChangeApprover: approver });
    const run = <T>(work: (ctx: { tx: never; platformId: string; now: Date }) => Promise<T>) =>
      t.database.db.transaction().execute((tx) => work({ tx: tx as never, platformId: t.platform.id, now: new Date() }));

    const created = await run((ctx) => customers.create(ctx, { customerType: 'INDIVIDUAL', fullName: 'Wally Wallet', email: 'old@example.com' }));
    const first = await run((ctx) => customers.update(ctx, created.id, { customerType: 'INDIVIDUAL', email: 'new@example.com' }));
    expect(first).toBeInstanceOf(WithStatus);
    expect((first as WithStatus<{ payloadToSign: string }>).status).toBe(202);
    expect((await customers.get(t.platform.id, created.id)).email).toBe('old@example.com');

    const retry = await run((ctx) => customers.update(ctx, created.id, { customerType: 'INDIVIDUAL', email: 'new@example.com' }, { signature: 'signed', requestId: 'Request:0' }));
    expect(retry).toMatchObject({ email: 'new@example.com' });

    const nameOnly = await run((ctx) => customers.update(ctx, created.id, { customerType: 'INDIVIDUAL', fullName: 'Wally W.' }));
    expect(nameOnly).toMatchObject({ fullName: 'Wally W.' });
    expect(seen).toHaveLength(2);
  });
});
