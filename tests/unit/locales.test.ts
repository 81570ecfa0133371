import { describe, expect, it } from 'vitest';
import { resolveLocale } from '../../src/server/context/request-context';
import { dateTag, localeFromAcceptLanguage, matchLocale } from '../../src/shared/locales';
import { formatDate } from '../../src/shared/money-format';

describe('locale rules', () => {
  it('prefers the lang cookie, then domain_language, then Accept-Language, then en', () => {
    expect(resolveLocale({ cookieLocale: 'fi', domainLanguage: 'nl-NL', acceptLanguage: 'de' })).toEqual({ locale: 'fi', source: 'cookie' });
    expect(resolveLocale({ cookieLocale: null, domainLanguage: 'nl-NL', acceptLanguage: 'de' })).toEqual({ locale: 'nl', source: 'site' });
    expect(resolveLocale({ domainLanguage: 'pt-PT', acceptLanguage: 'sv-SE,sv;q=0.9' })).toEqual({ locale: 'sv', source: 'header' });
    expect(resolveLocale({ domainLanguage: null, acceptLanguage: 'ja' })).toEqual({ locale: 'en', source: 'default' });
  });

  it('ignores a cookie that is not a supported locale', () => {
    expect(resolveLocale({ cookieLocale: 'xx', domainLanguage: 'de-DE' }).locale).toBe('de');
    expect(resolveLocale({ cookieLocale: 'de-DE', domainLanguage: 'fr' }).locale).toBe('fr');
  });

  it('honours q values and maps Norwegian tags to nb', () => {
    expect(localeFromAcceptLanguage('ja;q=1, da;q=0.4, fr;q=0.8')).toBe('fr');
    expect(localeFromAcceptLanguage('no')).toBe('nb');
    expect(matchLocale('nn-NO')).toBe('nb');
    expect(localeFromAcceptLanguage('es;q=0')).toBeNull();
    expect(localeFromAcceptLanguage('')).toBeNull();
  });
});

describe('date locale', () => {
  it('writes dates in the member locale, and in the spec default nl when none is known', () => {
    expect(dateTag('de')).toBe('de-DE');
    expect(dateTag('sv')).toBe('sv-SE');
    expect(dateTag(undefined)).toBe('nl-NL');
    expect(dateTag('xx')).toBe('nl-NL');
    expect(formatDate('2026-03-05T10:00:00Z', 'xx', false, 'UTC')).toBe(formatDate('2026-03-05T10:00:00Z', 'nl', false, 'UTC'));
    expect(formatDate('2026-03-05T10:00:00Z', 'xx', false, 'UTC')).toBe('5 mrt 2026');
  });
});
