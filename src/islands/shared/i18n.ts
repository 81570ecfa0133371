import { createInstance, type TFunction } from 'i18next';
import { useMemo } from 'react';
import { I18N_OPTIONS, rememberPlainKeys } from '../../shared/i18n/options';

/**
 * Props every island gets: its locale. Translations never travel in props: the catalogs are the same
 * for every member, so each locale's catalog is one hashed, immutable asset (a Vite chunk per
 * `catalogs/<locale>.json`), loaded once per browser and cached; on the server the catalogs are
 * already in memory (`src/shared/i18n`, which registers them for islands).
 */
export interface IslandI18n {
  locale: string;
}

type Catalog = Record<string, string>;
const loaders = import.meta.glob<Catalog>('../../shared/i18n/catalogs/*.json', { import: 'default' });
const serverCatalogs = () => (globalThis as { __kindredCatalogs?: Record<string, Catalog> }).__kindredCatalogs;

async function loadCatalog(locale: string): Promise<Catalog> {
  const load = loaders[`../../shared/i18n/catalogs/${locale}.json`] ?? loaders['../../shared/i18n/catalogs/en.json'];
  return load();
}

/** The page's locale (the `lang` tag's language part: `nb-NO` → `nb`). */
const pageLocale = typeof document === 'undefined' ? null : (document.documentElement.lang || 'en').split('-')[0].toLowerCase();
/**
 * Loaded before any island module finishes loading (top-level await), so an island hydrates with
 * exactly the texts the server rendered, and no island waits for it twice.
 */
const clientCatalogs: Record<string, Catalog> = pageLocale ? { [pageLocale]: await loadCatalog(pageLocale) } : {};

const translators = new Map<string, TFunction>();

/** The translate function for a locale: the same instance for every island of the page. */
export function islandT(locale: string): TFunction {
  let t = translators.get(locale);
  if (t) return t;
  const catalogs = serverCatalogs() ?? clientCatalogs;
  const catalog = catalogs[locale] ?? catalogs.en ?? Object.values(catalogs)[0];
  if (!catalog) throw new Error(`no catalog for ${locale}`);
  const instance = createInstance();
  const resources: Record<string, { translation: Catalog }> = { [locale]: { translation: catalog } };
  if (catalogs.en && locale !== 'en') resources.en = { translation: catalogs.en };
  instance.init({ ...I18N_OPTIONS, lng: locale, resources });
  t = rememberPlainKeys(instance.t);
  translators.set(locale, t);
  return t;
}

/** A translate function for an island. */
export function useIslandT({ locale }: IslandI18n): TFunction {
  return useMemo(() => islandT(locale), [locale]);
}

/** For islands rendered in the browser for a locale other than the page's (rare): loads that catalog first. */
export async function ensureCatalog(locale: string): Promise<void> {
  if (serverCatalogs() || clientCatalogs[locale]) return;
  clientCatalogs[locale] = await loadCatalog(locale);
}
