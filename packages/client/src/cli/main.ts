import { Command, CommanderError } from 'commander';
import { login, logout, whoami } from './auth.js';
import { addOperation, addResource, apiRequest, collect } from './commands.js';
import { completionScript } from './completion.js';
import { apiOf, modeOf } from './context.js';
import { describeError } from './errors.js';
import { importCustomers } from './importer.js';
import { listen } from './listen.js';
import { tail } from './logs.js';
import { openPage } from './open.js';
import { print, renderAnswer } from './output.js';
import { RESOURCES, ROOT_OPERATIONS } from './resources.js';
import { addTriggerCommand } from './trigger.js';

/**
 * `moneta`, the developer CLI over the HTTP API (like the Stripe CLI). Exit codes: 0 done, 1 the
 * API or the network refused (the error's `code: message` and every field error on stderr), 2 bad
 * arguments.
 */
export function buildProgram(): Command {
  const program = new Command('moneta')
    .description('The Moneta API from the command line: resources, sandbox triggers, webhook forwarding')
    .version('0.1.0')
    .option('--json', 'print the API JSON exactly (default when stdout is not a terminal)')
    .option('--table', 'print tables (default on a terminal)')
    .option('-p, --profile <name>', 'the stored credentials to use (default: the one logged in last, or MONETA_PROFILE)')
    .exitOverride()
    .showSuggestionAfterError()
    .configureHelp({ sortSubcommands: false });

  program
    .command('login')
    .description('Check API credentials with GET /config and store them (mode 0600); with nothing given, a local sandbox\'s own (from .data/credentials.json, as npm start printed them)')
    .option('--base-url <url>', 'the server, e.g. http://localhost:8080 (or MONETA_BASE_URL)')
    .option('--token-id <id>', 'API token id (or MONETA_TOKEN_ID)')
    .option('--secret <secret>', 'API client secret (or MONETA_CLIENT_SECRET; prompted for when absent)')
    .action(async (_options, command: Command) => login(command));
  program.command('logout').description('Forget the stored credentials of the profile').action((_options, command: Command) => logout(command));
  program.command('whoami').description('Base URL, token id and mode of the credentials in use').action(async (_options, command: Command) => whoami(command));

  for (const resource of RESOURCES) {
    const command = addResource(program, resource);
    if (resource.name === 'customers') {
      command
        .command('import')
        .description('Create customers from a JSON-lines or CSV file (re-running it creates none twice)')
        .argument('<file>', 'JSON lines (one customer body per line) or CSV with a header row')
        .option('--customer-type <type>', 'customerType of lines that give none', 'INDIVIDUAL')
        .action(async (file: string, _options, sub: Command) => importCustomers(sub, file));
    }
  }
  for (const operation of ROOT_OPERATIONS) addOperation(program, operation);

  program
    .command('api')
    .description('Any API call: moneta api GET /customers, moneta api POST /tokens --data \'{…}\'')
    .argument('<method>', 'GET, POST, PATCH, PUT or DELETE')
    .argument('<path>', 'the path after the API version, e.g. /customers?limit=5')
    .option('-d, --data <json>', 'the request body as JSON (or @file.json)')
    .option('-f, --field <key=value>', 'a body field (a query parameter for GET); key:=<json> for non-strings', collect)
    .option('-q, --query <key=value>', 'a query parameter (repeatable)', collect)
    .action(async (method: string, path: string, options: { data?: string; field?: string[]; query?: string[] }, command: Command) => {
      const answer = await apiOf(command).call(apiRequest(method, path, options));
      print(renderAnswer(answer, modeOf(command)));
    });

  addTriggerCommand(program);

  program
    .command('listen')
    .description('Forward events to a local URL as they happen (like stripe listen), signed with the CLI\'s own key; pushed by the server, resumed after a disconnect')
    .option('--forward-to <url>', 'POST each event here (without it, events are printed)')
    .option('--events <types>', 'only these event types, comma-separated (e.g. OUTGOING_PAYMENT.COMPLETED,CARD_TRANSACTION.AUTHORIZED)')
    .option('--created-after <time>', 'first replay the events created since this time (ISO 8601), then follow new ones')
    .option('--print-public-key', 'print the public key forwarded events are signed with, and exit')
    .option('--max-events <n>', 'stop after this many events')
    .option('--timeout <seconds>', 'stop after this long')
    .action(async (_options, command: Command) => listen(command));

  const logs = program.command('logs').description("The platform's API requests");
  logs
    .command('tail')
    .description('Show requests as they complete (like stripe logs tail): time, status, method and path, error code, request id, duration')
    .option('--method <methods>', 'only these methods, comma-separated (GET,POST,…)')
    .option('--status <classes>', 'only these answers, comma-separated: 2XX, 3XX, 4XX, 5XX')
    .option('--created-after <time>', 'first show the requests since this time (ISO 8601), then follow new ones')
    .option('--max-lines <n>', 'stop after this many requests')
    .option('--timeout <seconds>', 'stop after this long')
    .action(async (_options, command: Command) => tail(command));

  program
    .command('open')
    .description('Open the dashboard page of a resource (Customer:…, InternalAccount:…, Transaction:…, Card:…, Webhook:…) or a page (customers, events, reference, …)')
    .argument('<target>', 'an id or a page name')
    .option('--print', 'print the URL instead of opening a browser')
    .action(async (target: string, _options, command: Command) => openPage(target, command));

  program
    .command('completion')
    .description('Print a shell completion script (see the README to install it)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => print(completionScript(program, shell)));

  return program;
}

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const { lines, exitCode } = describeError(error);
    process.stderr.write(`${lines.join('\n')}\n`);
    return exitCode;
  }
}

process.exit(await main());
