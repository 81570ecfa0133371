import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../src/shared/i18n';
import { LOCALES } from '../../src/shared/locales';

const en = CATALOGS.en;
const vars = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe.each(LOCALES.filter((l) => l !== 'en'))('catalog %s', (locale) => {
  const catalog = CATALOGS[locale];
  it('has every key of en and no others', () => {
    expect(Object.keys(en).filter((k) => !(k in catalog))).toEqual([]);
    expect(Object.keys(catalog).filter((k) => !(k in en))).toEqual([]);
  });
  it('is a real translation, not mostly English', () => {
    const same = Object.keys(en).filter((k) => catalog[k] === en[k]).length;
    expect(same / Object.keys(en).length).toBeLessThan(0.2);
  });
  it('keeps every interpolation variable', () => {
    const broken = Object.keys(en).filter((k) => k in catalog && vars(catalog[k]).join() !== vars(en[k]).join());
    expect(broken).toEqual([]);
  });
  it('has no empty values', () => {
    expect(Object.entries(catalog).filter(([, v]) => !v.trim()).map(([k]) => k)).toEqual([]);
  });
});
