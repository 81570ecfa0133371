import { LOCALE_TAGS, type Locale } from '../locales';

const displayNames = new Map<Locale, Intl.DisplayNames>();

/**
 * A country's everyday short name in the locale ("Duitsland", not "Bondsrepubliek Duitsland"),
 * from the runtime's CLDR data (Intl.DisplayNames); unknown codes come back as given.
 */
export function countryName(code: string, locale: Locale): string {
  let names = displayNames.get(locale);
  if (!names) {
    names = new Intl.DisplayNames([LOCALE_TAGS[locale]], { type: 'region', fallback: 'code' });
    displayNames.set(locale, names);
  }
  try {
    return names.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** Country choices for a select: code and short name in the locale, in the given order. */
export function countryOptions(codes: readonly string[], locale: Locale): { code: string; name: string }[] {
  // A site's list is the same on every page view: built once per list × locale.
  const memo = `${locale}:${codes.join(',')}`;
  let options = optionsMemo.get(memo);
  if (!options) {
    options = Object.freeze(codes.map((code) => Object.freeze({ code, name: countryName(code, locale) }))) as { code: string; name: string }[];
    if (optionsMemo.size > 1000) optionsMemo.clear();
    optionsMemo.set(memo, options);
  }
  return options;
}
const optionsMemo = new Map<string, { code: string; name: string }[]>();
