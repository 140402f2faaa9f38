import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import { addTriggerCommand, describeTriggers, eventOptions, resolveEventName, TRIGGERS } from './trigger.js';
import { EVENT_RECIPES, EVENT_TYPES, type EventType, type Recipe } from './trigger-events.js';
import { clabeEndingIn } from './trigger-fixtures.js';

function program(): Command {
  const root = new Command('moneta').exitOverride().option('--json');
  root.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  const trigger = addTriggerCommand(root);
  for (const sub of [trigger, ...trigger.commands]) sub.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  return root;
}

async function usageErrorOf(args: string[]): Promise<unknown> {
  return program()
    .parseAsync(['node', 'moneta', 'trigger', ...args])
    .then(() => undefined, (error: unknown) => error);
}

describe('moneta trigger: event names', () => {
  it('has a recipe for each event type, every one with what it creates, and names every event family', () => {
    expect(EVENT_TYPES.length).toBeGreaterThanOrEqual(41);
    const families = new Set(EVENT_TYPES.map((t) => t.split('.')[0]));
    for (const family of ['CUSTOMER', 'INCOMING_PAYMENT', 'OUTGOING_PAYMENT', 'CARD', 'CARD_TRANSACTION', 'VERIFICATION', 'AUTH_METHOD', 'AGENT', 'DELEGATED_KEY', 'EXTERNAL_ACCOUNT', 'INTERNAL_ACCOUNT', 'TEST']) {
      expect(families).toContain(family);
    }
    for (const type of EVENT_TYPES) {
      const recipe = EVENT_RECIPES[type] as { creates: string; run?: unknown; unavailable?: string };
      expect(recipe.creates.length, type).toBeGreaterThan(10);
      expect(Boolean(recipe.run) !== Boolean(recipe.unavailable), `${type}: a recipe runs, or says why it cannot`).toBe(true);
    }
  });

  it('is typed so that an event type without a recipe fails the typecheck', () => {
    // EventType is the literal union of the server's event types (not widened to string): a table
    // missing one of them does not satisfy it. (If this stopped being an error, `npm run typecheck`
    // would fail on the unused directive.)
    // @ts-expect-error Property 'CUSTOMER.KYC_APPROVED' (and every other type but TEST) is missing
    const incomplete = { TEST: EVENT_RECIPES.TEST } satisfies Record<EventType, Recipe>;
    expect(Object.keys(incomplete)).toEqual(['TEST']);
  });

  it('resolves an event type in any case', () => {
    for (const type of EVENT_TYPES) {
      expect(resolveEventName(type)).toBe(type);
      expect(resolveEventName(type.toLowerCase())).toBe(type);
    }
    expect(resolveEventName('Card_Transaction.Authorized')).toBe('CARD_TRANSACTION.AUTHORIZED');
  });

  it('refuses an unknown name with a usage error (exit 2) that points at --list, and hints at a simulation written in upper case', () => {
    const unknown = (() => {
      try {
        resolveEventName('PAYMENT.SUCCEEDED');
      } catch (error) {
        return error;
      }
    })();
    expect(unknown).toBeInstanceOf(UsageError);
    expect((unknown as UsageError).exitCode).toBe(2);
    expect((unknown as UsageError).message).toBe('unknown event or simulation PAYMENT.SUCCEEDED; see `moneta trigger --list`');
    expect(() => resolveEventName('CARD.AUTHORIZATION')).toThrow('the simulation is card.authorization');
  });

  it('lists every event type (with its options, or why it cannot be triggered) and every simulation', () => {
    const list = describeTriggers();
    for (const type of EVENT_TYPES) expect(list).toMatch(new RegExp(`^${type.replace('.', '\\.')}  `, 'm'));
    for (const simulation of TRIGGERS) expect(list).toContain(simulation.name);
    expect(list).toMatch(/^CARD_TRANSACTION\.AUTHORIZED {2}\[--customer <id>\] \[--account <id>\] \[--amount <n>\] \[--wait <seconds>\]$/m);
    expect(list).toMatch(/^INTERNAL_ACCOUNT\.FUNDING_INSTRUCTIONS_UPDATED {2}\(cannot be triggered yet\)$/m);
  });
});

describe('moneta trigger: options and usage errors', () => {
  it('checks the event options before any call', () => {
    expect(eventOptions({})).toEqual({ waitSeconds: 60 });
    expect(eventOptions({ customer: 'Customer:abc', account: 'InternalAccount:def', amount: '2500', wait: '5' })).toEqual({ customer: 'Customer:abc', account: 'InternalAccount:def', amount: 2500, waitSeconds: 5 });
    expect(() => eventOptions({ amount: '12.5' })).toThrow(UsageError);
    expect(() => eventOptions({ amount: '0' })).toThrow(UsageError);
    expect(() => eventOptions({ amount: '-3' })).toThrow(UsageError);
    expect(() => eventOptions({ customer: 'InternalAccount:x' })).toThrow('--customer takes a Customer:<uuid>');
    expect(() => eventOptions({ account: 'Customer:x' })).toThrow('--account takes an InternalAccount:<uuid>');
    expect(() => eventOptions({ wait: '601' })).toThrow(UsageError);
    expect(() => eventOptions({ wait: '0' })).toThrow(UsageError);
  });

  it('parses: an unknown name, arguments after an event type and an option the recipe does not take are usage errors', async () => {
    const unknown = await usageErrorOf(['payment_intent.succeeded']);
    expect(unknown).toBeInstanceOf(UsageError);
    expect((unknown as Error).message).toContain('see `moneta trigger --list`');

    for (const name of ['TEST', 'test']) {
      const extra = await usageErrorOf([name, 'Customer:abc']);
      expect(extra).toBeInstanceOf(UsageError);
      expect((extra as Error).message).toBe('TEST takes no arguments (got Customer:abc); see `moneta trigger --list`');
    }

    // KYC decisions move no money: --amount is not theirs, in any case.
    for (const name of ['CUSTOMER.KYC_HOLD', 'customer.kyc_hold']) {
      const option = await usageErrorOf([name, '--amount', '5']);
      expect(option).toBeInstanceOf(CommanderError);
      expect((option as CommanderError).code).toBe('commander.unknownOption');
    }

    const before = await usageErrorOf(['--amount', '5', 'CARD_TRANSACTION.AUTHORIZED']);
    expect(before).toBeInstanceOf(UsageError);
    expect((before as Error).message).toContain('options come after the event type');

    const amount = await usageErrorOf(['card_transaction.authorized', '--amount', 'ten']);
    expect(amount).toBeInstanceOf(UsageError);
    expect((amount as Error).message).toContain('--amount must be a positive integer');
  });
});

describe('clabeEndingIn', () => {
  it('gives an 18-digit CLABE with a valid check digit ending in the suffix', () => {
    const weights = [3, 7, 1];
    for (const suffix of ['007', '009', '002']) {
      const clabe = clabeEndingIn(suffix);
      expect(clabe).toMatch(/^\d{18}$/);
      expect(clabe.endsWith(suffix)).toBe(true);
      const sum = [...clabe.slice(0, 17)].reduce((s, c, i) => s + ((Number(c) * weights[i % 3]!) % 10), 0);
      expect((10 - (sum % 10)) % 10).toBe(Number(clabe[17]));
    }
  });
});
