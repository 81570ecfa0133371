import { test as base, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import type { Locale } from '../../src/shared/locales';

// Read as files: Playwright's loader cannot import JSON modules without import attributes.
const catalogs = new Map<string, Record<string, string>>();
function catalog(locale: Locale) {
  if (!catalogs.has(locale)) catalogs.set(locale, JSON.parse(readFileSync(`src/shared/i18n/catalogs/${locale}.json`, 'utf8')));
  return catalogs.get(locale) as Record<string, string>;
}

export const PORT = Number(process.env.E2E_PORT ?? 4399);
/** URL on one of the demo sites' local hosts. */
export const onHost = (host: string, path = '/') => `http://${host}:${PORT}${path}`;
/** A catalog text; a counted one (`key_one`, `key_other`…) in the plural form for `count` (default: other). */
export const tr = (locale: Locale, key: string, count?: number) => {
  const form = count === undefined ? 'other' : new Intl.PluralRules(locale).select(count);
  return catalog(locale)[key] ?? catalog(locale)[`${key}_${form}`] ?? catalog('en')[key] ?? catalog('en')[`${key}_${form}`] ?? catalog('en')[`${key}_other`];
};
/** An English catalog text with its {{variables}} filled in (and the plural form for `count`). */
export const tv = (key: string, vars: Record<string, string | number> = {}) =>
  tr('en', key, typeof vars.count === 'number' ? vars.count : undefined).replace(/\{\{(\w+)\}\}/g, (_m, name: string) => String(vars[name] ?? ''));

/** Accepts the adult-entry warning when it shows. */
export async function acceptEntryWarning(page: Page, locale: Locale = 'en') {
  const dialog = page.getByRole('dialog', { name: tr(locale, 'entry.title') });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: tr(locale, 'entry.accept') }).click();
  await expect(dialog).toBeHidden();
}

/** Marks the entry warning as dismissed before any page script runs. */
export async function skipEntryWarning(page: Page) {
  await page.addInitScript(() => localStorage.setItem('hide-entry-warning', String(Date.now())));
}

/**
 * Waits until every island on the page has hydrated (Astro's drop their `ssr` attribute, ours `data-ssr`).
 * The document must be parsed first: right after a navigation starts, no island is in the DOM yet.
 */
export async function hydrated(page: Page) {
  await page.waitForFunction(() => document.readyState !== 'loading' && !document.querySelector('astro-island[ssr], [data-island][data-ssr]'), undefined, { timeout: 10_000 });
}

/** Makes `page.goto` also wait for the islands, so typing never races hydration; answers the page. */
export function gotoHydrates(page: Page): Page {
  const goto = page.goto.bind(page);
  page.goto = async (url, options) => {
    const response = await goto(url, options);
    await hydrated(page);
    return response;
  };
  return page;
}

/** Like Playwright's test, but page.goto also waits for the islands (gotoHydrates). */
export const test = base.extend({
  page: async ({ page }, use) => {
    await use(gotoHydrates(page));
  },
});
export { expect };

/** Opens the search's Filters control where it folds the form away (phones and tablets); a no-op where it is open. */
export async function openSearchFilters(page: Page) {
  const details = page.locator('details.search-filters');
  const summary = details.locator('> summary');
  if ((await summary.isVisible()) && !(await details.evaluate((d) => (d as HTMLDetailsElement).open))) await summary.click();
}

/**
 * The texts of the visible elements matching `selector` that take more than one line: the tops of their text's line
 * boxes (text nodes only, so an inline element's own box does not count as a line).
 */
export async function wrappedTexts(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) => els.filter((el) => {
    const tops = new Set<number>();
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = document.createRange();
      text.selectNodeContents(node);
      for (const r of text.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    }
    return tops.size > 1;
  }).map((el) => el.textContent ?? ''));
}

/**
 * Labels (matching `selector`) broken inside a word, or wider than their box: for every character of a visible
 * label a Range answers its line; a new line may only start after a space. With `controlMax`, a control inside
 * a label wider than that (a stretched radio or checkbox) counts too.
 */
export async function brokenWords(page: Page, selector: string, controlMax?: number): Promise<string[]> {
  return page.evaluate(([selector, controlMax]) => {
    const broken: string[] = [];
    for (const label of document.querySelectorAll<HTMLElement>(selector as string)) {
      if (label.getClientRects().length === 0) continue;
      const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
      let lastTop: number | null = null;
      let spaceSince = false;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let i = 0; i < text.length; i++) {
          if (/[\s-]/.test(text[i])) { spaceSince = true; continue; }
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (!rect) continue;
          if (lastTop !== null && rect.top > lastTop + 2 && !spaceSince) broken.push(`"${label.textContent?.trim()}" before "${text.slice(i)}"`);
          lastTop = rect.top;
          spaceSince = false;
        }
      }
      if (label.scrollWidth > label.clientWidth + 1) broken.push(`"${label.textContent?.trim()}" wider than its box`);
      const input = label.querySelector('input');
      if (controlMax !== null && input && input.getBoundingClientRect().width > (controlMax as number)) broken.push(`"${label.textContent?.trim()}" has a stretched control`);
    }
    return broken;
  }, [selector, controlMax ?? null] as const);
}
