import { AsyncLocalStorage } from 'node:async_hooks';
import { type ComponentType, createElement } from 'react';
import { renderToString } from 'react-dom/server';

/**
 * The server side of island data (src/islands/shared/island-data.tsx): each page render gets its own
 * store (`runWithIslandData`, from src/middleware.ts); a page puts an island's inputs in it with
 * `provideIslandData` and writes the returned JSON into the page before the island.
 */
const store = new AsyncLocalStorage<Map<string, unknown>>();

(globalThis as Record<symbol, unknown>)[Symbol.for('kindred.islandData')] = (id: string) => {
  const values = store.getStore();
  if (!values?.has(id)) throw new Error(`island data ${id} was not provided for this render`);
  return values.get(id);
};

export function runWithIslandData<T>(render: () => T): T {
  return store.run(new Map(), render);
}

/** Keeps `value` for the island's server render; answers the id and the JSON to write into the page. */
export function provideIslandData(id: string, value: unknown): { id: string; json: string } {
  const values = store.getStore();
  if (!values) throw new Error('provideIslandData outside a page render');
  values.set(id, value);
  // Safe inside <script>: no `</script>` or `<!--` can close or confuse it.
  return { id, json: JSON.stringify(value).replace(/</g, '\\u003c') };
}

/**
 * The server half of `hydrateIsland` (src/islands/shared/island-data.tsx): the island's inputs as one
 * JSON block, then its HTML rendered from them inside the root element the page's script hydrates.
 */
export function islandMarkup(rootId: string, Component: ComponentType<{ locale: string; data: string }>, locale: string, value: unknown): string {
  const data = provideIslandData(`${rootId}-data`, value);
  const html = renderToString(createElement(Component, { locale, data: data.id }), { identifierPrefix: rootId });
  const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<script type="application/json" id="${attr(data.id)}">${data.json}</script>`
    + `<div id="${attr(rootId)}" data-island data-ssr data-locale="${attr(locale)}" data-props="${attr(data.id)}">${html}</div>`;
}
