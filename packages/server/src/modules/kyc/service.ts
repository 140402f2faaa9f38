import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/schema.js';
import { DomainError } from '../../core/errors.js';
import { newId, type CustomerId } from '../../core/ids.js';
import { runUnitOfWork, type Scope, type UnitOfWork } from '../../core/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { CustomerKind, KycProvider, VerificationSubmission } from '../../providers/kyc-provider.js';
import type { KycStatus } from '../customers/schemas.js';
import type { CustomerService, CustomerView } from '../customers/service.js';
import type { Gates } from '../../core/gates.js';
import { contactVerificationRequired } from './errors.js';

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /**
     * Before a KYC link is issued: the contacts the customer must still verify (the
     * contact-verification module answers for EEA customers); any named refuses the link (409).
     */
    'kyc.link': { subject: { customerId: CustomerId }; verdict: readonly string[] };
  }
}

export interface KycLinkView {
  kycUrl: string;
  expiresAt: string;
  provider: string;
}

/** What the hosted page shows for a link. */
export type HostedLinkState =
  | { state: 'unknown' }
  | { state: 'expired' | 'used' }
  /** `prefill`: what the form starts with (see `prefillFor`). */
  | { state: 'open'; customer: CustomerView; expiresAt: Date; prefill: VerificationSubmission };

export type SubmitOutcome =
  | { state: 'unknown' | 'expired' | 'used' }
  | { state: 'decided'; status: KycStatus; redirectUri: string | null; customer: CustomerView }
  /** The provider could not decide on these details: nothing was recorded and the link is still usable. */
  | { state: 'undecided'; customerType: CustomerKind };

export type KycService = ReturnType<typeof createKycService>;

export function createKycService(deps: {
  db: Db;
  clock: Clock;
  customers: CustomerService;
  provider: Pick<KycProvider, 'name' | 'decide' | 'verifiedDetails'>;
  publicUrl: string;
  linkTtlSeconds: number;
  gates: Pick<Gates, 'of'>;
}) {
  const { db, clock, customers, provider } = deps;

  /**
   * The details the form starts with: what the platform sent. The one field the provider decides on
   * (full name, registration number) is left out when, as sent, it would decide nothing (the
   * sandbox's `003`): the first submit should get a decision, not repeat the undecided one.
   */
  function prefillFor(customer: CustomerView): VerificationSubmission {
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    if (customer.customerType === 'BUSINESS') {
      const info = (customer.businessInfo ?? {}) as Record<string, unknown>;
      const values = { legalName: text(info.legalName), registrationNumber: text(info.registrationNumber) };
      return provider.decide('BUSINESS', values) === 'UNVERIFIED' ? { legalName: values.legalName } : values;
    }
    const values = { fullName: text(customer.fullName), birthDate: text(customer.birthDate), nationality: text(customer.nationality) };
    return provider.decide('INDIVIDUAL', values) === 'UNVERIFIED' ? { birthDate: values.birthDate, nationality: values.nationality } : values;
  }

  /** The shape of the tokens createLink issues; anything else cannot be a link (nothing to look up). */
  const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

  async function findLink(token: string) {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    return db.selectFrom('kyc_links').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
  }

  /** Issues a single-use hosted verification link; only its hash is stored. */
  async function createLink(uow: UnitOfWork, customerId: CustomerId, redirectUri: string | undefined, store = true): Promise<KycLinkView> {
    await customers.loadForUpdate(uow.tx, uow.platformId, customerId);
    // Where the customer's region requires verified contacts, KYC waits for them.
    for (const gate of deps.gates.of('kyc.link')) {
      const unverified = await gate(uow, { customerId });
      if (unverified.length > 0) throw contactVerificationRequired(unverified);
    }
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(uow.now.getTime() + deps.linkTtlSeconds * 1000);
    if (store) await uow.tx
      .insertInto('kyc_links')
      .values({
        id: newId('KycLink'),
        platform_id: uow.platformId,
        customer_id: customerId,
        token_hash: sha256Hex(token),
        redirect_uri: redirectUri ?? null,
        expires_at: expiresAt,
        created_at: uow.now,
      })
      .execute();
    return { kycUrl: `${deps.publicUrl}/hosted/kyc/${token}`, expiresAt: expiresAt.toISOString(), provider: provider.name };
  }

  return {
    providerName: provider.name,
    createLink,

    /**
     * The same, for the older GET alias (a read route, so it opens its own unit of work). `store:
     * false` (a HEAD request) answers as a GET would and issues nothing: its link was never stored.
     */
    createLinkFor: (scope: Scope, customerId: CustomerId, redirectUri: string | undefined, store = true): Promise<KycLinkView> =>
      runUnitOfWork(db, scope, (uow) => createLink(uow, customerId, redirectUri, store)),

    async open(token: string): Promise<HostedLinkState> {
      const link = await findLink(token);
      if (!link) return { state: 'unknown' };
      if (link.used_at) return { state: 'used' };
      if ((await clock.now(link.platform_id)) >= link.expires_at) return { state: 'expired' };
      try {
        const scope = { platformId: link.platform_id, now: await clock.now(link.platform_id), actor: { type: 'HOSTED_PAGE' } as const };
        const customer = await customers.get(scope, link.customer_id);
        return { state: 'open', customer, expiresAt: link.expires_at, prefill: prefillFor(customer) };
      } catch (error) {
        // The customer was deleted since the link was issued: the link leads nowhere.
        if (error instanceof DomainError && error.status < 500) return { state: 'unknown' };
        throw error;
      }
    },

    /**
     * Takes the person's details, lets the provider decide, records the decision (and its event),
     * and uses up the link, all in one transaction. Details the provider cannot decide on (it
     * answers UNVERIFIED) record nothing and leave the link usable, so the person can correct them.
     */
    async submit(token: string, submission: VerificationSubmission): Promise<SubmitOutcome> {
      const found = await findLink(token);
      if (!found) return { state: 'unknown' };
      const now = await clock.now(found.platform_id);
      return runUnitOfWork(db, { platformId: found.platform_id, now, actor: { type: 'HOSTED_PAGE' } }, async (uow): Promise<SubmitOutcome> => {
        const link = await uow.tx.selectFrom('kyc_links').selectAll().where('id', '=', found.id).forNoKeyUpdate().executeTakeFirstOrThrow();
        if (link.used_at) return { state: 'used' };
        if (now >= link.expires_at) return { state: 'expired' };
        let row;
        try {
          row = await customers.loadForUpdate(uow.tx, link.platform_id, link.customer_id);
        } catch (error) {
          // As on opening: a link to a customer deleted since is not valid.
          if (error instanceof DomainError && error.status < 500) return { state: 'unknown' };
          throw error;
        }
        // An approved customer stays approved, and its verified details as they were.
        const alreadyApproved = row.kyc_status === 'APPROVED';
        const status = alreadyApproved ? 'APPROVED' : provider.decide(row.customer_type, submission);
        if (status === 'UNVERIFIED') return { state: 'undecided', customerType: row.customer_type };
        const verified = alreadyApproved ? row : await customers.recordVerifiedDetails(uow, row, provider.verifiedDetails(submission));
        const customer = await customers.setVerificationStatus(uow, verified, status);
        await uow.tx.updateTable('kyc_links').set({ used_at: now }).where('id', '=', link.id).execute();
        return { state: 'decided', status, redirectUri: link.redirect_uri, customer };
      });
    },

    /** Records a decision made outside the hosted flow (sandbox simulation, operator review). */
    async decide(uow: UnitOfWork, customerId: CustomerId, status: KycStatus): Promise<CustomerView> {
      const row = await customers.loadForUpdate(uow.tx, uow.platformId, customerId);
      return customers.setVerificationStatus(uow, row, status);
    },
  };
}
