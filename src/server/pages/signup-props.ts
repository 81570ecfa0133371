import { regionDataFor } from '../../shared/geo/regions';
import type { Locale } from '../../shared/locales';
import { MIN_AGE } from '../../shared/constants';
import {
  BODY_TYPES, EYE_COLORS, HAIR_COLORS, RELATIONSHIP_STATUSES, SEXUALITIES, TATTOO_OPTIONS,
} from '../../shared/profile-options';
import type { Site } from '../../shared/site.schema';
import { trackingNetwork } from '../sites/settings.service';
import { TRACKING_PARAMS, type Tracking } from '../../shared/tracking';
import { countryOptions } from '../../shared/geo/country-names';
import type { SignupWizardProps } from '../../islands/signup/SignupWizard';



/** Everything the signup wizard needs, decided on the server. */
export function signupWizardProps(site: Site, locale: Locale, visit: Tracking, target: { id: number; name: string } | null = null): SignupWizardProps {
  // The wizard posts the traffic source back; the lander itself stays in the cookie (read again at signup).
  const tracking = Object.fromEntries(TRACKING_PARAMS.filter((k) => visit[k]).map((k) => [k, visit[k] as string]));
  return {
    locale,
    siteName: site.name,
    signupsOpen: site.signups === 'all' || trackingNetwork(tracking) !== null,
    minAge: MIN_AGE,
    countries: countryOptions(site.countries, locale),
    regions: regionDataFor(site.countries, locale),
    options: {
      sexuality: [...SEXUALITIES], relationship_status: [...RELATIONSHIP_STATUSES], hair_color: [...HAIR_COLORS],
      eye_color: [...EYE_COLORS], body_type: [...BODY_TYPES], tattoos: [...TATTOO_OPTIONS],
    },
    tracking,
    target,
  };
}
