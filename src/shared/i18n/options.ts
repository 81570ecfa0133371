import type { TFunction } from 'i18next';
import { DEFAULT_LOCALE } from '../locales';

/** Options shared by the server and the islands so both resolve keys the same way. */
export const I18N_OPTIONS = {
  fallbackLng: DEFAULT_LOCALE,
  keySeparator: false as const,
  nsSeparator: false as const,
  interpolation: { escapeValue: false },
  initAsync: false,
  returnNull: false,
};

/**
 * `t` that remembers what a key without options translates to (most of a page: menus, labels,
 * buttons) — catalogs never change while a page or process runs; calls with options (counts, names)
 * go to i18next every time.
 */
export function rememberPlainKeys(base: TFunction): TFunction {
  const plain = new Map<string, string>();
  return ((key: unknown, ...rest: unknown[]) => {
    if (rest.length !== 0 || typeof key !== 'string') return (base as unknown as (...args: unknown[]) => string)(key, ...rest);
    let text = plain.get(key);
    if (text === undefined) {
      text = base(key);
      if (plain.size < 20_000) plain.set(key, text);
    }
    return text;
  }) as unknown as TFunction;
}
