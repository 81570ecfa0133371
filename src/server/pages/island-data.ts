import { type ComponentType, createElement } from 'react';
import { renderToString } from 'react-dom/server';

/**
 * The server side of island data (src/islands/shared/island-data.tsx). An island's inputs are written
 * into the page as JSON and, for its server render, read from `rendering`: the inputs of the island
 * `islandMarkup` is rendering right now. React's `renderToString` is synchronous, so nothing else can
 * render between setting and clearing it, and no per-request store (AsyncLocalStorage) is needed.
 */
let rendering: ReadonlyMap<string, unknown> | null = null;

(globalThis as Record<symbol, unknown>)[Symbol.for('kindred.islandData')] = (id: string) => {
  if (!rendering?.has(id)) throw new Error(`island data ${id} was not provided for this render`);
  return rendering.get(id);
};

/** The JSON of an island's inputs, safe inside <script>: no `</script>` or `<!--` can close or confuse it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The server half of `hydrateIsland` (src/islands/shared/island-data.tsx): the island's inputs as one
 * JSON block, then its HTML rendered from them inside the root element the page's script hydrates.
 */
export function islandMarkup(rootId: string, Component: ComponentType<{ locale: string; data: string }>, locale: string, value: unknown): string {
  const dataId = `${rootId}-data`;
  const outer = rendering;
  rendering = new Map([[dataId, value]]);
  let html: string;
  try {
    html = renderToString(createElement(Component, { locale, data: dataId }), { identifierPrefix: rootId });
  } finally {
    rendering = outer;
  }
  const attr = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<script type="application/json" id="${attr(dataId)}">${scriptJson(value)}</script>`
    + `<div id="${attr(rootId)}" data-island data-ssr data-locale="${attr(locale)}" data-props="${attr(dataId)}">${html}</div>`;
}
