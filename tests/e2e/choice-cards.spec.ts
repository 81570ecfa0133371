import type { Page } from '@playwright/test';
import type { Locale } from '../../src/shared/locales';
import { brokenWords, expect, hydrated, onHost, skipEntryWarning, test, tr } from './fixtures';

// Issue 24: choice cards (signup, match finder, profile) break only between words. The test sets the widths
// itself (320, 390, 1280 px), so only the desktop project runs this file (playwright.config.ts).

const WIDTHS = [320, 390, 1280];
/** Each site in its own language; the English site in the two languages with the longest words too. */
const CASES = [
  { host: 'localhost', lang: 'en' }, { host: 'localhost', lang: 'nl' }, { host: 'localhost', lang: 'de' },
  { host: 'rijpe.localhost', lang: 'nl' }, { host: 'gay.localhost', lang: 'de' },
] as const;

/** Checks the visible choice cards at each width (and takes a screenshot of each). */
async function expectWholeWords(page: Page, what: string, shot: (name: string) => string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await expect(page.locator('.choice').first()).toBeVisible();
    expect(await brokenWords(page, '.choice', 40), `${what} at ${width} px`).toEqual([]);
    await page.screenshot({ path: shot(`${what}-${width}.png`), fullPage: width !== 1280 });
  }
}

test.describe('choice cards', () => {
  for (const { host, lang } of CASES) {
    test(`${host} (${lang}): signup, match finder and profile choices break only between words at 320, 390 and 1280 px`, async ({ page, context }, info) => {
      test.setTimeout(90_000);
      const t = (key: string) => tr(lang as Locale, key);
      const shot = (name: string) => info.outputPath(`${host}-${lang}-${name}`);
      await context.addCookies([{ name: 'lang', value: lang, url: onHost(host) }]);
      await skipEntryWarning(page);

      // The desktop modal (500 px) from the home page.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(onHost(host, '/?network=e2e'));
      await page.locator('main a[href="/signup"]').first().click();
      const modal = page.locator('#signup-modal');
      await expect(modal.getByLabel(t('auth.email'))).toBeVisible();
      expect(await brokenWords(page, '.choice', 40), 'signup modal at 1280 px').toEqual([]);
      await page.screenshot({ path: shot('signup-modal-1280.png') });

      await page.goto(onHost(host, '/signup?network=e2e'));
      await expectWholeWords(page, 'signup-account', shot);
      await page.getByLabel(t('auth.username')).fill(`Chooser${Math.floor(Math.random() * 1e6)}`);
      await page.getByLabel(t('auth.email')).fill(`chooser-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`);
      await page.getByLabel(t('auth.password')).fill('a long passphrase 42');
      await page.locator('input[name="date_of_birth"]').fill('1980-03-03');
      await page.locator('main button[type="submit"]').click();
      await page.getByRole('button', { name: t('signup.skip') }).click({ timeout: 15_000 });
      await expect(page.getByRole('heading', { name: t('signup.about_title') })).toBeVisible();
      await expectWholeWords(page, 'signup-about', shot);

      await page.goto(onHost(host, '/match-finder'));
      await hydrated(page);
      // A site that does not search by gender (Männerhafen, Rijpe Dates: each shows its members the one gender they seek)
      // starts at the ages: "Any" would be the only answer to whom.
      const asksWho = host === 'localhost';
      if (asksWho) await expectWholeWords(page, 'match-finder-who', shot);
      else await expect(page.getByRole('combobox', { name: t('search.min_age') })).toBeVisible();
      await expect(page.getByText(t('finder.who'))).toHaveCount(asksWho ? 1 : 0);
      for (let i = 0; i < (asksWho ? 3 : 2); i++) await page.getByRole('button', { name: t('signup.next') }).click();
      await expectWholeWords(page, 'match-finder-interests', shot);

      await page.goto(onHost(host, '/profile'));
      await hydrated(page);
      await expectWholeWords(page, 'profile', shot);
      // Interests are chips: many share a line (not one full-width card each).
      await page.setViewportSize({ width: 390, height: 800 });
      const tops = await page.locator('.interest-grid .choice').evaluateAll((chips) => new Set(chips.map((c) => Math.round(c.getBoundingClientRect().top))).size);
      const chips = await page.locator('.interest-grid .choice').count();
      expect(tops).toBeLessThanOrEqual(chips / 2);
    });
  }
});
