import { describe, expect, it } from 'vitest';
import { shouldReloadAfterChunkError, shouldShowBackButton, shouldShowEntryWarning } from '../../src/core/shell/rules';
import { cleanPhone, creditsBadgeTone, formatBadge, termsVersionDate, titleWithCount } from '../../src/shared/constants';

const base = { standalone: false, dismissed: false, enabled: true, loggedIn: false, country: 'NL', allowedCountries: ['NL', 'BE'] };

describe('site-entry warning', () => {
  it('shows for a new visitor from an allowed country', () => expect(shouldShowEntryWarning(base)).toBe(true));
  it.each([
    ['installed app', { standalone: true }],
    ['dismissed before', { dismissed: true }],
    ['popup disabled', { enabled: false }],
    ['logged in', { loggedIn: true }],
    ['country not allowed', { country: 'US' }],
  ])('stays hidden when %s', (_label, change) => expect(shouldShowEntryWarning({ ...base, ...change })).toBe(false));
  it('shows when the country is unknown', () => expect(shouldShowEntryWarning({ ...base, country: null })).toBe(true));
  it('on Chat and Lander layouts shows only for a known country of the list', () => {
    const layout = { ...base, allowedCountries: ['NL', 'DE'], requireKnownCountry: true };
    expect(shouldShowEntryWarning({ ...layout, country: null })).toBe(false);
    expect(shouldShowEntryWarning({ ...layout, country: 'BE' })).toBe(false);
    expect(shouldShowEntryWarning({ ...layout, country: 'DE' })).toBe(true);
  });
});

describe('navigation rules', () => {
  it('caps badges at 99+ and hides zero', () => {
    expect(formatBadge(0)).toBeNull();
    expect(formatBadge(7)).toBe('7');
    expect(formatBadge(99)).toBe('99');
    expect(formatBadge(100)).toBe('99+');
  });
  it('colours the credits badge at 10 or fewer', () => {
    expect(creditsBadgeTone(11)).toBe('none');
    expect(creditsBadgeTone(10)).toBe('warning');
    expect(creditsBadgeTone(1)).toBe('warning');
    expect(creditsBadgeTone(0)).toBe('danger');
  });
  it('shows the Back button only in the installed app with history on listed routes', () => {
    expect(shouldShowBackButton(true, 2, 'members-id')).toBe(true);
    expect(shouldShowBackButton(true, 1, 'members-id')).toBe(false);
    expect(shouldShowBackButton(false, 5, 'credits')).toBe(false);
    expect(shouldShowBackButton(true, 5, 'members')).toBe(false);
  });
  it('puts the unread count in brackets in the title', () => {
    expect(titleWithCount('Kindred', 3)).toBe('(3) Kindred');
    expect(titleWithCount('(3) Kindred', 5)).toBe('(5) Kindred');
    expect(titleWithCount('(3) Kindred', 0)).toBe('Kindred');
  });
});

describe('constants', () => {
  it('reloads after a chunk error at most once per 60 s', () => {
    expect(shouldReloadAfterChunkError(null, 1000)).toBe(true);
    expect(shouldReloadAfterChunkError(1000, 60_999)).toBe(false);
    expect(shouldReloadAfterChunkError(1000, 61_000)).toBe(true);
  });
  it('cleans the support phone of dashes and whitespace', () => expect(cleanPhone('+31 20-123 45 67')).toBe('+31201234567'));
  it('dates the terms by their version date unless the company was added later', () => {
    const version = '2023-12-01T12:00:00Z';
    expect(termsVersionDate(version, '2022-01-01T00:00:00Z').toISOString()).toBe('2023-12-01T12:00:00.000Z');
    expect(termsVersionDate(version, '2024-03-15T09:00:00Z').toISOString()).toBe('2024-03-15T09:00:00.000Z');
    expect(termsVersionDate(version, null).toISOString()).toBe('2023-12-01T12:00:00.000Z');
    expect(() => termsVersionDate('soon', null)).toThrow();
  });
});
