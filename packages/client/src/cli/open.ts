import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { API_VERSION } from '../client.js';
import { serverRoot } from './api.js';
import { credentialsOf } from './context.js';
import { UsageError } from './errors.js';
import { print } from './output.js';

/**
 * `moneta open <id | page>`: the dashboard page of a resource (by its id's type) or a page by name,
 * opened in the browser (or printed with --print, or when no browser can be started).
 */

/** The dashboard's page for each id type it shows. */
const PAGE_OF_ID: Record<string, string> = {
  Customer: 'customers',
  InternalAccount: 'accounts',
  Transaction: 'transactions',
  Card: 'cards',
  Webhook: 'events',
};

/** Pages by name: the dashboard's lists, and the API reference. */
const PAGES: Record<string, (root: string) => string> = {
  dashboard: (root) => `${root}/dashboard`,
  customers: (root) => `${root}/dashboard#/customers`,
  accounts: (root) => `${root}/dashboard#/accounts`,
  transactions: (root) => `${root}/dashboard#/transactions`,
  cards: (root) => `${root}/dashboard#/cards`,
  events: (root) => `${root}/dashboard#/events`,
  tokens: (root) => `${root}/dashboard#/tokens`,
  sandbox: (root) => `${root}/dashboard#/sandbox`,
  reference: (root) => `${root}/${API_VERSION}/reference`,
};

export function pageUrl(baseUrl: string, target: string): string {
  const root = serverRoot(baseUrl);
  const page = PAGES[target.toLowerCase()];
  if (page) return page(root);
  const match = /^([A-Za-z]+):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.exec(target);
  const list = match ? PAGE_OF_ID[match[1]!] : undefined;
  if (match && list) return `${root}/dashboard#/${list}/${encodeURIComponent(target)}`;
  if (match) throw new UsageError(`the dashboard has no page for ${match[1]} ids; it shows ${Object.keys(PAGE_OF_ID).join(', ')}`);
  throw new UsageError(`${target} is neither an id (Customer:…, InternalAccount:…, Transaction:…, Card:…, Webhook:…) nor a page (${Object.keys(PAGES).join(', ')})`);
}

function opener(): [string, string[]] | undefined {
  if (process.platform === 'darwin') return ['open', []];
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  return ['xdg-open', []];
}

export async function openPage(target: string, command: Command): Promise<void> {
  const url = pageUrl(credentialsOf(command).baseUrl, target);
  const { print: only } = command.opts<{ print?: boolean }>();
  const how = opener();
  if (only || !how || !process.stdout.isTTY) {
    print(url);
    return;
  }
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn(how[0], [...how[1], url], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
  print(started ? `Opened ${url}` : url);
}
