import type { FieldSpec } from './fields.js';
import { field, type OperationSpec } from './spec.js';

/**
 * `moneta trigger <event>`: every sandbox simulation (the API's /sandbox operations) as data,
 * built into commands by the same code as the resources.
 */

const CARD = [{ name: 'cardId', description: 'Card:<uuid>' }];

const MERCHANT: readonly FieldSpec[] = [
  { flag: 'merchant', target: 'merchant.descriptor', description: 'merchant descriptor (ending 002 declines, 003 pauses, 005 confirms late, 006 fails the pull)', default: 'MONETA CLI TEST' },
  { flag: 'mcc', target: 'merchant.mcc', description: 'merchant category code, 4 digits' },
  { flag: 'country', target: 'merchant.country', description: 'merchant country, ISO alpha-2' },
];

const AUTHORIZATION_LIKE: readonly FieldSpec[] = [
  field('amount', 'in the smallest unit of --currency', { type: 'integer', required: true }),
  { flag: 'currency', target: 'currency.code', description: "the merchant's currency (another than the card's converts)", default: 'USD' },
  ...MERCHANT,
];

const ON_TRANSACTION = (amount: 'required' | 'optional' | 'none'): readonly FieldSpec[] => [
  { flag: 'transaction', target: 'cardTransactionId', description: 'CardTransaction:<uuid>', required: true },
  ...(amount === 'none' ? [] : [field('amount', 'in the smallest unit', { type: 'integer', required: amount === 'required' })]),
];

function cardSimulation(kind: string, summary: string, body: readonly FieldSpec[]): OperationSpec {
  return { name: `card.${kind}`, summary, method: 'POST', path: `/sandbox/cards/{cardId}/simulate/${kind}`, args: CARD, body };
}

export const TRIGGERS: readonly OperationSpec[] = [
  {
    name: 'funding',
    aliases: ['fund'],
    summary: 'Fund an internal account directly',
    method: 'POST',
    path: '/sandbox/internal-accounts/{accountId}/fund',
    args: [{ name: 'accountId', description: 'InternalAccount:<uuid>' }],
    body: [field('amount', 'in the smallest unit', { type: 'integer', required: true })],
  },
  {
    name: 'bank-transfer',
    summary: "A bank transfer arriving with an account's funding reference",
    method: 'POST',
    path: '/sandbox/bank-transfers',
    body: [
      field('reference', "the account's funding reference (MNT…)", { required: true }),
      field('amount', 'in the smallest unit', { type: 'integer', required: true }),
      field('currency', 'currency code'),
      field('senderName', 'who sent it'),
    ],
  },
  {
    name: 'send',
    summary: 'Pay a REALTIME_FUNDING quote',
    method: 'POST',
    path: '/sandbox/send',
    body: [
      { flag: 'quote', target: 'quoteId', description: 'Quote:<uuid>', required: true },
      { flag: 'currency', target: 'currencyCode', description: 'currency code', required: true },
      { flag: 'amount', target: 'currencyAmount', description: 'in the smallest unit', type: 'integer' },
    ],
  },
  {
    name: 'kyc',
    aliases: ['kyc-decision'],
    summary: "The KYC provider deciding on a customer",
    method: 'POST',
    path: '/sandbox/customers/{customerId}/kyc-decision',
    args: [{ name: 'customerId', description: 'Customer:<uuid>' }],
    body: [field('status', 'the decision', { required: true, choices: ['APPROVED', 'REJECTED', 'HOLD', 'PENDING'] })],
  },
  {
    name: 'clock.advance',
    aliases: ['clock-advance'],
    summary: "Move the platform's sandbox clock forward",
    method: 'POST',
    path: '/sandbox/clock/advance',
    body: [field('seconds', 'how far', { type: 'integer', required: true })],
  },
  { name: 'clock.show', aliases: ['clock'], summary: "Show the platform's sandbox clock", method: 'GET', path: '/sandbox/clock' },
  cardSimulation('authorization', 'A card authorization (holds the amount)', AUTHORIZATION_LIKE),
  cardSimulation('financial_authorization', 'A card authorization that settles at once', AUTHORIZATION_LIKE),
  cardSimulation('credit_authorization', 'A credit (refund) authorization', AUTHORIZATION_LIKE),
  cardSimulation('financial_credit_authorization', 'A credit that settles at once', AUTHORIZATION_LIKE),
  cardSimulation('credit_authorization_advice', 'A credit authorization advice', AUTHORIZATION_LIKE),
  cardSimulation('balance_inquiry', 'A balance inquiry (moves nothing)', MERCHANT),
  cardSimulation('clearing', 'Clear (settle) an authorization; 0 expires it', ON_TRANSACTION('required')),
  cardSimulation('return', 'Return (refund) a settled card transaction', ON_TRANSACTION('required')),
  cardSimulation('authorization_advice', 'Re-size an open authorization', ON_TRANSACTION('required')),
  cardSimulation('return_reversal', 'Reverse a return', ON_TRANSACTION('none')),
  { name: 'webhook.test', aliases: ['webhook-test'], summary: 'Send a TEST event to the webhook endpoint now', method: 'POST', path: '/sandbox/webhooks/test' },
];

/** `moneta trigger --list`: each event with its arguments and options. */
export function describeTriggers(): string {
  const lines: string[] = [];
  for (const t of TRIGGERS) {
    const args = (t.args ?? []).map((a) => `<${a.name}>`).join(' ');
    lines.push(`${[t.name, args].filter(Boolean).join(' ')}${t.aliases?.length ? `  (alias ${t.aliases.join(', ')})` : ''}`);
    lines.push(`    ${t.summary}  [${t.method} ${t.path}]`);
    for (const f of t.body ?? []) {
      const flag = f.type === 'boolean' ? `--${f.flag}` : `--${f.flag} <${f.type === 'integer' ? 'n' : 'value'}>`;
      const notes = [f.required ? 'required' : '', f.default !== undefined ? `default ${JSON.stringify(f.default)}` : '', f.choices ? f.choices.join('|') : ''].filter(Boolean).join('; ');
      lines.push(`    ${flag.padEnd(26)} ${f.description}${notes ? ` (${notes})` : ''}`);
    }
  }
  return lines.join('\n');
}
