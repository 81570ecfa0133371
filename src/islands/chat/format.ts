import { dateTag as tagOf } from '../../shared/locales';
import { photoUrl } from '../../shared/profiles.contract';

/** Time today, weekday this week, else the date — as chat lists show it. */
export function shortStamp(ms: number, locale: string, now = Date.now()): string {
  const date = new Date(ms);
  const today = new Date(now);
  if (date.toDateString() === today.toDateString()) return new Intl.DateTimeFormat(tagOf(locale), { timeStyle: 'short' }).format(date);
  if (now - ms < 6 * 86_400_000) return new Intl.DateTimeFormat(tagOf(locale), { weekday: 'short' }).format(date);
  return new Intl.DateTimeFormat(tagOf(locale), { day: 'numeric', month: 'short' }).format(date);
}

export const timeOf = (ms: number, locale: string) => new Intl.DateTimeFormat(tagOf(locale), { timeStyle: 'short' }).format(new Date(ms));
export const dayOf = (ms: number, locale: string) => new Intl.DateTimeFormat(tagOf(locale), { dateStyle: 'medium' }).format(new Date(ms));

/** A price in the member's currency, e.g. "€ 2,49". */
export function money(amount: number, currency: string, locale: string): string {
  try {
    return new Intl.NumberFormat(tagOf(locale), { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** Where a profile's thumbnail lives (the favicon stands in when there is none). */
export const thumbUrl = (thumb: string | null) => photoUrl(thumb);
