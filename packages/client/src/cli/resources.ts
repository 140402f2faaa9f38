import { getPath } from './fields.js';
import { formatAmount } from './money.js';
import { column, type Column } from './output.js';
import { CREATED_RANGE, field, PAGE, type OperationSpec, type ResourceSpec } from './spec.js';

/**
 * The API's resources as commands: one declarative table. Each entry is one real API call made
 * through the SDK client; `commands.ts` builds the commander tree from it.
 */

const CUSTOMER_FIELDS = [
  field('fullName', 'full name (the sandbox decides KYC from its last three characters)'),
  field('email', 'email address'),
  field('phoneNumber', 'phone number, E.164'),
  field('birthDate', 'YYYY-MM-DD'),
  field('nationality', 'ISO 3166 alpha-2'),
  field('currencies', 'comma-separated currency codes', { type: 'list' }),
  field('umaAddress', 'UMA address'),
] as const;

const CUSTOMER_COLUMNS = [
  column('id', 'id'),
  column('name', 'fullName', 'businessInfo.legalName'),
  column('type', 'customerType'),
  column('kyc', 'kycStatus', 'kybStatus'),
  column('email', 'email'),
  column('created', 'createdAt'),
];

const ACCOUNT_COLUMNS = [
  column('id', 'id'),
  column('customer', 'customerId'),
  column('type', 'type'),
  column('status', 'status'),
  column('balance', 'balance'),
  column('total balance', 'totalBalance'),
];

const TRANSACTION_COLUMNS = [
  column('id', 'id'),
  column('type', 'type'),
  column('status', 'status'),
  column('direction', 'direction'),
  column('amount', 'sentAmount', 'receivedAmount', 'authorizedAmount', 'settledAmount', 'amount'),
  column('customer', 'customerId'),
  column('created', 'createdAt'),
];

const CARD_COLUMNS = [
  column('id', 'id'),
  column('state', 'state'),
  column('brand', 'brand'),
  column('last4', 'last4'),
  column('currency', 'currency'),
  column('cardholder', 'cardholderId'),
  column('created', 'createdAt'),
];

function scaled(amountPath: string, currencyPath: string): (item: unknown) => string {
  return (item) => {
    const amount = getPath(item, amountPath.split('.'));
    const decimals = getPath(item, [...currencyPath.split('.'), 'decimals']);
    const code = getPath(item, [...currencyPath.split('.'), 'code']);
    if ((typeof amount !== 'number' && typeof amount !== 'string') || typeof decimals !== 'number') return '';
    return `${formatAmount(amount, decimals)} ${typeof code === 'string' ? code : ''}`.trim();
  };
}

const RATE_COLUMNS: Column[] = [
  column('from', 'sourceCurrency.code'),
  column('to', 'destinationCurrency.code'),
  column('rail', 'destinationPaymentRail'),
  column('rate', 'exchangeRate'),
  { header: 'sending', paths: [], render: scaled('sendingAmount', 'sourceCurrency') },
  { header: 'receiving', paths: [], render: scaled('receivingAmount', 'destinationCurrency') },
  { header: 'fees', paths: [], render: scaled('fees.total', 'sourceCurrency') },
];

const ID = (name: string, description: string) => [{ name, description }];

const WALLET_SIGNATURE = [
  { flag: 'signature', header: 'service-wallet-signature', description: "the cardholder's wallet signature of payloadToSign (sandbox: sandbox-valid-signature)" },
  { flag: 'request-id', header: 'request-id', description: 'the requestId of the 202 answer being signed' },
];

function signatureHint(answer: { status: number; json: unknown }): string | undefined {
  if (answer.status !== 202) return undefined;
  const requestId = getPath(answer.json, ['requestId']);
  if (typeof requestId !== 'string') return undefined;
  return `The cardholder must approve: sign payloadToSign and run this command again with --signature <signature> --request-id ${requestId} (sandbox: --signature sandbox-valid-signature)`;
}

function cardState(name: string, state: 'FROZEN' | 'ACTIVE' | 'CLOSED', summary: string): OperationSpec {
  return {
    name,
    summary,
    method: 'PATCH',
    path: '/cards/{id}',
    args: ID('id', 'Card:<uuid>'),
    body: [],
    baseBody: { state },
    headers: WALLET_SIGNATURE,
    hint: signatureHint,
  };
}

export const RESOURCES: readonly ResourceSpec[] = [
  {
    name: 'customers',
    summary: 'Customers (individuals and businesses) and their KYC',
    operations: [
      {
        name: 'list',
        summary: 'List customers',
        method: 'GET',
        path: '/customers',
        query: [
          ...PAGE,
          field('platformCustomerId', 'your id of the customer'),
          field('customerType', 'INDIVIDUAL or BUSINESS', { choices: ['INDIVIDUAL', 'BUSINESS'] }),
          field('kycStatus', 'KYC status'),
          field('kybStatus', 'KYB status'),
          field('region', 'region'),
          field('currency', 'currency code'),
          field('email', 'email'),
          ...CREATED_RANGE,
          field('isIncludingDeleted', 'include deleted customers', { type: 'boolean' }),
        ],
        columns: CUSTOMER_COLUMNS,
      },
      { name: 'get', summary: 'Show a customer', method: 'GET', path: '/customers/{customerId}', args: ID('customerId', 'Customer:<uuid>') },
      {
        name: 'create',
        summary: 'Create a customer',
        method: 'POST',
        path: '/customers',
        body: [
          field('customerType', 'INDIVIDUAL or BUSINESS', { choices: ['INDIVIDUAL', 'BUSINESS'], default: 'INDIVIDUAL' }),
          field('platformCustomerId', 'your id of the customer'),
          field('region', 'ISO 3166 alpha-2 region'),
          ...CUSTOMER_FIELDS,
        ],
      },
      {
        name: 'update',
        summary: 'Update a customer',
        method: 'PATCH',
        path: '/customers/{customerId}',
        args: ID('customerId', 'Customer:<uuid>'),
        body: [field('customerType', 'INDIVIDUAL or BUSINESS (required by the API)', { choices: ['INDIVIDUAL', 'BUSINESS'], default: 'INDIVIDUAL' }), ...CUSTOMER_FIELDS],
      },
      { name: 'delete', summary: 'Delete a customer', method: 'DELETE', path: '/customers/{customerId}', args: ID('customerId', 'Customer:<uuid>') },
      {
        name: 'kyc-link',
        summary: 'Create a hosted KYC verification link',
        method: 'POST',
        path: '/customers/{customerId}/kyc-link',
        args: ID('customerId', 'Customer:<uuid>'),
        body: [field('redirectUri', 'where the browser goes after submitting')],
      },
    ],
  },
  {
    name: 'accounts',
    summary: 'Internal accounts and their balances',
    operations: [
      {
        name: 'list',
        summary: "List customers' internal accounts with balances",
        method: 'GET',
        path: '/internal-account',
        query: [...PAGE, field('customerId', 'Customer:<uuid>'), field('currency', 'currency code'), field('type', 'account type')],
        columns: ACCOUNT_COLUMNS,
      },
      {
        name: 'platform',
        summary: "List the platform's own internal accounts",
        method: 'GET',
        path: '/platform/internal-accounts',
        query: [field('currency', 'currency code'), field('type', 'account type')],
        columns: ACCOUNT_COLUMNS,
      },
      { name: 'get', summary: 'Show an internal account', method: 'GET', path: '/internal-accounts/{accountId}', args: ID('accountId', 'InternalAccount:<uuid>') },
    ],
  },
  {
    name: 'external-accounts',
    summary: "Customers' external bank accounts and wallets",
    operations: [
      {
        name: 'list',
        summary: 'List external accounts',
        method: 'GET',
        path: '/customers/external-accounts',
        query: [...PAGE, field('customerId', 'Customer:<uuid>'), field('currency', 'currency code')],
        columns: [column('id', 'id'), column('customer', 'customerId'), column('currency', 'currency'), column('type', 'accountInfo.accountType'), column('status', 'status'), column('created', 'createdAt')],
      },
      { name: 'get', summary: 'Show an external account', method: 'GET', path: '/customers/external-accounts/{externalAccountId}', args: ID('externalAccountId', 'ExternalAccount:<uuid>') },
      {
        name: 'create',
        summary: 'Register an external account (accountInfo as JSON)',
        method: 'POST',
        path: '/customers/external-accounts',
        body: [
          field('customerId', 'Customer:<uuid>', { required: true }),
          field('currency', 'currency code', { required: true }),
          field('accountInfo', 'the account as JSON, e.g. {"accountType":"US_ACCOUNT",…}', { type: 'json', required: true }),
          field('platformAccountId', 'your id of the account'),
        ],
      },
      { name: 'delete', summary: 'Delete an external account', method: 'DELETE', path: '/customers/external-accounts/{externalAccountId}', args: ID('externalAccountId', 'ExternalAccount:<uuid>') },
    ],
  },
  {
    name: 'transactions',
    summary: 'Transactions (incoming, outgoing, card)',
    operations: [
      {
        name: 'list',
        summary: 'List transactions',
        method: 'GET',
        path: '/transactions',
        query: [
          ...PAGE,
          field('customerId', 'Customer:<uuid>'),
          field('platformCustomerId', 'your id of the customer'),
          field('accountIdentifier', 'an account on either side'),
          field('senderAccountIdentifier', 'the sending account'),
          field('receiverAccountIdentifier', 'the receiving account'),
          field('status', 'status'),
          field('type', 'INCOMING, OUTGOING or CARD'),
          field('reference', 'reference'),
          field('startDate', 'ISO 8601 time'),
          field('endDate', 'ISO 8601 time'),
        ],
        columns: TRANSACTION_COLUMNS,
      },
      { name: 'get', summary: 'Show a transaction', method: 'GET', path: '/transactions/{transactionId}', args: ID('transactionId', 'Transaction:<uuid>') },
      {
        name: 'cancel',
        summary: 'Cancel a processing transaction',
        method: 'POST',
        path: '/transactions/{transactionId}/cancel',
        args: ID('transactionId', 'Transaction:<uuid>'),
        body: [field('reason', 'why')],
      },
    ],
  },
  {
    name: 'quotes',
    summary: 'Cross-currency quotes',
    operations: [
      {
        name: 'create',
        summary: 'Lock a rate and fees for a payment',
        method: 'POST',
        path: '/quotes',
        baseBody: { source: { sourceType: 'ACCOUNT' }, destination: { destinationType: 'ACCOUNT' } },
        body: [
          { flag: 'from', target: 'source.accountId', description: 'the paying InternalAccount:<uuid>' },
          { flag: 'to', target: 'destination.accountId', description: 'the receiving ExternalAccount:<uuid> or InternalAccount:<uuid>' },
          { flag: 'amount', target: 'lockedCurrencyAmount', description: 'the locked amount, in the smallest unit', type: 'integer', required: true },
          field('lockedCurrencySide', 'SENDING or RECEIVING', { choices: ['SENDING', 'RECEIVING'], default: 'SENDING' }),
          field('immediatelyExecute', 'execute at once', { type: 'boolean' }),
          field('description', 'description'),
        ],
      },
      { name: 'get', summary: 'Show a quote', method: 'GET', path: '/quotes/{quoteId}', args: ID('quoteId', 'Quote:<uuid>') },
      { name: 'execute', summary: 'Execute a pending quote', method: 'POST', path: '/quotes/{quoteId}/execute', args: ID('quoteId', 'Quote:<uuid>') },
    ],
  },
  {
    name: 'transfers',
    summary: 'Same-currency transfers',
    operations: [
      {
        name: 'out',
        summary: 'Send money from an internal account to an external one',
        method: 'POST',
        path: '/transfer-out',
        body: [
          { flag: 'from', target: 'source.accountId', description: 'InternalAccount:<uuid>', required: true },
          { flag: 'to', target: 'destination.accountId', description: 'ExternalAccount:<uuid>', required: true },
          field('amount', 'in the smallest unit', { type: 'integer', required: true }),
          field('description', 'description'),
        ],
      },
      {
        name: 'in',
        summary: 'Pull money from an external account into an internal one',
        method: 'POST',
        path: '/transfer-in',
        body: [
          { flag: 'from', target: 'source.accountId', description: 'ExternalAccount:<uuid>', required: true },
          { flag: 'to', target: 'destination.accountId', description: 'InternalAccount:<uuid>', required: true },
          field('amount', 'in the smallest unit', { type: 'integer' }),
          field('description', 'description'),
        ],
      },
    ],
  },
  {
    name: 'cards',
    summary: 'Virtual debit cards',
    operations: [
      {
        name: 'list',
        summary: 'List cards',
        method: 'GET',
        path: '/cards',
        query: [...PAGE, field('cardholderId', 'Customer:<uuid>'), field('accountId', 'InternalAccount:<uuid>'), field('platformCardId', 'your id of the card'), field('state', 'state')],
        columns: CARD_COLUMNS,
      },
      { name: 'get', summary: 'Show a card', method: 'GET', path: '/cards/{id}', args: ID('id', 'Card:<uuid>') },
      {
        name: 'create',
        summary: 'Issue a virtual card',
        method: 'POST',
        path: '/cards',
        body: [
          field('cardholderId', 'Customer:<uuid>', { required: true }),
          field('fundingSources', 'comma-separated InternalAccount ids, in order', { type: 'list', required: true }),
          field('platformCardId', 'your id of the card'),
          field('form', 'VIRTUAL', { default: 'VIRTUAL', choices: ['VIRTUAL'] }),
        ],
      },
      cardState('freeze', 'FROZEN', 'Freeze a card (the cardholder approves with a wallet signature)'),
      cardState('unfreeze', 'ACTIVE', 'Unfreeze a card'),
      cardState('close', 'CLOSED', 'Close a card for good'),
    ],
  },
  {
    name: 'events',
    summary: 'Webhook events and their deliveries',
    operations: [
      {
        name: 'list',
        summary: 'List events',
        method: 'GET',
        path: '/webhooks/events',
        query: [...PAGE, field('type', 'event type'), field('deliveryStatus', 'PENDING, DELIVERED, FAILED or SKIPPED')],
        columns: [column('id', 'id'), column('type', 'type'), column('delivery', 'deliveryStatus'), column('attempts', 'attempts'), column('time', 'timestamp')],
      },
      { name: 'get', summary: 'Show an event with its delivery attempts', method: 'GET', path: '/webhooks/events/{eventId}', args: ID('eventId', 'Webhook:<uuid>') },
      { name: 'resend', summary: 'Queue an event for one more delivery now', method: 'POST', path: '/webhooks/events/{eventId}/resend', args: ID('eventId', 'Webhook:<uuid>') },
    ],
  },
  {
    name: 'tokens',
    summary: 'API tokens',
    operations: [
      {
        name: 'list',
        summary: 'List API tokens',
        method: 'GET',
        path: '/tokens',
        query: [...PAGE, field('name', 'name')],
        columns: [column('id', 'id'), column('name', 'name'), column('permissions', 'permissions'), column('client id', 'clientId'), column('created', 'createdAt')],
      },
      {
        name: 'create',
        summary: 'Create an API token (its secret is shown once)',
        method: 'POST',
        path: '/tokens',
        body: [field('name', 'name', { required: true }), field('permissions', 'comma-separated VIEW, TRANSACT, MANAGE', { type: 'list', required: true })],
      },
      { name: 'revoke', summary: 'Revoke an API token', method: 'DELETE', path: '/tokens/{tokenId}', args: ID('tokenId', 'ApiToken:<uuid>') },
    ],
  },
  {
    name: 'config',
    summary: "The platform's configuration",
    operations: [
      { name: 'get', summary: "Show the platform's configuration", method: 'GET', path: '/config' },
      {
        name: 'set',
        summary: "Change the platform's configuration",
        method: 'PATCH',
        path: '/config',
        body: [field('webhookEndpoint', 'where webhooks are sent'), field('umaDomain', 'UMA domain')],
      },
    ],
  },
];

/** Commands that are one operation, straight under `moneta`. */
export const ROOT_OPERATIONS: readonly OperationSpec[] = [
  {
    name: 'exchange-rates',
    summary: 'Current exchange rates and fees',
    method: 'GET',
    path: '/exchange-rates',
    query: [
      { flag: 'from', target: 'sourceCurrency', description: 'source currency code' },
      { flag: 'to', target: 'destinationCurrency', description: 'destination currency code' },
      { flag: 'amount', target: 'sendingAmount', description: 'sending amount, in the smallest unit', type: 'integer' },
    ],
    columns: RATE_COLUMNS,
  },
];
