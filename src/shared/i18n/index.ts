import { createInstance, type i18n as I18n, type TFunction } from 'i18next';
import { DEFAULT_LOCALE, type Locale, LOCALES } from '../locales';
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

/** Options shared by the server and the islands so both resolve keys the same way. */
export const I18N_OPTIONS = {
  fallbackLng: DEFAULT_LOCALE,
  keySeparator: false as const,
  nsSeparator: false as const,
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
};

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
