import { cleanPhone, MIN_AGE, REACTIVATION_DAYS, termsVersionDate } from './constants';
import { countryName } from './geo/country-names';
import { dateTag, type Locale } from './locales';
import type { Site } from './site.schema';
import { fictionalTexts } from './site-texts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]);
}

/** Terms version date (the terms page's `version_date`, or the company's added date) written for the locale, in UTC. */
export function formatTermsDate(site: Site, locale: Locale, versionDate: string): string {
  return new Intl.DateTimeFormat(dateTag(locale), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' })
    .format(termsVersionDate(versionDate, site.company.added)) + ' UTC';
}

/** Values for the {{placeholders}} of content/pages (see content/pages/README.md). */
export function pagePlaceholders(site: Site, locale: Locale, termsVersion: string): Record<string, string> {
  const fictional = fictionalTexts(site, locale);
  return {
    site_name: site.name,
    domain: site.domains[0],
    company_name: site.company.name,
    company_address: site.company.address,
    company_city: site.company.city,
    company_country: countryName(site.company.country, locale),
    company_kvk: site.company.kvk,
    company_tradenames: site.company.tradenames.join(', '),
    company_vat_numbers: site.company.vat_numbers.join(', '),
    support_email: site.support_email,
    support_phone: cleanPhone(site.company.support_phone),
    refund_days: String(site.refund_days),
    terms_date: formatTermsDate(site, locale, termsVersion),
    min_age: String(MIN_AGE),
    fictional_singular: fictional.singular,
    fictional_plural: fictional.plural,
    fictional_icon: fictional.icon,
    reactivation_days: String(REACTIVATION_DAYS),
    message_credits: String(site.message_credits),
    photo_credits: String(site.photo_credits),
    gift_credits: String(site.gift_credits),
    signup_credits: String(site.signup_credits),
  };
}

/**
 * Fills {{placeholders}} in rendered page HTML; values are escaped, unknown names are left visible. A value that
 * ends a sentence with its own full stop ("Kindred Media B.V.") takes the place of the sentence's.
 */
export function fillPlaceholders(html: string, values: Record<string, string>): string {
  // Markdown link targets arrive percent-encoded (mailto:%7B%7Bsupport_email%7D%7D).
  return html.replace(/(?:\{\{|%7B%7B)\s*([a-z_]+)\s*(?:\}\}|%7D%7D)(\.?)/gi, (whole, name: string, stop: string) =>
    name in values ? escapeHtml(values[name]) + (values[name].endsWith('.') ? '' : stop) : whole,
  );
}

/** Page tables scroll sideways on phones (`.prose table`): each takes keyboard focus, so it can be scrolled without a mouse. */
export function focusableTables(html: string): string {
  return html.replace(/<table>/g, '<table tabindex="0">');
}
