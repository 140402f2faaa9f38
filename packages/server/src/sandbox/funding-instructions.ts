import { createECDH, randomBytes, randomInt } from 'node:crypto';
import { base58, bech32m } from '@scure/base';
import type { FundingInstructionRecord } from '../db/schema.js';
import { clabeCheckDigit, ibanCheckDigits, nubanCheckDigit } from '../lib/account-numbers/index.js';

const SANDBOX_BANK_CODE_NG = '058';
const SANDBOX_BANK_ADDRESS_US = '1 Sandbox Plaza, New York, NY 10004';

/**
 * Funding payment instructions of a sandbox account: where money would be sent to reach it. Bank
 * numbers carry valid check digits and wallet addresses valid encodings, so client-side validators
 * accept them; the reference must be quoted in the transfer memo, and the sandbox's simulated bank
 * transfer finds the account by it.
 */
export function fundingInstructionsFor(currency: string, reference: string, holderName: string): FundingInstructionRecord[] {
  const notes = `Quote the reference ${reference} in the transfer memo so the funds reach this account.`;
  const bank = (info: FundingInstructionRecord['accountOrWalletInfo']) => [{ instructionsNotes: notes, accountOrWalletInfo: info }];
  const wallet = (info: FundingInstructionRecord['accountOrWalletInfo']) => [{ accountOrWalletInfo: info }];
  switch (currency) {
    case 'USD':
      return bank({
        accountType: 'US_ACCOUNT',
        reference,
        accountNumber: digits(10),
        routingNumber: '011000015',
        accountHolderName: holderName,
        bankName: 'Moneta Sandbox Bank',
        bankAddress: SANDBOX_BANK_ADDRESS_US,
        paymentRails: ['ACH', 'WIRE', 'RTP'],
      });
    case 'MXN': {
      const first17 = '646180' + digits(11);
      return bank({ accountType: 'CLABE', clabeNumber: first17 + String(clabeCheckDigit(first17)), bankName: 'Moneta Sandbox (STP)', reference, paymentRails: ['SPEI'] });
    }
    case 'EUR': {
      const bban = '37040044' + digits(10);
      return bank({ accountType: 'EUR_ACCOUNT', iban: `DE${ibanCheckDigits('DE', bban)}${bban}`, swiftCode: 'MONTDEFFXXX', reference, paymentRails: ['SEPA', 'SEPA_INSTANT'] });
    }
    case 'GBP':
      return bank({ accountType: 'GBP_ACCOUNT', sortCode: '040004', accountNumber: digits(8), reference, paymentRails: ['FASTER_PAYMENTS'] });
    case 'CAD':
      return bank({ accountType: 'CAD_ACCOUNT', bankCode: '001', branchCode: '00011', accountNumber: digits(7), reference, paymentRails: ['BANK_TRANSFER'] });
    case 'NGN': {
      const serial = digits(9);
      return bank({ accountType: 'NGN_ACCOUNT', accountNumber: serial + String(nubanCheckDigit(SANDBOX_BANK_CODE_NG, serial)), bankName: 'Moneta Sandbox Bank', reference, paymentRails: ['BANK_TRANSFER'] });
    }
    // No local rail in the sandbox: a SWIFT wire to the account, attributed by its account number.
    case 'JPY':
      return bank({
        accountType: 'SWIFT_ACCOUNT',
        swiftCode: 'MONTJPJTXXX',
        bankName: 'Moneta Sandbox Bank Tokyo',
        country: 'JP',
        accountNumber: digits(10),
        accountHolderName: holderName,
        bankAddress: '1-1 Marunouchi, Chiyoda-ku, Tokyo 100-0005',
        reference,
        paymentRails: ['SWIFT'],
      });
    case 'USDC':
      return wallet({ accountType: 'SOLANA_WALLET', assetType: 'USDC', address: base58.encode(randomBytes(32)) });
    case 'USDB':
    case 'BTC':
      return wallet({ accountType: 'SPARK_WALLET', assetType: currency, address: sparkAddress() });
    default:
      return [];
  }
}

function digits(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
}

/** A regtest Spark address: bech32m of the protobuf field carrying a fresh 33-byte identity key. */
export function sparkAddress(): string {
  const key = createECDH('secp256k1');
  key.generateKeys();
  const payload = Buffer.concat([Buffer.from([0x0a, 0x21]), key.getPublicKey(undefined, 'compressed')]);
  return bech32m.encode('sparkrt', bech32m.toWords(payload), 1024);
}
