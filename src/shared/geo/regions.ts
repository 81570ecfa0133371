import type { Locale } from '../locales';
import countryLanguagesJson from './country-languages.json';
import NL from './regions/NL.json';
import BE from './regions/BE.json';
import GB from './regions/GB.json';
import IE from './regions/IE.json';
import DE from './regions/DE.json';
import AT from './regions/AT.json';
import IT from './regions/IT.json';
import FR from './regions/FR.json';
import CH from './regions/CH.json';
import ES from './regions/ES.json';
import US from './regions/US.json';
import CA from './regions/CA.json';
import AU from './regions/AU.json';
import NZ from './regions/NZ.json';
import PL from './regions/PL.json';
import DK from './regions/DK.json';
import FI from './regions/FI.json';
import NO from './regions/NO.json';
import SE from './regions/SE.json';

export interface Region {
  code: string;
  name: string;
  names?: Partial<Record<Locale, string>>;
  cities: string[];
  lat: number;
  lon: number;
}

/** Real first-level regions of the 19 countries that have them. */
export const REGIONS: Record<string, Region[]> = { NL, BE, GB, IE, DE, AT, IT, FR, CH, ES, US, CA, AU, NZ, PL, DK, FI, NO, SE };

/** Region list of a country with names in the given locale; [] for countries without regions. */
export function regionsFor(country: string, locale: Locale): { code: string; name: string }[] {
  return (REGIONS[country] ?? []).map((r) => ({ code: r.code, name: r.names?.[locale] ?? r.name }));
}

/**
 * The regions a page hands its island: only the shown country's (others load as hashed assets when
 * chosen, src/core/geo/region-options.ts), keyed by country, named in the locale.
 */
export function regionDataOf(country: string | null | undefined, locale: Locale): Record<string, { code: string; name: string }[]> {
  return country ? { [country]: regionsFor(country, locale) } : {};
}

/** Regions of several countries, keyed by country, named in the locale. */
export function regionDataFor(countries: string[], locale: Locale): Record<string, { code: string; name: string }[]> {
  return Object.fromEntries(countries.map((c) => [c, regionsFor(c, locale)]));
}

const COUNTRY_LANGUAGES = countryLanguagesJson as Record<string, Locale[]>;
/** Locales the language switcher offers first for a visitor's country (BE: nl, fr, de; CH: de, it, fr, en). */
export function languagesForCountry(country: string | null | undefined): Locale[] {
  return (country && COUNTRY_LANGUAGES[country]) || ['en'];
}
