import { createInstance, type TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';
import { I18N_OPTIONS, rememberPlainKeys } from '../../src/shared/i18n/options';
import { getT } from '../../src/shared/i18n';

// The remembering translator (src/shared/i18n/options.ts) must answer exactly what i18next answers.

function counted() {
  const instance = createInstance();
  instance.init({
    ...I18N_OPTIONS, lng: 'en',
    resources: { en: { translation: { hi: 'Hello {{name}}', items_one: '{{count}} item', items_other: '{{count}} items', plain: 'Plain' } } },
  });
  let calls = 0;
  const base = ((...args: unknown[]) => {
    calls++;
    return (instance.t as unknown as (...a: unknown[]) => string)(...args);
  }) as unknown as TFunction;
  return { t: rememberPlainKeys(base), instance, calls: () => calls };
}

describe('rememberPlainKeys', () => {
  it('answers as i18next for plain keys, flat options and plurals, asking i18next once per distinct call', () => {
    const { t, instance, calls } = counted();
    for (let round = 0; round < 3; round++) {
      expect(t('plain')).toBe('Plain');
      expect(t('hi', { name: 'Ann' })).toBe(instance.t('hi', { name: 'Ann' }));
      expect(t('hi', { name: 'Bob' })).toBe('Hello Bob');
      expect(t('items', { count: 1 })).toBe('1 item');
      expect(t('items', { count: 2 })).toBe('2 items');
    }
    expect(calls()).toBe(5);
  });

  it('never remembers calls whose options are not flat', () => {
    const { t, calls } = counted();
    const nested = { name: 'Ann', extra: { deep: true } };
    t('hi', nested);
    t('hi', nested);
    expect(calls()).toBe(2);
  });

  it('the server translators answer every catalog key as a fresh i18next would, twice', () => {
    const t = getT('de');
    const once = t('nav.unread_badge', { count: 3 });
    expect(t('nav.unread_badge', { count: 3 })).toBe(once);
    expect(t('nav.unread_badge', { count: 1 })).not.toBe(once);
    expect(once).toContain('3');
  });
});
