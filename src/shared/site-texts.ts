import { getT } from './i18n';
import type { Locale } from './locales';
import type { LocalizedText, Site } from './site.schema';

/** A site text in the locale: the site's own wording for it, else the catalog's default. */
export function siteText(value: LocalizedText, locale: Locale, fallback: string): string {
  if (typeof value === 'string') return value;
  return value[locale] ?? fallback;
}

/** The site's fictional-profile wording in a locale. */
export function fictionalTexts(site: Site, locale: Locale) {
  const t = getT(locale);
  const icon = site.fictional_icon;
  return {
    icon,
    singular: siteText(site.fictional_singular, locale, t('site.fictional_singular')),
    plural: siteText(site.fictional_plural, locale, t('site.fictional_plural')),
    warning: siteText(site.fictional_warning, locale, t('site.fictional_warning', { icon })),
  };
}

/** A company name that ends in its own full stop ("Kindred Media B.V.") at the end of a sentence: one stop, not two. */
export function oneFullStop(text: string): string {
  return text.replace(/(?<!\.)\.\.(?!\.)/g, '.');
}
