import { regionDataFor } from '../../shared/geo/regions';
import { messagesFor } from '../../shared/i18n';
import type { Locale } from '../../shared/locales';
import { MIN_AGE } from '../../shared/constants';
import {
  BODY_TYPES, EYE_COLORS, HAIR_COLORS, RELATIONSHIP_STATUSES, SEXUALITIES, TATTOO_OPTIONS,
} from '../../shared/profile-options';
import type { Site } from '../../shared/site.schema';
import { trackingNetwork } from '../sites/settings.service';
import countries from 'i18n-iso-countries';
import type { SignupWizardProps } from '../../islands/signup/SignupWizard';

const TRACKING_KEYS = ['network', 'ref', 'sub1', 'sub2', 'sub3'] as const;
export const SIGNUP_MESSAGE_PREFIXES = ['signup.', 'auth.', 'option.', 'activation.', 'photos.', 'common.', 'error.', 'footer.terms', 'footer.privacy', 'nav.login', 'home.cta_login'];

/** Tracking data (network, ref, sub1–3) from the landing URL. */
export function trackingFrom(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of TRACKING_KEYS) {
    const value = url.searchParams.get(key);
    if (value && value.length <= 128) out[key] = value;
  }
  return out;
}

/** Everything the signup wizard needs, decided on the server. */
export function signupWizardProps(site: Site, locale: Locale, url: URL, target: { id: number; name: string } | null = null): SignupWizardProps {
  const tracking = trackingFrom(url);
  const names = countries.getNames(locale === 'nb' ? 'no' : locale, { select: 'official' });
  return {
    locale,
    messages: messagesFor(locale, SIGNUP_MESSAGE_PREFIXES),
    siteName: site.name,
    signupsOpen: site.signups === 'all' || trackingNetwork(tracking) !== null,
    minAge: MIN_AGE,
    countries: site.countries.map((code) => ({ code, name: names[code] ?? code })),
    regions: regionDataFor(site.countries, locale),
    options: {
      sexuality: [...SEXUALITIES], relationship_status: [...RELATIONSHIP_STATUSES], hair_color: [...HAIR_COLORS],
      eye_color: [...EYE_COLORS], body_type: [...BODY_TYPES], tattoos: [...TATTOO_OPTIONS],
    },
    tracking,
    target,
  };
}
