import { describe, expect, it } from 'vitest';
import { apiRequest, requestFor } from './commands.js';
import { UsageError } from './errors.js';
import { buildPayload, parseAssignment, parseValue } from './fields.js';
import { RESOURCES } from './resources.js';
import type { OperationSpec } from './spec.js';
import { TRIGGERS } from './trigger.js';

function operation(list: readonly OperationSpec[], name: string): OperationSpec {
  const found = list.find((o) => o.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
}

const resource = (name: string) => RESOURCES.find((r) => r.name === name)!.operations;

describe('argument → body mapping', () => {
  it('types option values and refuses bad ones as usage errors', () => {
    expect(parseValue('1500', 'integer')).toBe(1500);
    expect(parseValue('USD, EUR', 'list')).toEqual(['USD', 'EUR']);
    expect(parseValue('true', 'boolean')).toBe(true);
    expect(parseValue('{"a":1}', 'json')).toEqual({ a: 1 });
    expect(() => parseValue('12.5', 'integer', '--amount')).toThrow(UsageError);
    expect(() => parseValue('99999999999999999999', 'integer')).toThrow(UsageError);
    expect(() => parseValue('{', 'json')).toThrow(UsageError);
  });

  it('reads --field as key=value strings or key:=json, dots nesting', () => {
    expect(parseAssignment('merchant.descriptor=Blue = Bottle')).toEqual({ path: ['merchant', 'descriptor'], value: 'Blue = Bottle' });
    expect(parseAssignment('amount:=1500')).toEqual({ path: ['amount'], value: 1500 });
    expect(parseAssignment('accountNumber=00012345')).toEqual({ path: ['accountNumber'], value: '00012345' });
    expect(() => parseAssignment('nothing')).toThrow(UsageError);
    expect(() => parseAssignment('__proto__.x=1')).toThrow(UsageError);
  });

  it('layers --data, then the declared options, then --field; defaults fill only what is missing', () => {
    const spec = operation(resource('quotes'), 'create');
    const request = requestFor(spec, [], {
      from: 'InternalAccount:a',
      amount: '10000',
      data: '{"destination":{"accountId":"ExternalAccount:b"},"lockedCurrencyAmount":5,"description":"from data"}',
      field: ['description=from field', 'immediatelyExecute:=true'],
    });
    expect(request).toEqual({
      method: 'POST',
      path: '/quotes',
      pathParams: {},
      query: {},
      body: {
        source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:a' },
        destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:b' },
        lockedCurrencyAmount: 10000,
        lockedCurrencySide: 'SENDING',
        description: 'from field',
        immediatelyExecute: true,
      },
    });
  });

  it('maps path parameters to positional arguments and list options to the query', () => {
    const list = requestFor(operation(resource('transactions'), 'list'), [], { customerId: 'Customer:x', limit: '5', sortOrder: 'asc', field: ['type=CARD'] });
    expect(list).toMatchObject({ method: 'GET', path: '/transactions', query: { customerId: 'Customer:x', limit: '5', sortOrder: 'asc', type: 'CARD' } });
    expect(list.body).toBeUndefined();
    const fund = requestFor(operation(TRIGGERS, 'funding'), ['InternalAccount:1'], { amount: '1000' });
    expect(fund).toMatchObject({ path: '/sandbox/internal-accounts/{accountId}/fund', pathParams: { accountId: 'InternalAccount:1' }, body: { amount: 1000 } });
    expect(() => requestFor(operation(TRIGGERS, 'funding'), [], { amount: '1' })).toThrow(UsageError);
  });

  it('builds card simulations with their defaults and requires what the API requires', () => {
    const auth = requestFor(operation(TRIGGERS, 'card.authorization'), ['Card:1'], { amount: '1250', mcc: '5814' });
    expect(auth.body).toEqual({ amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'MONETA CLI TEST', mcc: '5814' } });
    expect(() => requestFor(operation(TRIGGERS, 'card.clearing'), ['Card:1'], { amount: '5' })).toThrow(/--transaction/);
    expect(requestFor(operation(TRIGGERS, 'card.return_reversal'), ['Card:1'], { transaction: 'CardTransaction:1' }).body).toEqual({ cardTransactionId: 'CardTransaction:1' });
  });

  it('sends card state changes with the wallet signature headers when given', () => {
    const freeze = requestFor(operation(resource('cards'), 'freeze'), ['Card:1'], { signature: 'sandbox-valid-signature', requestId: 'Request:1' });
    expect(freeze).toMatchObject({ method: 'PATCH', path: '/cards/{id}', body: { state: 'FROZEN' }, headers: { 'service-wallet-signature': 'sandbox-valid-signature', 'request-id': 'Request:1' } });
  });

  it('refuses a missing required option and bad choices', () => {
    expect(() => buildPayload({ specs: operation(TRIGGERS, 'kyc').body!, values: {} })).toThrow(/missing --status/);
    expect(() => buildPayload({ specs: operation(TRIGGERS, 'kyc').body!, values: { status: 'MAYBE' } })).toThrow(UsageError);
    expect(buildPayload({ specs: operation(TRIGGERS, 'kyc').body!, values: {}, data: '{"status":"HOLD"}' })).toEqual({ status: 'HOLD' });
  });

  it('moneta api: query in the path and --query, body from --data and --field', () => {
    expect(apiRequest('get', '/customers?limit=2', { query: ['kycStatus=APPROVED'] })).toEqual({ method: 'GET', path: '/customers', query: { limit: '2', kycStatus: 'APPROVED' } });
    expect(apiRequest('post', '/tokens', { data: '{"name":"x"}', field: ['permissions:=["VIEW"]'] })).toEqual({ method: 'POST', path: '/tokens', query: {}, body: { name: 'x', permissions: ['VIEW'] } });
    expect(() => apiRequest('FETCH', '/x', {})).toThrow(UsageError);
    expect(() => apiRequest('GET', 'customers', {})).toThrow(UsageError);
  });
});
