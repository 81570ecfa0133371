import { createInstance, type i18n as I18n, type TFunction } from 'i18next';
import { type Locale, LOCALES } from '../locales';
import da from './catalogs/da.json';
import de from './catalogs/de.json';
import en from './catalogs/en.json';
import es from './catalogs/es.json';
import fi from './catalogs/fi.json';
import fr from './catalogs/fr.json';
import it from './catalogs/it.json';
import nb from './catalogs/nb.json';
import nl from './catalogs/nl.json';
import pl from './catalogs/pl.json';
import sv from './catalogs/sv.json';

export type Catalog = Record<string, string>;
export type CatalogKey = keyof typeof en;
/** Every locale's catalog; flat dotted keys. */
export const CATALOGS: Record<Locale, Catalog> = { nl, en, de, it, fr, es, pl, da, fi, nb, sv };
// Islands rendered on the server translate from these (src/islands/shared/i18n.ts); in the browser
// they load their locale's catalog as one hashed asset instead of receiving it in their props.
(globalThis as { __kindredCatalogs?: Record<string, Catalog> }).__kindredCatalogs = CATALOGS;

import { I18N_OPTIONS } from './options';
export { I18N_OPTIONS };

/** The messages of a locale whose keys start with one of the prefixes (what an island needs). */
export function messagesFor(locale: Locale, prefixes: string[]): Record<string, string> {
  const catalog = CATALOGS[locale];
  return Object.fromEntries(Object.entries(CATALOGS.en).filter(([k]) => prefixes.some((p) => k.startsWith(p))).map(([k, en]) => [k, catalog[k] ?? en]));
}

const instances = new Map<Locale, I18n>();

/** One immutable i18next instance per locale, so concurrent requests never share a language switch. */
export function getI18n(locale: Locale): I18n {
  let instance = instances.get(locale);
  if (!instance) {
    instance = createInstance();
    instance.init({
      ...I18N_OPTIONS,
      lng: locale,
      supportedLngs: [...LOCALES],
      resources: { [locale]: { translation: CATALOGS[locale] }, en: { translation: CATALOGS.en } },
    });
    instances.set(locale, instance);
  }
  return instance;
}

export type Translate = TFunction;
/** The translate function for a locale. */
export function getT(locale: Locale): TFunction {
  return getI18n(locale).t;
}
