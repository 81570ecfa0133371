import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGS, getT } from '../../src/shared/i18n';
import { LOCALES } from '../../src/shared/locales';
import { fictionalTexts } from '../../src/shared/site-texts';
import { loadSites } from '../../src/server/sites/site-registry';

const sites = loadSites();
const markdown = (locale: string) => ['content/pages', 'content/landers'].flatMap((root) => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name.endsWith('.md')) files.push(path.join(dir, entry.name));
    }
  };
  walk(path.join(root, locale));
  return files.map((file) => [file, readFileSync(file, 'utf8')] as const);
});
/** Every French or Polish text a member can read: the catalog and the content pages. */
const texts = (locale: 'fr' | 'pl') => [...Object.entries(CATALOGS[locale]), ...markdown(locale)];
const word = (w: string) => new RegExp(`(?<![\\p{L}])(${w})(?![\\p{L}])`, 'u');

describe('texts', () => {
  it('French always says "vous", never "tu"', () => {
    const tu = word("tu|te|toi|ton|ta|tes|t'|t’");
    const imperative = word('Écris|Passe|Choisis|Ouvre|Regarde|Dis|Reçois|Débloque');
    expect(texts('fr').filter(([, text]) => tu.test(text) || imperative.test(text)).map(([key]) => key)).toEqual([]);
  });

  it('Polish capitalises the forms of address (Ty, Ci, Cię, Twój…) everywhere', () => {
    const lower = word('cię|ciebie|tobie|tobą|twój|twoja|twoje|twojego|twojej|twoim|twoją|twoich|twoimi');
    // "ci" is also "these" ("ci użytkownicy"): only "ci" as "to you" must be capitalised.
    const ci = /(?<![\p{L}])ci (się|przysługuje|wiadomość|kod|członkostwo|premium|prawo)/u;
    expect(texts('pl').filter(([, text]) => lower.test(text) || ci.test(text)).map(([key]) => key)).toEqual([]);
  });

  it('Swedish sounds natural where a like arrives', () => {
    expect(CATALOGS.sv['like.new_like']).not.toMatch(/gillning/i);
  });

  it('the disclaimer names the fictional profiles once, on every site in every locale', () => {
    for (const site of sites) {
      for (const locale of LOCALES) {
        const { plural, icon } = fictionalTexts(site, locale);
        const text = getT(locale)('disclaimer.fictional', { site: site.name, icon, plural });
        expect(text.toLowerCase().split(plural.toLowerCase()).length - 1, `${site.id} ${locale}: ${text}`).toBe(1);
      }
    }
  });
});
