import type { Command } from 'commander';
import { addOperation } from './commands.js';
import { apiOf, modeOf } from './context.js';
import { UsageError } from './errors.js';
import type { FieldSpec } from './fields.js';
import { print, renderObject } from './output.js';
import { field, type OperationSpec } from './spec.js';
import { EVENT_RECIPES, EVENT_TYPES, eventTypeOf, type EventType, type Recipe, type RecipeOption } from './trigger-events.js';
import type { TriggerOptions } from './trigger-fixtures.js';
import { triggerEvent, type TriggerResult } from './trigger-run.js';

/**
 * `moneta trigger <EVENT_TYPE>` causes any event the server sends, creating what it needs
 * (trigger-events.ts); `moneta trigger <simulation> …` runs one sandbox simulation (the API's
 * /sandbox operations, as data below, built into commands by the same code as the resources).
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

/** `moneta trigger --list`: every event type with what it creates, then each simulation with its arguments and options. */
export function describeTriggers(): string {
  const lines: string[] = ['Event types (moneta trigger <EVENT_TYPE> [options], in any case): what each creates, then causes'];
  for (const type of EVENT_TYPES) {
    const recipe: Recipe = EVENT_RECIPES[type];
    const options = [...(recipe.options ?? []).map((o) => OPTION_FLAGS[o][0]), '--wait <seconds>'].map((o) => `[${o}]`).join(' ');
    lines.push(`${type}${recipe.unavailable ? '  (cannot be triggered yet)' : `  ${options}`}`);
    lines.push(`    ${recipe.unavailable ?? recipe.creates}`);
  }
  lines.push('', 'Simulations (moneta trigger <simulation> <args> [options]):');
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

/** The event type a name given to `moneta trigger` means; a usage error (exit 2) naming `--list` otherwise. */
export function resolveEventName(name: string): EventType {
  const type = eventTypeOf(name);
  if (type) return type;
  const lower = name.toLowerCase();
  const simulation = TRIGGERS.find((t) => t.name === lower || t.aliases?.includes(lower));
  const hint = simulation ? ` (the simulation is ${simulation.name}, in lower case)` : '';
  throw new UsageError(`unknown event or simulation ${name}${hint}; see \`moneta trigger --list\``);
}

interface EventOptions {
  customer?: string;
  account?: string;
  amount?: string;
  wait?: string;
}

const MAX_WAIT_SECONDS = 600;

/** The options of `moneta trigger <EVENT_TYPE>`, checked (usage errors exit 2). */
export function eventOptions(raw: EventOptions): TriggerOptions & { waitSeconds: number } {
  const options: TriggerOptions & { waitSeconds: number } = { waitSeconds: 60 };
  if (raw.customer !== undefined) {
    if (!/^Customer:\S+$/.test(raw.customer)) throw new UsageError(`--customer takes a Customer:<uuid>, got ${raw.customer}`);
    options.customer = raw.customer;
  }
  if (raw.account !== undefined) {
    if (!/^InternalAccount:\S+$/.test(raw.account)) throw new UsageError(`--account takes an InternalAccount:<uuid>, got ${raw.account}`);
    options.account = raw.account;
  }
  if (raw.amount !== undefined) {
    if (!/^\d+$/.test(raw.amount.trim()) || Number(raw.amount) < 1 || !Number.isSafeInteger(Number(raw.amount))) throw new UsageError(`--amount must be a positive integer in the currency's smallest unit (got "${raw.amount}")`);
    options.amount = Number(raw.amount);
  }
  if (raw.wait !== undefined) {
    const seconds = Number(raw.wait);
    if (!/^\d+$/.test(raw.wait.trim()) || seconds < 1 || seconds > MAX_WAIT_SECONDS) throw new UsageError(`--wait must be a whole number of seconds from 1 to ${MAX_WAIT_SECONDS} (got "${raw.wait}")`);
    options.waitSeconds = seconds;
  }
  return options;
}

function renderResult(result: TriggerResult): string {
  const created = result.created.map((c) => `${c.label}: ${c.id}`).join('\n');
  return renderObject({ type: result.type, event: result.event.id, deliveryStatus: result.event.deliveryStatus, timestamp: result.event.timestamp, ...(created ? { created } : {}) });
}

const OPTION_FLAGS: Record<RecipeOption, [string, string]> = {
  customer: ['--customer <id>', 'use this Customer:<uuid> instead of creating one'],
  account: ['--account <id>', 'use this InternalAccount:<uuid> (a USD account of an APPROVED customer) instead of creating and funding one'],
  amount: ['--amount <n>', 'the amount moved, in the smallest unit (default 1000)'],
};

/** `moneta trigger <EVENT_TYPE>`: the event's recipe, with the options it honours (others are unknown options). */
function addEventCommand(trigger: Command, type: EventType): Command {
  const recipe: Recipe = EVENT_RECIPES[type];
  const command = trigger.command(type).description(recipe.unavailable ? `(cannot be triggered yet) ${recipe.unavailable}` : `Creates ${recipe.creates}`);
  for (const option of recipe.options ?? []) command.option(...OPTION_FLAGS[option]);
  command.option('--wait <seconds>', 'how long to wait for the event to appear (default 60)');
  command.action(async (raw: EventOptions) => {
    if (command.args.length > 0) throw new UsageError(`${type} takes no arguments (got ${command.args.join(' ')}); see \`moneta trigger --list\``);
    const options = eventOptions(raw);
    const result = await triggerEvent(apiOf(command), type, options, (line) => process.stderr.write(`${line}\n`));
    print(modeOf(command) === 'json' ? JSON.stringify(result) : renderResult(result));
  });
  return command;
}

/**
 * The `trigger` command: each event type and each simulation is a subcommand; an event type in
 * another case is resolved here and handed to its subcommand with the rest of the arguments;
 * anything else is a usage error naming `--list`.
 */
export function addTriggerCommand(program: Command): Command {
  const trigger = program
    .command('trigger')
    .usage('<EVENT_TYPE> [options] | <simulation> <args> [options] | --list')
    .description('Cause an event, creating what it needs (moneta trigger CARD_TRANSACTION.AUTHORIZED), or run a sandbox simulation (moneta trigger funding <account> --amount 5000)')
    .argument('[name]', 'an event type the server sends, in any case, or a simulation (see --list)')
    .option('--list', 'list every event type (with what it creates) and every simulation with its options')
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (name: string | undefined, options: { list?: boolean }, command: Command) => {
      if (options.list) {
        print(describeTriggers());
        return;
      }
      if (name === undefined) command.help({ error: true });
      if (name.startsWith('-')) throw new UsageError(`options come after the event type (moneta trigger <EVENT_TYPE> ${name} …); see \`moneta trigger --list\``);
      const type = resolveEventName(name);
      const sub = command.commands.find((c) => c.name() === type)!;
      await sub.parseAsync(command.args.slice(1), { from: 'user' });
    });
  for (const type of EVENT_TYPES) addEventCommand(trigger, type);
  for (const spec of TRIGGERS) addOperation(trigger, spec);
  return trigger;
}
