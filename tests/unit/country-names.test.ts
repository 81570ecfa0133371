import countries from 'i18n-iso-countries';
import { describe, expect, it } from 'vitest';
import { countryName } from '../../src/shared/geo/country-names';
import { LOCALES } from '../../src/shared/locales';
import { fillPlaceholders, pagePlaceholders } from '../../src/shared/static-pages';
import { oneFullStop } from '../../src/shared/site-texts';
import { signupWizardProps } from '../../src/server/pages/signup-props';
import { loadSites } from '../../src/server/sites/site-registry';

const sites = loadSites();

describe('country names', () => {
  it('are the short everyday names, not official long forms', () => {
    expect(countryName('DE', 'nl')).toBe('Duitsland');
    expect(countryName('NL', 'nl')).toBe('Nederland');
    expect(countryName('DE', 'de')).toBe('Deutschland');
    expect(countryName('PL', 'pl')).toBe('Polska');
    expect(countryName('NL', 'fr')).toBe('Pays-Bas');
    expect(countryName('XX', 'nl')).toBe('XX');
  });

  it('never show the official long form of any site country in any locale (signup, search, profile)', () => {
    for (const site of sites) {
      for (const locale of LOCALES) {
        const official = countries.getNames(locale === 'nb' ? 'no' : locale, { select: 'official' });
        for (const { code, name } of signupWizardProps(site, locale, {}).countries) {
          expect(name).toBe(countryName(code, locale));
          // Long forms such as "Bondsrepubliek Duitsland" or "Bundesrepublik Deutschland".
          if (official[code] && official[code].length > name.length + 4) expect(name).not.toBe(official[code]);
          expect(name).not.toMatch(/Bondsrepubliek|Bundesrepublik|Republic of|Koninkrijk der|Königreich der|Rzeczpospolita/);
        }
      }
    }
  });

  it('name the company country in the page locale on legal pages and in the footer', () => {
    const kindred = sites.find((s) => s.company.country === 'NL');
    expect(kindred).toBeDefined();
    if (!kindred) return;
    expect(pagePlaceholders(kindred, 'nl', '2023-12-01T12:00:00Z').company_country).toBe('Nederland');
    expect(pagePlaceholders(kindred, 'de', '2023-12-01T12:00:00Z').company_country).toBe('Niederlande');
    expect(pagePlaceholders(kindred, 'en', '2023-12-01T12:00:00Z').company_country).toBe('Netherlands');
    for (const site of sites) expect(site.company.country).toMatch(/^[A-Z]{2}$/);
  });
});

describe('the company on legal pages and the SEPA mandate (issue 25 item 9)', () => {
  it('ends a sentence with the company name without a second full stop ("B.V.." on /ban)', () => {
    const values = { company_name: 'Kindred Media B.V.', site_name: 'Kindred' };
    expect(fillPlaceholders('<li>operated by {{company_name}}.</li>', values)).toBe('<li>operated by Kindred Media B.V.</li>');
    expect(fillPlaceholders('<p>{{site_name}}. {{company_name}}, Amsterdam</p>', values)).toBe('<p>Kindred. Kindred Media B.V., Amsterdam</p>');
    expect(oneFullStop('instructions from Kindred Media B.V.. You are…')).toBe('instructions from Kindred Media B.V. You are…');
    expect(oneFullStop('Wait... what?')).toBe('Wait... what?');
  });
  it('keeps the creditor country out of the site file text, so the mandate names it in the reader language', () => {
    for (const site of sites) {
      expect(site.payments.creditor.address).not.toMatch(/Netherlands|Germany|Sweden|Nederland|Deutschland/);
      expect(countryName(site.payments.creditor.country ?? site.company.country, 'fi')).toMatch(/Alankomaat|Saksa/);
    }
  });
});
