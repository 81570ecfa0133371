import { LOCALE_TAGS, type Locale } from './locales';

/** Cents in a currency, written for the locale ("€ 79,95", "79,95 zł"). */
export function formatMoney(cents: number, currency: string, locale: string): string {
  return new Intl.NumberFormat(LOCALE_TAGS[locale as Locale] ?? locale, { style: 'currency', currency }).format(cents / 100);
}

/** A VAT rate as the locale writes numbers ("21", "25,5", "8,1"). */
export function formatRate(rate: number, locale: string): string {
  return new Intl.NumberFormat(LOCALE_TAGS[locale as Locale] ?? locale, { maximumFractionDigits: 2 }).format(rate);
}

/** A timestamp as a date (and time) for the locale, in the member's time zone or the one given. */
export function formatDate(iso: string | number, locale: string, withTime = true, timeZone?: string): string {
  const options: Intl.DateTimeFormatOptions = withTime ? { dateStyle: 'medium', timeStyle: 'short' } : { dateStyle: 'medium' };
  return new Intl.DateTimeFormat(LOCALE_TAGS[locale as Locale] ?? locale, { ...options, timeZone }).format(new Date(iso));
}
