import { describe, expect, it } from 'vitest';
import { validateClabe, validateIban, validateNuban, validateSolanaAddress, validateSparkAddress, validateAbaRoutingNumber } from '../lib/account-numbers/index.js';
import { fundingInstructionsFor } from './funding-instructions.js';

const info = (currency: string) => fundingInstructionsFor(currency, 'MNT0123456789', 'Jane Doe')[0]!.accountOrWalletInfo;

describe('sandbox funding instructions', () => {
  it('carry numbers and addresses that real validators accept, every time', () => {
    for (let i = 0; i < 50; i++) {
      expect(validateAbaRoutingNumber(String(info('USD').routingNumber)).ok).toBe(true);
      expect(validateClabe(String(info('MXN').clabeNumber)).ok).toBe(true);
      expect(validateIban(String(info('EUR').iban)).ok).toBe(true);
      expect(validateNuban(String(info('NGN').accountNumber), '058').ok).toBe(true);
      expect(validateSolanaAddress(String(info('USDC').address)).ok).toBe(true);
      expect(validateSparkAddress(String(info('USDB').address)).ok).toBe(true);
    }
  });

  it('bank instructions quote the reference and say to put it in the memo', () => {
    const [instruction] = fundingInstructionsFor('USD', 'MNT0123456789', 'Jane Doe');
    expect(instruction!.accountOrWalletInfo).toMatchObject({ accountType: 'US_ACCOUNT', reference: 'MNT0123456789', accountHolderName: 'Jane Doe' });
    expect(instruction!.instructionsNotes).toContain('MNT0123456789');
  });
});
