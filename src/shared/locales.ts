/** The eleven supported locales; en is the default and fallback. */
export const LOCALES = ['nl', 'en', 'de', 'it', 'fr', 'es', 'pl', 'da', 'fi', 'nb', 'sv'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';
/** Dates default to the Dutch locale, as the spec says. */
export const DEFAULT_DATE_LOCALE: Locale = 'nl';
export const LOCALE_COOKIE = 'lang';
export const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/** BCP-47 tags for Intl and hreflang. */
export const LOCALE_TAGS: Record<Locale, string> = {
  nl: 'nl-NL', en: 'en', de: 'de-DE', it: 'it-IT', fr: 'fr-FR', es: 'es-ES',
  pl: 'pl-PL', da: 'da-DK', fi: 'fi-FI', nb: 'nb-NO', sv: 'sv-SE',
};

/** The Intl tag dates are written with: the locale's own, else the spec's default date locale (nl). */
export function dateTag(locale: string | null | undefined): string {
  return LOCALE_TAGS[locale as Locale] ?? LOCALE_TAGS[DEFAULT_DATE_LOCALE];
}

/** Each locale written in its own language, for the language dropdown. */
export const LOCALE_NAMES: Record<Locale, string> = {
  nl: 'Nederlands', en: 'English', de: 'Deutsch', it: 'Italiano', fr: 'Français',
  es: 'Español', pl: 'Polski', da: 'Dansk', fi: 'Suomi', nb: 'Norsk bokmål', sv: 'Svenska',
};

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Maps a language tag such as "nb-NO", "no" or "de_AT" to a supported locale, or null. */
export function matchLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const lower = tag.trim().toLowerCase().replace('_', '-');
  const primary = lower.slice(0, 2);
  if (primary === 'no' || primary === 'nn') return 'nb';
  return isLocale(primary) ? primary : null;
}

/** Picks the best supported locale from an Accept-Language header, honouring q values. */
export function localeFromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag, q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((entry) => entry.tag && Number.isFinite(entry.q) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const locale = matchLocale(entry.tag);
    if (locale) return locale;
  }
  return null;
}
