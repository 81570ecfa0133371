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
