/**
 * What the dashboard reads from the API: the fields its pages use, as the browser sees them after
 * lib.ts's parseJson (integers past 2^53 arrive as BigInt, so an amount is number or bigint).
 * The API's own schemas are the source of truth; these name only what the pages touch.
 */

export type Amount = number | bigint;

export interface Currency {
  code: string;
  decimals: number;
}

export interface CurrencyAmount {
  amount: Amount;
  currency: Currency;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount?: number;
}

export interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: unknown;
}

export interface Health {
  status: string;
  mode: string;
}

export interface Customer {
  id: string;
  customerType: 'INDIVIDUAL' | 'BUSINESS';
  platformCustomerId?: string;
  fullName?: string;
  businessInfo?: { legalName?: string };
  kycStatus?: string;
  kybStatus?: string;
  email?: string;
  region?: string;
  currencies?: string[];
  createdAt: string;
  updatedAt: string;
  isDeleted?: boolean;
}

export interface InternalAccount {
  id: string;
  customerId?: string;
  type: string;
  status: string;
  balance: CurrencyAmount;
  totalBalance: CurrencyAmount;
  fundingPaymentInstructions?: { accountOrWalletInfo?: { reference?: string } }[];
  createdAt: string;
}

export interface BalancePoint {
  at: string;
  balance: CurrencyAmount;
  totalBalance: CurrencyAmount;
}

export interface Card {
  id: string;
  brand: string;
  last4: string;
  state: string;
  cardholderId: string;
  platformCardId?: string;
  currency: string;
  expMonth: number;
  expYear: number;
  fundingSources: string[];
  createdAt: string;
}

export interface Transaction {
  id: string;
  type: 'INCOMING' | 'OUTGOING' | 'CARD';
  status: string;
  direction: 'CREDIT' | 'DEBIT';
  customerId?: string;
  sentAmount?: CurrencyAmount;
  receivedAmount?: CurrencyAmount;
  authorizedAmount?: CurrencyAmount;
  settledAmount?: CurrencyAmount;
  refundedAmount?: CurrencyAmount;
  merchant?: { descriptor: string; mcc?: string };
  cardId?: string;
  authorizedAt?: string;
  createdAt: string;
}

export interface DeliveryAttempt {
  attempt: number;
  startedAt: string;
  url: string;
  statusCode?: number;
  durationMs: number;
  error?: string;
  responseExcerpt?: string;
  nextAttemptAt?: string;
}

export interface WebhookEvent {
  id: string;
  type: string;
  deliveryStatus: string;
  attempts: number;
  attemptLog?: DeliveryAttempt[];
  timestamp: string;
  deliveredAt?: string;
  nextAttemptAt?: string;
  data: unknown;
}

export interface ApiToken {
  id: string;
  name: string;
  clientId: string;
  permissions: string[];
  createdAt: string;
}

export interface CreatedApiToken extends ApiToken {
  clientSecret: string;
}

export interface SandboxClock {
  now: string;
  offsetSeconds: number;
}
