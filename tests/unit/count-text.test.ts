import { describe, expect, it } from 'vitest';
import { countText, formsOf } from '../../src/core/landers/count-text';
import { pluralForms } from '../../src/shared/i18n';
import { LOCALE_TAGS, LOCALES } from '../../src/shared/locales';

describe('counted lander texts', () => {
  it('says "1 member" and "2 members", never "1 members"', () => {
    const forms = pluralForms('en', 'lander.map_members');
    expect(countText(forms, 'en', 1)).toBe('1 member');
    expect(countText(forms, 'en', 2)).toBe('2 members');
    expect(countText(forms, 'en', 1200)).toBe('1,200 members');
    expect(countText(pluralForms('nl', 'lander.map_members'), 'nl', 1)).toBe('1 lid');
    expect(countText(pluralForms('de', 'lander.map_members'), 'de', 1)).toBe('1 Mitglied');
  });

  it('uses Polish few and many forms', () => {
    const forms = pluralForms('pl', 'lander.map_members');
    expect(countText(forms, 'pl', 1)).toBe('1 osoba');
    expect(countText(forms, 'pl', 3)).toBe('3 osoby');
    expect(countText(forms, 'pl', 5)).toBe('5 osób');
    expect(countText(forms, 'pl', 22)).toBe('22 osoby');
  });

  it('has a one and an other form that differ in every locale, for each counted lander and home text', () => {
    for (const locale of LOCALES) {
      for (const key of ['lander.map_members', 'lander.online_now', 'lander.members_total', 'home.online_now']) {
        const forms = pluralForms(locale, key);
        expect(countText(forms, LOCALE_TAGS[locale], 1), `${locale} ${key}`).toContain('1');
        expect(forms.one, `${locale} ${key}`).not.toBe(forms.other);
      }
    }
  });

  it('reads the forms a page hands its script, and says nothing without them', () => {
    expect(formsOf(JSON.stringify({ one: '{{count}} x', other: '{{count}} xs' }))).toEqual({ one: '{{count}} x', other: '{{count}} xs' });
    expect(formsOf('not json')).toBeUndefined();
    expect(countText(undefined, 'en', 3)).toBe('');
  });
});
