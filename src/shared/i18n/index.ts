import { createInstance, type i18n as I18n, type TFunction } from 'i18next';
import { type Locale, LOCALE_TAGS, LOCALES } from '../locales';
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

/**
 * The plural forms of a counted text (`key_one`, `key_other`, and `_few`/`_many` where the language
 * has them), keyed by Intl.PluralRules category: for code that fills in a count without i18next.
 */
export function pluralForms(locale: Locale, key: string): Record<string, string> {
  // Every member page asks for the same few: built once per locale × key (catalogs never change at run time).
  const memo = `${locale}:${key}`;
  const known = pluralMemo.get(memo);
  if (known) return known;
  const catalog = CATALOGS[locale];
  const categories = new Intl.PluralRules(LOCALE_TAGS[locale]).resolvedOptions().pluralCategories;
  const forms = Object.freeze(Object.fromEntries(categories.map((c) => [c, catalog[`${key}_${c}`] ?? CATALOGS.en[`${key}_${c}`] ?? CATALOGS.en[`${key}_other`]])));
  pluralMemo.set(memo, forms);
  return forms;
}
const pluralMemo = new Map<string, Record<string, string>>();

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
const translators = new Map<Locale, TFunction>();
/**
 * The translate function for a locale. A key asked for without options (most of a page: menus, labels,
 * footers) is looked up once and remembered — catalogs never change while the process runs; calls with
 * options (counts, names) go to i18next every time.
 */
export function getT(locale: Locale): TFunction {
  let t = translators.get(locale);
  if (!t) {
    const base = getI18n(locale).t;
    const plain = new Map<string, string>();
    t = ((key: unknown, ...rest: unknown[]) => {
      if (rest.length !== 0 || typeof key !== 'string') return (base as unknown as (...args: unknown[]) => string)(key, ...rest);
      let text = plain.get(key);
      if (text === undefined) {
        text = base(key);
        if (plain.size < 20_000) plain.set(key, text);
      }
      return text;
    }) as unknown as TFunction;
    translators.set(locale, t);
  }
  return t;
}
