import type { Api } from './api.js';
import { CliError } from './errors.js';
import { EVENT_RECIPES, type EventType, type Recipe } from './trigger-events.js';
import { Fixtures, type Created, type TriggerOptions } from './trigger-fixtures.js';

/**
 * Runs an event's recipe and waits (bounded) until an event of that type it caused appears in
 * GET /webhooks/events: a new one (not listed before the recipe ran) whose `data.id` is the
 * recipe's subject when it names one.
 */

export interface EventSummary {
  id: string;
  type: string;
  timestamp: string;
  deliveryStatus: string;
}

export interface TriggerResult {
  type: EventType;
  event: EventSummary;
  created: Created[];
}

interface ListedEvent extends EventSummary {
  data?: { id?: unknown };
}

async function recentEvents(api: Api, type: EventType): Promise<ListedEvent[]> {
  const answer = await api.call({ method: 'GET', path: '/webhooks/events', query: { type, limit: '100', sortOrder: 'desc' } });
  return (answer.json as { data: ListedEvent[] }).data;
}

export async function triggerEvent(api: Api, type: EventType, options: TriggerOptions & { waitSeconds: number }, say: (line: string) => void): Promise<TriggerResult> {
  const recipe: Recipe = EVENT_RECIPES[type];
  if (recipe.unavailable || !recipe.run) throw new CliError(`${type} cannot be triggered in the sandbox: ${recipe.unavailable ?? 'no recipe'}`);
  const before = new Set((await recentEvents(api, type)).map((e) => e.id));
  const fixtures = new Fixtures(api, options, say);
  const subject = await recipe.run(fixtures);
  say(`waiting for ${type}${subject ? ` about ${subject}` : ''}…`);
  const deadline = Date.now() + options.waitSeconds * 1000;
  for (;;) {
    const fresh = (await recentEvents(api, type)).filter((e) => !before.has(e.id));
    const event = fresh.reverse().find((e) => subject === undefined || e.data?.id === subject);
    if (event) return { type, event: { id: event.id, type: event.type, timestamp: event.timestamp, deliveryStatus: event.deliveryStatus }, created: fixtures.created };
    if (Date.now() > deadline) {
      throw new CliError(`no ${type} event${subject ? ` about ${subject}` : ''} appeared within ${options.waitSeconds} s (created: ${fixtures.created.map((c) => c.id).join(', ') || 'nothing'})`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
