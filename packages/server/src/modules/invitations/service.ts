import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { invalidInput } from '../../core/errors.js';
import type { Executor } from '../../db/schema.js';
import type { PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { currencyAmount, type CurrencyAmount } from '../../lib/money.js';
import type { CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import { invitationAlreadyClaimed, invitationCancelled, invitationExpired, invitationNotFound, inviteeNotFound, inviterNotACustomer, selfInvitation } from './errors.js';
import { INVITATION_CODE_LENGTH } from './schemas.js';
import type { UmaInvitationsTable } from './tables.js';

type Row = Selectable<UmaInvitationsTable>;

export type InvitationStatus = 'PENDING' | 'CLAIMED' | 'EXPIRED' | 'CANCELLED';

/** The reference's UmaInvitation. */
export interface InvitationView {
  code: string;
  createdAt: string;
  claimedAt?: string;
  url: string;
  expiresAt?: string;
  inviterUma: string;
  inviteeUma?: string;
  status: InvitationStatus;
  firstName?: string;
  amountToSend?: CurrencyAmount;
}

export interface InvitationInput {
  inviterUma: string;
  firstName?: string | undefined;
  amountToSend?: number | undefined;
  expiresAt?: string | undefined;
}

/** Crockford's base32, lower case: no I, L, O or U, so a code read aloud or retyped survives. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A fresh code: 12 characters, 60 random bits. */
export function newInvitationCode(): string {
  let bits = randomBytes(8).readBigUInt64BE();
  let code = '';
  for (let i = 0; i < INVITATION_CODE_LENGTH; i++) {
    code += ALPHABET[Number(bits & 31n)];
    bits >>= 5n;
  }
  return code;
}

/** The status a row shows at `now`: a pending invitation past its expiry is EXPIRED. */
export function statusAt(row: Pick<Row, 'status' | 'expires_at'>, now: Date): InvitationStatus {
  if (row.status === 'PENDING' && row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) return 'EXPIRED';
  return row.status as InvitationStatus;
}

function domainOf(umaAddress: string): string {
  return umaAddress.slice(umaAddress.lastIndexOf('@') + 1).toLowerCase();
}

export type InvitationService = ReturnType<typeof createInvitationService>;

export function createInvitationService(deps: {
  db: Executor;
  customers: Pick<CustomerService, 'findActive'>;
  platforms: Pick<PlatformService, 'umaDomain'>;
  /** The claim page of an invitation, by code. */
  urlOf: (code: string) => string;
}) {
  const { db, customers, platforms, urlOf } = deps;

  function view(row: Row, now: Date): InvitationView {
    return {
      code: row.code,
      createdAt: row.created_at.toISOString(),
      ...(row.claimed_at ? { claimedAt: row.claimed_at.toISOString() } : {}),
      url: urlOf(row.code),
      ...(row.expires_at ? { expiresAt: row.expires_at.toISOString() } : {}),
      inviterUma: row.inviter_uma,
      ...(row.invitee_uma !== null ? { inviteeUma: row.invitee_uma } : {}),
      status: statusAt(row, now),
      ...(row.first_name !== null ? { firstName: row.first_name } : {}),
      ...(row.amount_to_send_minor !== null && row.amount_currency !== null ? { amountToSend: currencyAmount(row.amount_to_send_minor, row.amount_currency) } : {}),
    };
  }

  async function find(executor: Executor, platformId: PlatformId, code: string, lock = false): Promise<Row> {
    let query = executor.selectFrom('uma_invitations').selectAll().where('platform_id', '=', platformId).where('code', '=', code.toLowerCase());
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw invitationNotFound();
    return row;
  }

  /** Refuses a change to an invitation that is no longer PENDING at `now`. */
  function requirePending(row: Row, now: Date): void {
    const status = statusAt(row, now);
    if (status === 'CLAIMED') throw invitationAlreadyClaimed(row.code);
    if (status === 'CANCELLED') throw invitationCancelled(row.code);
    if (status === 'EXPIRED') throw invitationExpired(row.code, row.expires_at!);
  }

  return {
    async create(uow: UnitOfWork, input: InvitationInput): Promise<InvitationView> {
      const expiresAt = input.expiresAt !== undefined ? new Date(input.expiresAt) : null;
      if (expiresAt && expiresAt.getTime() <= uow.now.getTime()) {
        throw invalidInput([{ field: 'expiresAt', message: `expiresAt must be after now (${uow.now.toISOString()})` }]);
      }
      const inviter = await customers.findActive(uow.tx, uow.platformId, { umaAddress: input.inviterUma });
      if (!inviter) throw inviterNotACustomer(input.inviterUma);
      // The amount is in the inviter's currency: the first it holds (USD for a customer that named none).
      const currency = input.amountToSend !== undefined ? (inviter.currencies[0] ?? 'USD') : null;
      // 60 random bits: a collision is all but impossible, and is simply drawn again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const row = await uow.tx
          .insertInto('uma_invitations')
          .values({
            code: newInvitationCode(),
            platform_id: uow.platformId,
            inviter_customer_id: inviter.id,
            inviter_uma: input.inviterUma,
            first_name: input.firstName ?? null,
            amount_to_send_minor: input.amountToSend !== undefined ? BigInt(input.amountToSend) : null,
            amount_currency: currency,
            expires_at: expiresAt,
            status: 'PENDING',
            created_at: uow.now,
            updated_at: uow.now,
          })
          .onConflict((oc) => oc.column('code').doNothing())
          .returningAll()
          .executeTakeFirst();
        if (row) return view(row, uow.now);
      }
      throw new Error('five invitation codes in a row were taken: the random source is broken');
    },

    async get(scope: Scope, code: string): Promise<InvitationView> {
      return view(await find(db, scope.platformId, code), scope.now);
    },

    /**
     * Records who claimed the invitation, once. An address at this platform's own UMA domain must be
     * one of its customers' (the one recorded as the invitee); another provider's address is taken
     * as given, to be paid through UMA. Concurrent claims queue on the row's lock: one wins.
     */
    async claim(uow: UnitOfWork, code: string, inviteeUma: string): Promise<InvitationView> {
      const row = await find(uow.tx, uow.platformId, code, true);
      requirePending(row, uow.now);
      if (inviteeUma.toLowerCase() === row.inviter_uma.toLowerCase()) throw selfInvitation(inviteeUma);
      let inviteeCustomerId = null;
      if (domainOf(inviteeUma) === (await platforms.umaDomain(uow.tx, uow.platformId)).toLowerCase()) {
        const invitee = await customers.findActive(uow.tx, uow.platformId, { umaAddress: inviteeUma });
        if (!invitee) throw inviteeNotFound(inviteeUma);
        if (invitee.id === row.inviter_customer_id) throw selfInvitation(inviteeUma);
        inviteeCustomerId = invitee.id;
      }
      const claimed = await uow.tx
        .updateTable('uma_invitations')
        .set({ status: 'CLAIMED', invitee_uma: inviteeUma, invitee_customer_id: inviteeCustomerId, claimed_at: uow.now, updated_at: uow.now })
        .where('platform_id', '=', uow.platformId)
        .where('code', '=', row.code)
        .where('status', '=', 'PENDING')
        .returningAll()
        .executeTakeFirstOrThrow();
      const claimedView = view(claimed, uow.now);
      uow.emit('INVITATION.CLAIMED', claimedView);
      return claimedView;
    },

    async cancel(uow: UnitOfWork, code: string): Promise<InvitationView> {
      const row = await find(uow.tx, uow.platformId, code, true);
      requirePending(row, uow.now);
      const cancelled = await uow.tx
        .updateTable('uma_invitations')
        .set({ status: 'CANCELLED', cancelled_at: uow.now, updated_at: uow.now })
        .where('platform_id', '=', uow.platformId)
        .where('code', '=', row.code)
        .where('status', '=', 'PENDING')
        .returningAll()
        .executeTakeFirstOrThrow();
      return view(cancelled, uow.now);
    },

    /** The platform an invitation belongs to, by its code alone (for its public page). */
    async platformOf(code: string): Promise<PlatformId | undefined> {
      const row = await db.selectFrom('uma_invitations').select('platform_id').where('code', '=', code.toLowerCase()).executeTakeFirst();
      return row?.platform_id;
    },

    /** An invitation by its code alone, for its public page (the code is the key); undefined when there is none. */
    async byCode(code: string, now: (platformId: PlatformId) => Promise<Date>): Promise<InvitationView | undefined> {
      const row = await db.selectFrom('uma_invitations').selectAll().where('code', '=', code.toLowerCase()).executeTakeFirst();
      return row ? view(row, await now(row.platform_id)) : undefined;
    },
  };
}
