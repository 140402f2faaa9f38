import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Db, Executor } from '../../db/schema.js';
import type { CustomerId, PlatformId } from '../../core/ids.js';
import { notImplemented, type DomainError } from '../../core/errors.js';
import { runUnitOfWork, type Scope } from '../../core/unit-of-work.js';
import { MessagingNotConfigured, type Messenger } from '../../providers/messenger.js';
import type { CustomerRow, CustomerService, CustomerView } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import { alreadyVerified, attemptsExceeded, codeExpired, codeInvalid, contactMissing, deliveryFailed, verificationNotRequired } from './errors.js';
import { requiredChannels, type Channel } from './regions.js';
import type { ContactVerificationsTable } from './tables.js';
import type { Selectable } from 'kysely';

type VerificationRow = Selectable<ContactVerificationsTable>;

/** How verification codes are made: random in production; the reference's fixed code in the sandbox. */
export interface ContactCodes {
  issue(): string;
  /** Fixed codes also taken for a live code (the sandbox's); none in production. */
  readonly alsoAccepted: readonly string[];
}

/** Six random digits. */
export const randomContactCodes: ContactCodes = {
  issue: () => String(randomInt(0, 1_000_000)).padStart(6, '0'),
  alsoAccepted: [],
};

export interface ContactVerificationSettings {
  /** How long a sent code works. */
  codeLifetimeSeconds: number;
  /** Wrong codes a sent code takes before it stops working. */
  maxAttempts: number;
}

export const DEFAULT_SETTINGS: ContactVerificationSettings = { codeLifetimeSeconds: 600, maxAttempts: 5 };

export interface ContactVerificationView {
  email?: 'PENDING' | 'VERIFIED';
  phone?: 'PENDING' | 'VERIFIED';
}

function codeHash(salt: string, code: string): string {
  return createHmac('sha256', salt).update(code.trim()).digest('hex');
}

function codeMatches(salt: string, code: string, stored: string): boolean {
  const given = Buffer.from(codeHash(salt, code), 'hex');
  const expected = Buffer.from(stored, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const contactOf = (row: CustomerRow, channel: Channel): string | null => (channel === 'EMAIL' ? row.email : row.phone_number);
const keyOf = (channel: Channel): keyof ContactVerificationView => (channel === 'EMAIL' ? 'email' : 'phone');

/** A channel is VERIFIED while the contact verified is still the customer's current one. */
function statusOf(row: CustomerRow, channel: Channel, verification: VerificationRow | undefined): 'PENDING' | 'VERIFIED' {
  const contact = contactOf(row, channel);
  return contact !== null && verification?.verified_contact === contact ? 'VERIFIED' : 'PENDING';
}

export type ContactVerificationService = ReturnType<typeof createContactVerificationService>;

/** A new customer whose region requires contact verification starts with both channels PENDING. */
async function startContactVerification(
  customers: Pick<CustomerService, 'setContactVerification'>,
  executor: Executor,
  platformId: PlatformId,
  customer: { id: CustomerId; region: string | null },
): Promise<void> {
  const channels = requiredChannels(customer.region);
  if (channels.length === 0) return;
  await customers.setContactVerification(executor, platformId, customer.id, Object.fromEntries(channels.map((channel) => [keyOf(channel), 'PENDING'])));
}

export function createContactVerificationService(deps: {
  db: Db;
  customers: Pick<CustomerService, 'loadForUpdate' | 'findActive' | 'get' | 'setContactVerification'>;
  platforms: Pick<PlatformService, 'walletSettings'>;
  messenger: Messenger;
  codes: ContactCodes;
  settings: ContactVerificationSettings;
}) {
  const { db, customers, codes, settings } = deps;

  async function rowsOf(executor: Executor, platformId: PlatformId, customerId: CustomerId): Promise<VerificationRow[]> {
    return executor.selectFrom('contact_verifications').selectAll().where('platform_id', '=', platformId).where('customer_id', '=', customerId).execute();
  }

  /** The customer's contactVerification (undefined where the region requires none). */
  function viewOf(row: CustomerRow, verifications: readonly VerificationRow[]): ContactVerificationView | undefined {
    const channels = requiredChannels(row.region);
    if (channels.length === 0) return undefined;
    const view: ContactVerificationView = {};
    for (const channel of channels) view[keyOf(channel)] = statusOf(row, channel, verifications.find((v) => v.channel === channel));
    return view;
  }

  /** Writes the customer's contactVerification as the customers module shows it, from the verifications now stored. */
  async function record(executor: Executor, platformId: PlatformId, row: CustomerRow): Promise<void> {
    await customers.setContactVerification(executor, platformId, row.id, viewOf(row, await rowsOf(executor, platformId, row.id)) ?? null);
  }

  /** The checks both calls make first: the region requires the channel, there is a contact, it is not verified yet. */
  function requirePending(row: CustomerRow, channel: Channel, verification: VerificationRow | undefined): string {
    if (!requiredChannels(row.region).includes(channel)) throw verificationNotRequired(row.region);
    const contact = contactOf(row, channel);
    if (contact === null) throw contactMissing(channel);
    if (statusOf(row, channel, verification) === 'VERIFIED') throw alreadyVerified(channel);
    return contact;
  }

  async function lockVerification(executor: Executor, platformId: PlatformId, customerId: CustomerId, channel: Channel): Promise<VerificationRow | undefined> {
    return executor
      .selectFrom('contact_verifications')
      .selectAll()
      .where('platform_id', '=', platformId)
      .where('customer_id', '=', customerId)
      .where('channel', '=', channel)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Issues a fresh code (the earlier one stops working) and sends it once the issue is committed. */
  async function send(scope: Scope, customerId: CustomerId, channel: Channel): Promise<null> {
    const code = codes.issue();
    const salt = randomBytes(16).toString('hex');
    const contact = await runUnitOfWork(db, scope, async (uow) => {
      const row = await customers.loadForUpdate(uow.tx, uow.platformId, customerId);
      const to = requirePending(row, channel, await lockVerification(uow.tx, uow.platformId, customerId, channel));
      const issued = {
        code_salt: salt,
        code_hash: codeHash(salt, code),
        code_contact: to,
        code_expires_at: new Date(uow.now.getTime() + settings.codeLifetimeSeconds * 1000),
        attempts: 0,
        updated_at: uow.now,
      };
      await uow.tx
        .insertInto('contact_verifications')
        .values({ platform_id: uow.platformId, customer_id: customerId, channel, ...issued, created_at: uow.now })
        .onConflict((oc) => oc.columns(['platform_id', 'customer_id', 'channel']).doUpdateSet(issued))
        .execute();
      await record(uow.tx, uow.platformId, row); // a customer created before this module gets its state now
      return to;
    });
    try {
      await deliver(scope.platformId, channel, contact, code);
    } catch (error) {
      // Not delivered: the code is withdrawn (unless a newer send replaced it meanwhile), so none is live that nobody got.
      await db
        .updateTable('contact_verifications')
        .set({ code_hash: null, code_salt: null, code_contact: null, code_expires_at: null })
        .where('platform_id', '=', scope.platformId)
        .where('customer_id', '=', customerId)
        .where('channel', '=', channel)
        .where('code_salt', '=', salt)
        .execute();
      throw error;
    }
    return null;
  }

  async function deliver(platformId: PlatformId, channel: Channel, to: string, code: string): Promise<void> {
    const wallet = await deps.platforms.walletSettings(db, platformId);
    const message = { to, code, appName: wallet.appName, expiresInSeconds: settings.codeLifetimeSeconds, sender: wallet.sender };
    try {
      if (channel === 'EMAIL') await deps.messenger.sendEmailCode(message);
      else await deps.messenger.sendSmsCode(message);
    } catch (error) {
      if (error instanceof MessagingNotConfigured) {
        throw notImplemented(`This installation cannot send verification codes by ${channel === 'EMAIL' ? 'email' : 'SMS'}`, channel === 'EMAIL' ? 'MONETA_SMTP_URL' : 'MONETA_SMS_URL');
      }
      throw deliveryFailed(channel);
    }
  }

  /**
   * Checks a code against the live one. A wrong code counts (committed even though the call fails),
   * the right one verifies the contact and is used up; either way a code is judged once.
   */
  async function confirm(scope: Scope, customerId: CustomerId, channel: Channel, code: string): Promise<CustomerView> {
    const refusal = await runUnitOfWork(db, scope, async (uow): Promise<DomainError | undefined> => {
      const row = await customers.loadForUpdate(uow.tx, uow.platformId, customerId);
      const verification = await lockVerification(uow.tx, uow.platformId, customerId, channel);
      const contact = requirePending(row, channel, verification);
      if (!verification?.code_hash || !verification.code_salt || !verification.code_expires_at) return codeExpired();
      if (verification.code_contact !== contact || uow.now >= verification.code_expires_at) return codeExpired();
      if (verification.attempts >= settings.maxAttempts) return attemptsExceeded(settings.maxAttempts);
      const right = codeMatches(verification.code_salt, code, verification.code_hash) || codes.alsoAccepted.includes(code.trim());
      const update = uow.tx
        .updateTable('contact_verifications')
        .where('platform_id', '=', uow.platformId)
        .where('customer_id', '=', customerId)
        .where('channel', '=', channel);
      if (!right) {
        await update.set({ attempts: verification.attempts + 1, updated_at: uow.now }).execute();
        return codeInvalid(settings.maxAttempts - verification.attempts - 1);
      }
      await update
        .set({ verified_contact: contact, verified_at: uow.now, code_hash: null, code_salt: null, code_contact: null, code_expires_at: null, attempts: 0, updated_at: uow.now })
        .execute();
      await record(uow.tx, uow.platformId, row);
      return undefined;
    });
    if (refusal) throw refusal;
    // The customer as customers shows it: with contactVerification where its region requires one.
    return customers.get(scope, customerId);
  }


  return {
    send,
    confirm,
    customerCreated: (executor: Executor, platformId: PlatformId, customer: { id: CustomerId; region: string | null }) => startContactVerification(customers, executor, platformId, customer),

    /** The `kyc.link` gate: the channels the customer's region requires that are not VERIFIED (none: it may begin KYC). */
    async unverifiedChannels(executor: Executor, platformId: PlatformId, customerId: CustomerId): Promise<Channel[]> {
      const row = await customers.findActive(executor, platformId, { id: customerId });
      if (!row) return [];
      const verifications = await rowsOf(executor, platformId, customerId);
      return requiredChannels(row.region).filter((channel) => statusOf(row, channel, verifications.find((v) => v.channel === channel)) !== 'VERIFIED');
    },
  };
}
