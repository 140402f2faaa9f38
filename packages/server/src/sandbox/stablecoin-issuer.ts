import { createHash, randomInt } from 'node:crypto';
import type { CredentialVerdict, OperationReport, ProviderToken, StablecoinIssuer, SubmissionResult } from '../providers/stablecoin-issuer.js';
import { sparkAddress } from './funding-instructions.js';

/**
 * The sandbox's stablecoin provider: a stand-in for Brale that keeps no state and decides every
 * outcome from the request, so a walk-through and a test get the same answer every time.
 *
 * Credentials (the end of `apiClientSecret`, case-insensitive):
 *   `invalid`  refused when linked (400 STABLECOIN_PROVIDER_ACCOUNT_INVALID, nothing stored)
 *   `revoked`  linked, then reported revoked at the link's next periodic check (status REVOKED)
 *   `expires`  linked, then reported invalid at the link's next periodic check (status INVALID)
 * An `apiClientId` ending in `multi` reaches two provider accounts (`<id>A`, `<id>B`), so the link
 * must name one (`providerAccountId`); otherwise it reaches one account, derived from the client id.
 *
 * Tokens: any identifier of 2-12 upper-case letters and digits names a provisioned USD token with
 * 6 decimals ("<ID> Dollar"), except one starting with `UNKNOWN` (the provider has none) and one
 * ending in `REVIEW` (still PENDING_REVIEW at the provider).
 *
 * Operations, by the last three digits of the fiat value in the base currency's minor unit (an
 * amount of 10.05 USD, `10050000` at 6 decimals, ends in `005`):
 *   `002`  FAILED (PROVIDER_TRANSFER_FAILED) after processing
 *   `003`  the issuer's funds never arrive: a wire mint or an external-account burn EXPIRES at its expiresAt
 *   `005`  the provider is unavailable when the operation is submitted (503; nothing is created)
 *   else   COMPLETED: funds awaited from the issuer (wire, external-account burn) arrive 2 s after
 *          submission (PENDING_FUNDING until then); any other operation is accepted by the provider
 *          1 s after submission (PENDING_PROVIDER until then); then the provider processes for 2 s
 *          (PROCESSING) and the operation is final
 */
export const SANDBOX_FUNDS_ARRIVE_MS = 2_000;
export const SANDBOX_ACCEPTED_MS = 1_000;
export const SANDBOX_PROCESSING_MS = 2_000;
export const SANDBOX_FUNDING_WINDOW_MS = 3 * 24 * 60 * 60_000;

const TOKEN = /^[A-Z][A-Z0-9]{1,11}$/;

/** Sources for which the provider waits for the issuer to send something first. */
const AWAITS_FUNDS = new Set(['WIRE', 'EXTERNAL_ACCOUNT']);

function accountIdOf(clientId: string): string {
  return createHash('sha256').update(`sandbox-brale\n${clientId}`).digest('base64url').replace(/[-_]/g, '').slice(0, 27);
}

const suffix = (fiatAmount: bigint) => fiatAmount.toString().padStart(3, '0').slice(-3);

function digits(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
}

function verdict(clientId: string): CredentialVerdict {
  const base = accountIdOf(clientId);
  return { kind: 'verified', providerAccountIds: clientId.toLowerCase().endsWith('multi') ? [`${base}A`, `${base}B`] : [base] };
}

export const sandboxStablecoinIssuer: StablecoinIssuer = {
  name: 'sandbox',
  environment: 'SANDBOX',

  async verifyCredentials(_provider, { apiClientId, apiClientSecret }) {
    if (apiClientSecret.toLowerCase().endsWith('invalid')) return { kind: 'invalid', reason: 'The provider does not accept these API credentials' };
    return verdict(apiClientId);
  },

  async recheckCredentials(_provider, { apiClientId, apiClientSecret }) {
    const secret = apiClientSecret.toLowerCase();
    if (secret.endsWith('revoked')) return { kind: 'revoked' };
    if (secret.endsWith('expires') || secret.endsWith('invalid')) return { kind: 'invalid', reason: 'The provider no longer accepts these API credentials' };
    return verdict(apiClientId);
  },

  async token(_credentials, _providerAccountId, identifier): Promise<ProviderToken | undefined> {
    if (!TOKEN.test(identifier) || identifier.startsWith('UNKNOWN')) return undefined;
    return { name: `${identifier} Dollar`, symbol: identifier, baseCurrency: 'USD', decimals: 6, issuanceStatus: identifier.endsWith('REVIEW') ? 'PENDING_REVIEW' : 'PROVISIONED' };
  },

  async submit(_credentials, _providerAccountId, submission): Promise<SubmissionResult> {
    if (suffix(submission.fiatAmount) === '005') return { kind: 'unavailable' };
    const providerOperationId = `sbx_${createHash('sha256').update(submission.operationId).digest('hex').slice(0, 24)}`;
    if (!AWAITS_FUNDS.has(submission.sourceType)) return { kind: 'accepted', providerOperationId, providerStatus: 'pending', checkAfterMs: SANDBOX_ACCEPTED_MS };
    const fundingInstructions =
      submission.sourceType === 'WIRE'
        ? {
            rail: 'WIRE',
            accountType: 'US_ACCOUNT',
            bankName: 'Moneta Sandbox Bank',
            accountHolderName: 'Brale Inc. (sandbox)',
            routingNumber: '011000015',
            accountNumber: digits(10),
            reference: providerOperationId,
            amount: submission.fiatAmount.toString(),
            currency: submission.baseCurrency,
          }
        : { rail: 'SPARK', network: 'SPARK', address: sparkAddress(), valueType: submission.valueType, amount: submission.amount.toString() };
    return { kind: 'accepted', providerOperationId, providerStatus: 'awaiting_funds', fundingInstructions, expiresInMs: SANDBOX_FUNDING_WINDOW_MS, checkAfterMs: SANDBOX_FUNDS_ARRIVE_MS };
  },

  async report(_credentials, _providerAccountId, operation, now): Promise<OperationReport> {
    const { submission, submittedAt, expiresAt } = operation;
    const elapsed = now.getTime() - submittedAt.getTime();
    const awaits = AWAITS_FUNDS.has(submission.sourceType);
    const outcome = suffix(submission.fiatAmount);
    if (awaits && outcome === '003') {
      if (expiresAt && now >= expiresAt) return { status: 'EXPIRED', providerStatus: 'expired' };
      return { status: 'PENDING_FUNDING', providerStatus: 'awaiting_funds', checkAfterMs: expiresAt ? expiresAt.getTime() - now.getTime() : SANDBOX_FUNDING_WINDOW_MS };
    }
    const fundsAt = awaits ? SANDBOX_FUNDS_ARRIVE_MS : SANDBOX_ACCEPTED_MS;
    if (elapsed < fundsAt) return awaits ? { status: 'PENDING_FUNDING', providerStatus: 'awaiting_funds', checkAfterMs: fundsAt - elapsed } : { status: 'PENDING_PROVIDER', providerStatus: 'pending', checkAfterMs: fundsAt - elapsed };
    if (elapsed < fundsAt + SANDBOX_PROCESSING_MS) return { status: 'PROCESSING', providerStatus: 'processing', checkAfterMs: fundsAt + SANDBOX_PROCESSING_MS - elapsed };
    if (outcome === '002') return { status: 'FAILED', providerStatus: 'failed', failureReason: 'PROVIDER_TRANSFER_FAILED' };
    return { status: 'COMPLETED', providerStatus: 'complete' };
  },
};
