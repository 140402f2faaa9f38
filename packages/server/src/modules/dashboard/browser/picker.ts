/**
 * A picker for the sandbox controls (bundled into /dashboard/assets/app.js): a select of the first
 * page of a list, a search box (server-side filters; a pasted id is read directly, so any of 10,000
 * accounts can be picked), "More" to add the next page with the API's cursor, and refresh(id) to
 * re-read one option after an action changed it, so its label never shows a stale balance.
 */
import { errorBox, h } from './lib.js';
import type { Page } from './wire.js';

/** Where a picker's options come from. */
export interface PickerSource<T> {
  /** A page of options for this search text ('' for the plain list), from this cursor. */
  list: (search: string, cursor: string | undefined) => Promise<Page<T>>;
  /** One option read by its id (after an action, or pasted). */
  one: (id: string) => Promise<T>;
  /** The options' texts (one batch, so owner names are read once for them all). */
  labels: (items: T[]) => Promise<string[]>;
  idOf: (item: T) => string;
}

export interface Picker<T> {
  element: HTMLElement;
  /** The picked item as last read, if any. */
  item: (id: string) => T | undefined;
  /** Reads the item again and redraws its option; the new item (or undefined if it is not listed). */
  refresh: (id: string) => Promise<T | undefined>;
}

export async function picker<T>(name: string, label: string, source: PickerSource<T>): Promise<Picker<T>> {
  const items = new Map<string, T>();
  const select = h('select', { name: name, required: true, 'data-picker': name });
  const search = h('input', { type: 'search', class: 'picker-query', placeholder: 'Search or paste an id', spellcheck: 'false', 'aria-label': label + ': search or paste an id' });
  const count = h('span', { class: 'muted picker-count' });
  const more = h('button', { type: 'button', class: 'secondary', 'data-action': 'more' }, 'More');
  const outlet = h('div', { class: 'picker-error' });
  let state: { search: string; next: string | undefined; shown: number; total: number | undefined } = { search: '', next: undefined, shown: 0, total: undefined };

  function option(item: T, text: string): HTMLOptionElement {
    return h('option', { value: source.idOf(item) }, text);
  }

  async function add(list: T[], replace: boolean): Promise<void> {
    const texts = await source.labels(list);
    if (replace) select.replaceChildren();
    list.forEach(function (item, i) {
      items.set(source.idOf(item), item);
      select.append(option(item, texts[i] ?? source.idOf(item)));
    });
  }

  function counted(): void {
    count.textContent = state.total === undefined ? state.shown + ' shown' : state.shown + ' shown of ' + state.total;
    more.disabled = state.next === undefined;
    select.dataset.count = String(select.options.length);
  }

  async function load(text: string): Promise<void> {
    outlet.replaceChildren();
    const page = await source.list(text, undefined);
    state = { search: text, next: page.hasMore ? page.nextCursor : undefined, shown: page.data.length, total: page.totalCount };
    await add(page.data, true);
    counted();
    search.dataset.searched = text;
  }

  async function guarded(work: () => Promise<void>, button: HTMLButtonElement | null): Promise<void> {
    if (button) button.disabled = true;
    select.dataset.state = 'loading';
    try {
      await work();
    } catch (error) {
      outlet.replaceChildren(errorBox(error));
    } finally {
      if (button) button.disabled = false;
      counted();
      select.dataset.state = 'ready';
    }
  }

  const find = h('button', { type: 'button', class: 'secondary', 'data-action': 'find' }, 'Find');
  find.addEventListener('click', function () { void guarded(function () { return load(search.value.trim()); }, find); });
  // Enter in the search box searches; it must not submit the control's form.
  search.addEventListener('keydown', function (event) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void guarded(function () { return load(search.value.trim()); }, find);
  });
  more.addEventListener('click', function () {
    void guarded(async function () {
      const page = await source.list(state.search, state.next);
      state.next = page.hasMore ? page.nextCursor : undefined;
      state.shown += page.data.length;
      await add(page.data, false);
    }, more);
  });

  await load('');
  const element = h('div', { class: 'picker', 'data-picker': name },
    h('span', { class: 'picker-label' }, label),
    h('div', { class: 'picker-search' }, search, find),
    select,
    h('div', { class: 'picker-search' }, count, more),
    outlet);
  counted();
  select.dataset.state = 'ready';

  return {
    element: element,
    item: function (id: string) { return items.get(id); },
    refresh: async function (id: string) {
      const shown = Array.from(select.options).find(function (o) { return o.value === id; });
      if (!shown) return undefined;
      const fresh = await source.one(id);
      items.set(id, fresh);
      shown.textContent = (await source.labels([fresh]))[0] ?? id;
      return fresh;
    },
  };
}
