/**
 * What a customer create or update carries beyond its schema, checked and put in the one form the
 * customer record keeps: identification under today's names (the snapshot's accepted too),
 * end-user terms consent against the platform's versions, and a business's country.
 */
import { isIP } from 'node:net';
import type { ErrorObject } from 'ajv';
import { invalidInput, type FieldError } from '../../core/errors.js';
import type { CustomerId, PlatformId } from '../../core/ids.js';
import type { Executor } from '../../db/schema.js';
import type { EndUserTermsSettings } from '../platforms/service.js';
import { endUserTermsNotAccepted, endUserTermsVersionNotFound } from './errors.js';
import { toFieldErrors, validatorCompiler } from '../../http/validation.js';
import { CustomerCreateRequest, IDENTIFICATION_ALIASES } from './schemas.js';
import type { CustomerInput } from './service.js';

const checkCreateRequest = validatorCompiler({ schema: CustomerCreateRequest, httpPart: 'body', method: 'POST', url: '/customers' }) as ((body: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * What the validation of POST /customers's body finds wrong with a create request, every invalid
 * field at once (the same compiled schema the route's validator uses): for callers that build
 * requests themselves (the bulk CSV import), before `create` applies the rest of the rules.
 */
export function createRequestErrors(body: unknown): FieldError[] {
  return checkCreateRequest(body) ? [] : toFieldErrors(checkCreateRequest.errors ?? []);
}

export type EndUserTermsOf = (executor: Executor, platformId: PlatformId) => Promise<EndUserTermsSettings>;

/**
 * Today's identification names in place of the snapshot's (`taxIdType` -> `idType`, ...). Both
 * names of a field sent with different values are refused, each pair naming both fields.
 */
function withIdentificationNames(input: CustomerInput, errors: FieldError[]): CustomerInput {
  const out: CustomerInput = { ...input };
  for (const [today, earlier] of IDENTIFICATION_ALIASES) {
    const value = input[today];
    const old = input[earlier];
    delete out[earlier];
    if (old === undefined) continue;
    if (value !== undefined && value !== old) {
      const message = `${today} and ${earlier} are two names of one field and were sent with different values; send one of them`;
      errors.push({ field: today, message }, { field: earlier, message });
      continue;
    }
    out[today] = old;
  }
  return out;
}

interface ConsentInput {
  acceptedAt: string;
  ipAddress: string;
  termsVersion: string;
  acceptanceMethod: string;
}

/** The consent as the record keeps it (acceptedAt normalised to UTC), or undefined when none was sent. */
function withConsent(input: CustomerInput, errors: FieldError[]): CustomerInput {
  const consent = input.endUserTermsConsent as ConsentInput | undefined;
  if (consent === undefined) return input;
  if (isIP(consent.ipAddress) === 0) {
    errors.push({ field: 'endUserTermsConsent.ipAddress', constraint: { format: 'ip' }, message: 'ipAddress must be an IPv4 or IPv6 address' });
  }
  return { ...input, endUserTermsConsent: { ...consent, acceptedAt: new Date(consent.acceptedAt).toISOString() } };
}

/**
 * A business's country of incorporation on create: the one sent, else the one the snapshot's other
 * fields identify (the business's address country, then its region); 400 when none does.
 */
function withBusinessCountry(input: CustomerInput, errors: FieldError[]): CustomerInput {
  const info = input.businessInfo;
  if (input.customerType !== 'BUSINESS' || info === undefined || info.country !== undefined) return input;
  const address = input.address as { country?: string } | undefined;
  const country = address?.country ?? input.region;
  if (country === undefined) {
    errors.push({ field: 'businessInfo.country', constraint: { format: 'country-code' }, message: 'businessInfo.country is required (or send address.country or region, which identify it)' });
    return input;
  }
  return { ...input, businessInfo: { ...info, country } };
}

/**
 * Checks a create or update beyond its schema and returns it in the stored form: every invalid
 * field at once (400 INVALID_INPUT, with `extraErrors` the caller found), then the terms version
 * (400 END_USER_TERMS_VERSION_NOT_FOUND unless it is the platform's current or an earlier one).
 */
export async function prepareInput(
  endUserTerms: EndUserTermsOf,
  executor: Executor,
  platformId: PlatformId,
  input: CustomerInput,
  mode: 'create' | 'update',
  extraErrors: FieldError[] = [],
): Promise<CustomerInput> {
  const errors = [...extraErrors];
  let prepared = withIdentificationNames(input, errors);
  prepared = withConsent(prepared, errors);
  if (mode === 'create') prepared = withBusinessCountry(prepared, errors);
  if (errors.length > 0) throw invalidInput(errors);
  const consent = prepared.endUserTermsConsent as ConsentInput | undefined;
  if (consent !== undefined) {
    const terms = await endUserTerms(executor, platformId);
    const known = [terms.version, ...terms.previousVersions];
    if (!known.includes(consent.termsVersion)) throw endUserTermsVersionNotFound(consent.termsVersion, known);
  }
  return prepared;
}

/**
 * Where the platform requires end-user terms, refuses (403 END_USER_TERMS_NOT_ACCEPTED) a customer
 * whose recorded consent is not to the current version; a platform's own money (no customer) and
 * platforms that do not require terms pass.
 */
export async function requireEndUserTerms(endUserTerms: EndUserTermsOf, executor: Executor, platformId: PlatformId, customerId: CustomerId | null): Promise<void> {
  if (customerId === null) return;
  const terms = await endUserTerms(executor, platformId);
  if (!terms.isConsentRequired) return;
  const row = await executor.selectFrom('customers').select('profile').where('platform_id', '=', platformId).where('id', '=', customerId).executeTakeFirst();
  const accepted = (row?.profile.endUserTermsConsent as { termsVersion?: string } | undefined)?.termsVersion;
  if (accepted !== terms.version) throw endUserTermsNotAccepted(customerId, terms.version, accepted);
}
