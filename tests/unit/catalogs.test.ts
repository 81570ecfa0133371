import { describe, expect, it } from 'vitest';
import { CATALOGS, pluralForms } from '../../src/shared/i18n';
import { LOCALE_TAGS, LOCALES } from '../../src/shared/locales';

const en = CATALOGS.en;
const vars = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
const SUFFIX = /_(zero|one|two|few|many|other)$/;
/** Keys with plural forms, by their base (i18next resolves `key` with `count` to `key_<category>`). */
const pluralBases = Object.keys(en).filter((k) => k.endsWith('_other')).map((k) => k.replace(SUFFIX, ''));
const isPlural = (k: string) => SUFFIX.test(k) && pluralBases.includes(k.replace(SUFFIX, ''));
const categories = (locale: string) => new Intl.PluralRules(LOCALE_TAGS[locale as keyof typeof LOCALE_TAGS]).resolvedOptions().pluralCategories;
/** The keys a locale must have: every plain key of en, and each plural base once per category of its language. */
const expectedKeys = (locale: string) => [
  ...Object.keys(en).filter((k) => !isPlural(k)),
  ...pluralBases.flatMap((base) => categories(locale).map((c) => `${base}_${c}`)),
].sort();

describe('plural forms', () => {
  it('every text that shows a {{count}} has plural forms', () => {
    expect(Object.keys(en).filter((k) => !isPlural(k) && vars(en[k]).includes('count'))).toEqual([]);
    expect(pluralBases.length).toBeGreaterThan(10);
  });
  it.each(LOCALES)('%s has exactly the plural forms its language needs (Intl.PluralRules)', (locale) => {
    expect(Object.keys(CATALOGS[locale]).sort()).toEqual(expectedKeys(locale));
  });
  it('picks the right form for a count', () => {
    expect(pluralForms('en', 'nav.new_likes_badge')).toEqual({ one: '{{count}} new like', other: '{{count}} new likes' });
    expect(Object.keys(pluralForms('pl', 'nav.new_likes_badge')).sort()).toEqual(['few', 'many', 'one', 'other']);
  });
});

describe.each(LOCALES.filter((l) => l !== 'en'))('catalog %s', (locale) => {
  const catalog = CATALOGS[locale];
  /** The English text a key of this locale translates (a plural form: en's form for the same count). */
  const english = (k: string) => en[k] ?? (isPlural(k) ? en[k.replace(SUFFIX, '_other')] : undefined);
  it('has every key of en and no others', () => {
    expect(expectedKeys(locale).filter((k) => !(k in catalog))).toEqual([]);
    expect(Object.keys(catalog).filter((k) => english(k) === undefined)).toEqual([]);
  });
  it('is a real translation, not mostly English', () => {
    const same = Object.keys(catalog).filter((k) => catalog[k] === english(k)).length;
    expect(same / Object.keys(catalog).length).toBeLessThan(0.2);
  });
  it('keeps every interpolation variable', () => {
    const broken = Object.keys(catalog).filter((k) => english(k) !== undefined && vars(catalog[k]).join() !== vars(english(k)).join());
    expect(broken).toEqual([]);
  });
  it('has no empty values', () => {
    expect(Object.entries(catalog).filter(([, v]) => !v.trim()).map(([k]) => k)).toEqual([]);
  });
});

// Issue 25 item 9: what a native speaker would trip over, kept from coming back.
describe('native wording', () => {
  it('says "occurred" in English', () => {
    expect(Object.entries(en).filter(([, v]) => /occured/i.test(v)).map(([k]) => k)).toEqual([]);
  });
  it('never glues a case ending onto a name in Finnish or Polish ("{{creditor}}lle" makes "B.V.lle")', () => {
    for (const locale of ['fi', 'pl'] as const) {
      expect(Object.entries(CATALOGS[locale]).filter(([, v]) => /\}\}[a-zäöåąćęłńóśźż]/i.test(v)).map(([k]) => k)).toEqual([]);
    }
  });
  it('puts no Polish preposition before a member name, which would need a declined form ("Czat z Sara")', () => {
    const declining = /(?:^|\s)(?:z|ze|do|dla|od|u|o|przez|przed|nad|pod|za)\s+\{\{(?:name|actor)\}\}/i;
    expect(Object.entries(CATALOGS.pl).filter(([, v]) => declining.test(v)).map(([k]) => k)).toEqual([]);
  });
  it('has one Polish word for members (użytkownik), not also członek', () => {
    expect(Object.entries(CATALOGS.pl).filter(([, v]) => /członk(?!ostw)/i.test(v)).map(([k]) => k)).toEqual([]);
  });
  const keysMatching = (locale: 'da' | 'it', re: RegExp) => Object.entries(CATALOGS[locale]).filter(([, v]) => re.test(v)).map(([k]) => k);
  it('says "du" in Danish and "tu" in Italian, never the formal forms', () => {
    // Capitalised mid-sentence, De/Dem/Deres and Lei/Suo/Sua are the polite "you"; at the start of a sentence De is "they/the".
    expect(keysMatching('da', /(?<!^|[.!?:]\s)\b(De|Dem|Deres)\b/)).toEqual([]);
    expect(keysMatching('it', /(?<!^|[.!?:]\s)\b(Lei|Suo|Sua|Suoi|Sue)\b|La preghiamo|Si prega/)).toEqual([]);
  });
  it('has one Danish word for credits (credits, as on the pricing and terms pages) and one Italian word for members (membro)', () => {
    expect(keysMatching('da', /\bkredit(ter)?\b|\bkreditpakke/i)).toEqual([]);
    expect(keysMatching('it', /(?<!si (?:è|sono) )\biscritt[oaie]\b/)).toEqual([]);
  });
  it('says "mi piace" in Italian, not "like", and writes Premium as a name', () => {
    expect(keysMatching('it', /\blike\b/i)).toEqual([]);
    expect([...keysMatching('da', /(?<!\{\{)\bpremium/), ...keysMatching('it', /(?<!\{\{)\bpremium/)]).toEqual([]);
  });
  it('does not call premium a subscription in French (the page says there is none)', () => {
    expect(CATALOGS.fr['shop.premium_title']).not.toMatch(/abonnement/i);
  });
});
