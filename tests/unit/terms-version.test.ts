import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { LOCALES } from '../../src/shared/locales';
import { formatTermsDate } from '../../src/shared/static-pages';
import { loadSites } from '../../src/server/sites/site-registry';

const frontMatter = (file: string) => {
  const match = /^---\n([\s\S]*?)\n---/.exec(readFileSync(file, 'utf8'));
  return (match ? parseYaml(match[1]) : {}) as Record<string, unknown>;
};

describe('terms version date', () => {
  it.each(LOCALES)('comes from the front matter of content/pages/%s/terms.md, a valid UTC date', (locale) => {
    const { version_date: version } = frontMatter(`content/pages/${locale}/terms.md`);
    expect(typeof version).toBe('string');
    expect(new Date(version as string).toISOString()).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('only terms pages carry one', () => {
    for (const locale of LOCALES) {
      const others = readdirSync(`content/pages/${locale}`).filter((f) => f.endsWith('.md') && f !== 'terms.md');
      for (const file of others) expect(frontMatter(`content/pages/${locale}/${file}`).version_date, file).toBeUndefined();
    }
  });

  it('is shown in the page locale, or as the company\'s added date when that is later', () => {
    const [site] = loadSites();
    const version = frontMatter('content/pages/nl/terms.md').version_date as string;
    expect(formatTermsDate({ ...site, company: { ...site.company, added: '2020-01-01T00:00:00Z' } }, 'nl', version)).toBe('1 december 2023 om 12:00 UTC');
    expect(formatTermsDate({ ...site, company: { ...site.company, added: '2025-02-03T10:00:00Z' } }, 'en', version)).toBe('February 3, 2025 at 10:00 AM UTC');
  });
});
