import { dateTag, LOCALE_TAGS, type Locale } from './locales';

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
  // A fixed zone is named, so a receipt never leaves the reader guessing which clock it means.
  const zone: Intl.DateTimeFormatOptions = timeZone ? { timeZone, ...(withTime ? { timeZoneName: 'short' } : {}) } : {};
  const tag = dateTag(locale);
  return withTime && timeZone
    ? new Intl.DateTimeFormat(tag, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', ...zone }).format(new Date(iso))
    : new Intl.DateTimeFormat(tag, { ...options, ...zone }).format(new Date(iso));
}
