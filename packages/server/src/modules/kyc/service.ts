import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import type { TxContext } from '../../http/idempotency.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { KycStatus } from '../customers/schemas.js';
import type { CustomerService, CustomerView } from '../customers/service.js';
import type { VerificationProvider, VerificationSubmission } from './provider.js';

export interface KycLinkView {
  kycUrl: string;
  expiresAt: string;
  provider: string;
}

/** What the hosted page shows for a link. */
export type HostedLinkState =
  | { state: 'unknown' }
  | { state: 'expired' | 'used' }
  | { state: 'open'; customer: CustomerView; expiresAt: Date };

export type SubmitOutcome =
  | { state: 'unknown' | 'expired' | 'used' }
  | { state: 'decided'; status: KycStatus; redirectUri: string | null; customer: CustomerView };

export type KycService = ReturnType<typeof createKycService>;

export function createKycService(deps: {
  db: Db;
  clock: Clock;
  customers: CustomerService;
  provider: VerificationProvider;
  publicUrl: string;
  linkTtlSeconds: number;
}) {
  const { db, clock, customers, provider } = deps;

  /** The shape of the tokens createLink issues; anything else cannot be a link (nothing to look up). */
  const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

  async function findLink(token: string) {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    return db.selectFrom('kyc_links').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
  }

  return {
    providerName: provider.name,

    /** Issues a single-use hosted verification link; only its hash is stored. */
    async createLink(ctx: TxContext, customerId: string, redirectUri: string | undefined): Promise<KycLinkView> {
      await customers.loadForUpdate(ctx.tx, ctx.platformId, customerId);
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(ctx.now.getTime() + deps.linkTtlSeconds * 1000);
      await ctx.tx
        .insertInto('kyc_links')
        .values({
          id: newId('KycLink'),
          platform_id: ctx.platformId,
          customer_id: customerId,
          token_hash: sha256Hex(token),
          redirect_uri: redirectUri ?? null,
          expires_at: expiresAt,
          created_at: ctx.now,
        })
        .execute();
      return { kycUrl: `${deps.publicUrl}/hosted/kyc/${token}`, expiresAt: expiresAt.toISOString(), provider: provider.name };
    },

    async open(token: string): Promise<HostedLinkState> {
      const link = await findLink(token);
      if (!link) return { state: 'unknown' };
      if (link.used_at) return { state: 'used' };
      if ((await clock.now(link.platform_id)) >= link.expires_at) return { state: 'expired' };
      try {
        return { state: 'open', customer: await customers.get(link.platform_id, link.customer_id), expiresAt: link.expires_at };
      } catch (error) {
        // The customer was deleted since the link was issued: the link leads nowhere.
        if (error instanceof AppError && error.status < 500) return { state: 'unknown' };
        throw error;
      }
    },

    /**
     * Takes the person's details, lets the provider decide, records the decision (and its event),
     * and uses up the link, all in one transaction.
     */
    async submit(token: string, submission: VerificationSubmission): Promise<SubmitOutcome> {
      const found = await findLink(token);
      if (!found) return { state: 'unknown' };
      const now = await clock.now(found.platform_id);
      return db.transaction().execute(async (tx): Promise<SubmitOutcome> => {
        const link = await tx.selectFrom('kyc_links').selectAll().where('id', '=', found.id).forUpdate().executeTakeFirstOrThrow();
        if (link.used_at) return { state: 'used' };
        if (now >= link.expires_at) return { state: 'expired' };
        const ctx: TxContext = { tx, platformId: link.platform_id, now };
        let row;
        try {
          row = await customers.loadForUpdate(tx, link.platform_id, link.customer_id);
        } catch (error) {
          // As on opening: a link to a customer deleted since is not valid.
          if (error instanceof AppError && error.status < 500) return { state: 'unknown' };
          throw error;
        }
        const status = row.kyc_status === 'APPROVED' ? 'APPROVED' : provider.decide(row.customer_type, submission);
        const customer = await customers.setVerificationStatus(ctx, row, status);
        await tx.updateTable('kyc_links').set({ used_at: now }).where('id', '=', link.id).execute();
        return { state: 'decided', status, redirectUri: link.redirect_uri, customer };
      });
    },

    /** Records a decision made outside the hosted flow (sandbox simulation, operator review). */
    async decide(ctx: TxContext, customerId: string, status: KycStatus): Promise<CustomerView> {
      const row = await customers.loadForUpdate(ctx.tx, ctx.platformId, customerId);
      return customers.setVerificationStatus(ctx, row, status);
    },
  };
}
