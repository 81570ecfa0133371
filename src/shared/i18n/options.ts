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

/** Translations remembered per translator with options, at most (then they start over). */
const MAX_WITH_OPTIONS = 20_000;

/** Options made only of strings, numbers and booleans (counts, names, ages): they fully decide the text. */
function flatOptions(options: unknown): options is Record<string, string | number | boolean> {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return false;
  for (const value of Object.values(options)) {
    const type = typeof value;
    if (type !== 'string' && type !== 'number' && type !== 'boolean') return false;
  }
  return true;
}

/**
 * `t` that remembers what a key translates to — catalogs never change while a page or process runs.
 * Keys without options (most of a page: menus, labels, buttons) are kept for good; keys with flat
 * options (a count, a name) per key and options, up to MAX_WITH_OPTIONS, then those start over. Anything
 * else (nested options, several arguments) goes to i18next every time.
 */
export function rememberPlainKeys(base: TFunction): TFunction {
  const call = base as unknown as (...args: unknown[]) => string;
  const plain = new Map<string, string>();
  let withOptions = new Map<string, string>();
  return ((key: unknown, ...rest: unknown[]) => {
    if (typeof key !== 'string') return call(key, ...rest);
    if (rest.length === 0) {
      let text = plain.get(key);
      if (text === undefined) {
        text = call(key);
        if (plain.size < 20_000) plain.set(key, text);
      }
      return text;
    }
    if (rest.length !== 1 || !flatOptions(rest[0])) return call(key, ...rest);
    const id = `${key}\u0000${JSON.stringify(rest[0])}`;
    let text = withOptions.get(id);
    if (text === undefined) {
      text = call(key, rest[0]);
      if (typeof text !== 'string') return text;
      if (withOptions.size >= MAX_WITH_OPTIONS) withOptions = new Map();
      withOptions.set(id, text);
    }
    return text;
  }) as unknown as TFunction;
}
