/**
 * The uma module's tables: the platform's signing keys, the nonces seen from counterparties, lookups
 * a quote may use, what this instance owes another (outgoing) and what another owes it (incoming).
 */
import type { ColumnType } from 'kysely';
import type { CustomerId, InternalAccountId, PlatformId, QuoteId, TransactionId } from '../../core/ids.js';
import type { Timestamp } from '../../db/schema.js';
import type { UmaPaymentId } from './ids.js';

export interface UmaKeysTable {
  platform_id: PlatformId;
  /** secp256k1 private key, hex, sealed (lib/sealed.ts). Signs and, as UMA asks, decrypts travel-rule data. */
  private_key_sealed: string;
  /** Uncompressed secp256k1 public key, hex (published at /.well-known/lnurlpubkey). */
  public_key: string;
  created_at: Timestamp;
}

export interface UmaNoncesTable {
  platform_id: PlatformId;
  /** The counterparty that signed it. */
  vasp_domain: string;
  nonce: string;
  signed_at: Timestamp;
}

export type UmaOutgoingStatus = 'AWAITING_SETTLEMENT' | 'SETTLED' | 'REFUSED';

export interface UmaOutgoingTable {
  quote_id: QuoteId;
  platform_id: PlatformId;
  receiver_address: string;
  receiver_domain: string;
  /** The receiver's reference from its pay request response (its invoice): what the settlement names. */
  payment_reference: string;
  amount_minor: ColumnType<bigint, bigint, bigint>;
  currency: string;
  status: UmaOutgoingStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type UmaIncomingStatus = 'AWAITING_SETTLEMENT' | 'PENDING_APPROVAL' | 'COMPLETED' | 'REJECTED';

export interface UmaIncomingTable {
  id: UmaPaymentId;
  platform_id: PlatformId;
  customer_id: CustomerId;
  account_id: InternalAccountId;
  sender_address: string;
  sender_domain: string;
  amount_minor: ColumnType<bigint, bigint, bigint>;
  currency: string;
  status: UmaIncomingStatus;
  transaction_id: TransactionId | null;
  /** A payment awaiting the platform's approval is rejected when this passes. */
  decide_by: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.js' {
  interface Database {
    uma_keys: UmaKeysTable;
    uma_nonces: UmaNoncesTable;
    uma_outgoing: UmaOutgoingTable;
    uma_incoming: UmaIncomingTable;
  }
}
