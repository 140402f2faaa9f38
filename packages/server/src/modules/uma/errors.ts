import { defineError } from '../../core/errors.js';

/**
 * What a UMA lookup or payment can answer. The 424s and most 400s are the counterparty's doing: the
 * other VASP could not be reached, answered what we cannot read, or signed what does not verify.
 */

export const invalidUmaAddress = defineError(
  { status: 400, code: 'INVALID_UMA_ADDRESS', description: 'The UMA address is not of the form $user@domain' },
  (address: string) => ({ message: 'The UMA address must look like $user@domain', details: { umaAddress: address } }),
);

export const umaNotFound = defineError(
  { status: 404, code: 'UMA_NOT_FOUND', description: 'The address is well formed but the counterparty has no receiver of that name' },
  (address: string) => ({ message: 'No receiver has this UMA address', details: { umaAddress: address } }),
);

export const lookupNotFound = defineError(
  { status: 404, code: 'LOOKUP_REQUEST_NOT_FOUND', description: 'No lookup of this platform has the id (or it expired)' },
  (lookupId: string) => ({ message: 'Lookup not found (it may have expired): look the address up again', details: { lookupId } }),
);

export const senderNotAccepted = defineError(
  { status: 400, code: 'SENDER_NOT_ACCEPTED', description: 'The counterparty refused the sender (its own rules, or the sender is not an UMA address it can verify)' },
  (reason: string) => ({ message: `The receiving VASP does not accept this sender: ${reason}`, details: { counterpartyReason: reason } }),
);

export const certChainInvalid = defineError(
  { status: 400, code: 'CERT_CHAIN_INVALID', reason: 'SIGNATURE_INVALID', description: 'The counterparty’s message does not verify with the keys it publishes at /.well-known/lnurlpubkey' },
  (what: string) => ({ message: `The counterparty's ${what} is not signed by the keys it publishes`, details: { message: what } }),
);

export const invalidPubkeyFormat = defineError(
  { status: 400, code: 'INVALID_PUBKEY_FORMAT', description: 'The counterparty publishes keys that are not secp256k1 public keys' },
  () => ({ message: 'The counterparty publishes keys in a format that cannot be read' }),
);

export const invalidNonce = defineError(
  { status: 400, code: 'INVALID_NONCE', description: 'The counterparty’s message reuses a nonce already seen (a replay)' },
  (what: string) => ({ message: `The counterparty's ${what} reuses a nonce already seen`, details: { message: what } }),
);

export const invalidTimestamp = defineError(
  { status: 400, code: 'INVALID_TIMESTAMP', description: 'The counterparty’s message is signed too far from now (more than 5 minutes)' },
  (what: string, timestamp: number) => ({ message: `The counterparty's ${what} is signed too far from now`, details: { message: what, timestamp } }),
);

export const parseLnurlpResponseError = defineError(
  { status: 400, code: 'PARSE_LNURLP_RESPONSE_ERROR', description: 'The counterparty answered the lookup with something that is not an UMA LNURL-p response' },
  (why: string) => ({ message: 'The counterparty answered the lookup with something that cannot be read', details: { why } }),
);

export const parsePayreqResponseError = defineError(
  { status: 400, code: 'PARSE_PAYREQ_RESPONSE_ERROR', description: 'The counterparty answered the pay request with something that is not an UMA pay request response' },
  (why: string) => ({ message: 'The counterparty answered the pay request with something that cannot be read', details: { why } }),
);

export const invalidPayreqResponse = defineError(
  { status: 400, code: 'INVALID_PAYREQ_RESPONSE', description: 'The counterparty’s pay request response does not match what was asked (currency, amount)' },
  (why: string) => ({ message: `The counterparty's pay request response does not match the request: ${why}`, details: { why } }),
);

export const amountOutOfRange = defineError(
  { status: 400, code: 'AMOUNT_OUT_OF_RANGE', reason: 'UMA_RECEIVER_LIMITS', description: 'The amount is outside what the receiver accepts in that currency (its lookup’s min and max)' },
  (amount: bigint, min: bigint, max: bigint, currency: string) => ({
    message: `The receiver accepts between ${min} and ${max} ${currency} minor units`,
    details: { amount: amount.toString(), min: min.toString(), max: max.toString(), currency },
  }),
);

export const umaCurrencyNotAccepted = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'NOT_ACCEPTED_BY_RECEIVER', description: 'The receiver does not accept this currency (see the lookup’s supportedCurrencies)' },
  (currency: string, accepted: string[]) => ({ message: `The receiver does not accept ${currency}`, details: { currency, accepted } }),
);

export const umaSelfPayment = defineError(
  { status: 400, code: 'SELF_PAYMENT', reason: 'UMA_SELF_PAYMENT', description: 'The sender and the receiver are the same UMA address' },
  (address: string) => ({ message: 'A customer cannot pay its own UMA address', details: { umaAddress: address } }),
);

export const senderHasNoUmaAddress = defineError(
  { status: 400, code: 'MISSING_REQUIRED_UMA_PARAMETERS', reason: 'NO_SENDER', description: 'A UMA payment needs a sending customer (source.customerId or an account a customer holds)' },
  () => ({ message: 'A UMA payment is sent by a customer: pay from a customer’s account' }),
);

export const lnurlpRequestFailed = defineError(
  { status: 424, code: 'LNURLP_REQUEST_FAILED', description: 'The counterparty could not be reached for the lookup, or answered it with an error' },
  (domain: string, why: string) => ({ message: `The lookup at ${domain} failed: ${why}`, details: { domain, why } }),
);

export const payreqRequestFailed = defineError(
  { status: 424, code: 'PAYREQ_REQUEST_FAILED', description: 'The counterparty could not be reached for the pay request, or answered it with an error' },
  (domain: string, why: string) => ({ message: `The pay request to ${domain} failed: ${why}`, details: { domain, why } }),
);

export const pubkeyFetchError = defineError(
  { status: 424, code: 'COUNTERPARTY_PUBKEY_FETCH_ERROR', description: 'The counterparty’s /.well-known/lnurlpubkey could not be fetched or read' },
  (domain: string, why: string) => ({ message: `The public keys of ${domain} could not be fetched: ${why}`, details: { domain, why } }),
);

export const noCompatibleUmaVersion = defineError(
  { status: 424, code: 'NO_COMPATIBLE_UMA_VERSION', description: 'The counterparty speaks no UMA version we speak (we speak 1.x)' },
  (theirs: string) => ({ message: `The counterparty speaks UMA ${theirs}; we speak 1.x`, details: { counterpartyVersion: theirs } }),
);

export const unsupportedUmaVersion = defineError(
  { status: 412, code: 'UNSUPPORTED_UMA_VERSION', description: 'The counterparty does not support our UMA version (it answered 412)' },
  (supported: unknown) => ({ message: 'The counterparty does not support our UMA version', details: { supportedMajorVersions: supported } }),
);

export const UMA_ERRORS = [
  invalidUmaAddress,
  umaNotFound,
  lookupNotFound,
  senderNotAccepted,
  certChainInvalid,
  invalidPubkeyFormat,
  invalidNonce,
  invalidTimestamp,
  parseLnurlpResponseError,
  parsePayreqResponseError,
  invalidPayreqResponse,
  amountOutOfRange,
  umaCurrencyNotAccepted,
  umaSelfPayment,
  senderHasNoUmaAddress,
  lnurlpRequestFailed,
  payreqRequestFailed,
  pubkeyFetchError,
  noCompatibleUmaVersion,
  unsupportedUmaVersion,
];

/** What a lookup can answer, and a quote to a UMA address beyond it. */
export const LOOKUP_ERRORS = [invalidUmaAddress, umaNotFound, senderNotAccepted, certChainInvalid, invalidPubkeyFormat, invalidNonce, invalidTimestamp, parseLnurlpResponseError, lnurlpRequestFailed, pubkeyFetchError, noCompatibleUmaVersion, unsupportedUmaVersion, umaSelfPayment];
export const PAY_ERRORS = [...LOOKUP_ERRORS, lookupNotFound, parsePayreqResponseError, invalidPayreqResponse, amountOutOfRange, umaCurrencyNotAccepted, senderHasNoUmaAddress, payreqRequestFailed];
