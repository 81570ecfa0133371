import { regionDataFor } from '../../shared/geo/regions';
import { getT } from '../../shared/i18n';
import type { Locale } from '../../shared/locales';
import { cleanPhone } from '../../shared/constants';
import { INTERESTS } from '../../shared/profile-options';
import type { Settings } from '../../shared/settings.contract';
import type { Site } from '../../shared/site.schema';
import { fictionalTexts, siteText } from '../../shared/site-texts';

/** Tracking network of a visit (?network= on the landing URL). */
export function trackingNetwork(query: Record<string, string | undefined>): string | null {
  const network = query.network?.trim();
  return network && /^[\w.-]{1,64}$/.test(network) ? network : null;
}

export interface SettingsInput {
  site: Site;
  locale: Locale;
  geoipCountry: string | null;
  host: string;
  query: Record<string, string | undefined>;
  pushPublicKey?: string | null;
}

/** Builds the Settings object for a request: site from the host (never from the query), route params applied. */
export function buildSettings({ site, locale, geoipCountry, host, query, pushPublicKey = null }: SettingsInput): Settings {
  const t = getT(locale);
  const network = trackingNetwork(query);
  const requested = query.country?.toUpperCase();
  const selected =
    (requested && site.countries.includes(requested) && requested) ||
    (geoipCountry && site.countries.includes(geoipCountry) && geoipCountry) ||
    site.countries[0];
  const fictional = fictionalTexts(site, locale);
  const domain = host.toLowerCase().replace(/:\d+$/, '');
  return {
    countries: site.countries,
    name: site.name,
    index_title: siteText(site.index_title, locale, t('home.title', { site: site.name })),
    description: siteText(site.description, locale, t('site.default_description', { site: site.name })),
    visible_profile_fields: site.visible_profile_fields,
    visible_profile_notes: site.visible_profile_notes,
    geoip_country: geoipCountry,
    geoip_selected_country: selected,
    cdn_prefix: site.cdn_prefix,
    message_credits: site.message_credits,
    signup_credits: site.signup_credits,
    photo_credits: site.photo_credits,
    gift_credits: site.gift_credits,
    message_length: site.message_length,
    minimum_message_costs: site.minimum_message_costs,
    support_email: site.support_email,
    support_phone: cleanPhone(site.company.support_phone),
    enable_site_entry_popup: site.enable_site_entry_popup,
    entry_warning_countries: site.entry_warning_countries ?? site.countries,
    push_public_key: pushPublicKey,
    search_fields: site.search_fields,
    domain: site.domains.includes(domain) ? domain : site.domains[0],
    domain_language: site.domain_language,
    fictional_warning: fictional.warning,
    fictional_singular: fictional.singular,
    fictional_plural: fictional.plural,
    fictional_icon: fictional.icon,
    refund_days: site.refund_days,
    signups: site.signups,
    signups_open: site.signups === 'all' || network !== null,
    logged_out_search: site.logged_out_search,
    logged_out_search_trafficsource: site.logged_out_search_trafficsource,
    logged_out_search_allowed: site.logged_out_search || (network !== null && site.logged_out_search_trafficsource),
    member_resell: site.member_resell,
    niche: site.niche,
    company_id: site.company_id,
    company: { ...site.company, support_phone: cleanPhone(site.company.support_phone) },
    mail_name: site.mail_name,
    interests: [...INTERESTS],
    region_data: regionDataFor(site.countries, locale),
    theme: site.theme,
    locale,
  };
}
