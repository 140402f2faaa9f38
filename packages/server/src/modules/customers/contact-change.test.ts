import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../../test/harness.js';
import { SignatureRequired } from '../../core/signature.js';
import { runUnitOfWork, type UnitOfWork } from '../../core/unit-of-work.js';
import { createGates, type Gate } from '../../core/gates.js';
import { createCustomerService } from './service.js';

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
    const approver: Gate<'customer.contactChange'> = async (_uow, { customer, patch, signature }) => {
      seen.push({ customer: customer.id, email: patch.email, signature });
      return signature?.signature === 'signed' ? undefined : { payloadToSign: `{"email":"${String(patch.email)}"}`, requestId: 'Request:0', expiresAt: new Date(0).toISOString() };
    };
    const gates = createGates();
    gates.add('test', { 'customer.contactChange': approver });
    const customers = createCustomerService({
      db: t.database.db,
      kyc: t.container.providers.kyc,
      umaDomain: (executor, platformId) => t.container.platforms.umaDomain(executor, platformId),
      endUserTerms: (executor, platformId) => t.container.platforms.endUserTerms(executor, platformId),
      ledger: t.container.ledger,
      reactions: t.container.reactions,
      gates,
    });
    const scope = () => ({ platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } as const });
    const run = <T>(work: (uow: UnitOfWork) => Promise<T>) => runUnitOfWork(t.database.db, scope(), work);

    const created = await run((uow) => customers.create(uow, { customerType: 'INDIVIDUAL', fullName: 'Wally Wallet', email: 'old@example.com' }));
    const first = await run((uow) => customers.update(uow, created.id, { customerType: 'INDIVIDUAL', email: 'new@example.com' }));
    expect(first).toBeInstanceOf(SignatureRequired);
    expect((first as SignatureRequired).challenge.payloadToSign).toBe('{"email":"new@example.com"}');
    expect((await customers.get(scope(), created.id)).email).toBe('old@example.com');

    const retry = await run((uow) => customers.update(uow, created.id, { customerType: 'INDIVIDUAL', email: 'new@example.com' }, { signature: 'signed', requestId: 'Request:0' }));
    expect(retry).toMatchObject({ email: 'new@example.com' });

    const nameOnly = await run((uow) => customers.update(uow, created.id, { customerType: 'INDIVIDUAL', fullName: 'Wally W.' }));
    expect(nameOnly).toMatchObject({ fullName: 'Wally W.' });
    expect(seen).toHaveLength(2);
  });
});
