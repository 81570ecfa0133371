import { type ComponentType, createElement, useEffect, useState } from 'react';
import { hydrateRoot } from 'react-dom/client';

/**
 * An island's inputs, sent once as JSON in the page (`<script type="application/json" id=…>`, written
 * by `islandMarkup` in src/server/pages/island-data.ts) instead of in Astro's `props` attribute,
 * where every value is wrapped in a type tag and every quote becomes `&quot;` (about three times the
 * bytes: /members carried 9.6 KB of props for 3.5 KB of data). On the server the same values come from
 * the render's own store, so server and browser render from identical inputs.
 */
const SERVER_LOOKUP = Symbol.for('kindred.islandData');
type Lookup = (id: string) => unknown;

const parsed = new Map<string, unknown>();

export function islandData<T>(id: string): T {
  if (typeof document === 'undefined') {
    const lookup = (globalThis as Record<symbol, Lookup | undefined>)[SERVER_LOOKUP];
    if (!lookup) throw new Error(`island data ${id} read outside a page render`);
    return lookup(id) as T;
  }
  if (!parsed.has(id)) {
    const element = document.getElementById(id);
    if (!element) throw new Error(`island data ${id} is missing from the page`);
    parsed.set(id, JSON.parse(element.textContent ?? 'null'));
  }
  return parsed.get(id) as T;
}

/** Props of an island whose inputs travel as island data: its locale and the data's element id. */
export interface IslandDataProps {
  locale: string;
  data: string;
}

/** The island `Component` taking its props (all but `locale`) from the island data named by `data`. */
export function withIslandData<P extends { locale: string }>(Component: ComponentType<P>) {
  function IslandWithData({ locale, data }: IslandDataProps) {
    const [props] = useState(() => islandData<Omit<P, 'locale'>>(data));
    return <Component {...(props as P)} locale={locale} />;
  }
  IslandWithData.displayName = `WithIslandData(${Component.displayName ?? Component.name})`;
  return IslandWithData;
}

/**
 * Hydrates an island the server rendered with `islandMarkup` (src/server/pages/island-data.ts) into
 * `<div id=… data-island data-ssr>`: the page's own bundled script calls this, so a page whose islands
 * all mount this way carries no copy of Astro's island loader (3.5 KB inline on every such page).
 * The `data-ssr` mark goes once the island has hydrated, as Astro's `ssr` attribute does.
 */
export function hydrateIsland(rootId: string, Component: ComponentType<IslandDataProps>) {
  const root = document.getElementById(rootId);
  if (!root) return;
  const { locale = 'en', props = '' } = root.dataset;
  function Hydrated() {
    useEffect(() => root?.removeAttribute('data-ssr'), []);
    return createElement(Component, { locale, data: props });
  }
  hydrateRoot(root, createElement(Hydrated), { identifierPrefix: rootId });
}
