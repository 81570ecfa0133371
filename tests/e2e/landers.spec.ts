import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { LOCALE_TAGS, type Locale } from '../../src/shared/locales';
import { LANDER_TYPES, TRACKING_COOKIE } from '../../src/shared/tracking';
import { expect, onHost, skipEntryWarning, test, tr } from './fixtures';

/** The headline editors wrote for a lander (front matter of content/landers/<locale>/<type>/<slug>.md). */
function headline(locale: Locale, type: string, slug = 'default'): string {
  const md = readFileSync(`content/landers/${locale}/${type}/${slug}.md`, 'utf8');
  return JSON.parse(/^headline: (.*)$/m.exec(md)?.[1] ?? '""');
}

/** Gzipped JavaScript bytes the page loaded (transfer sizes of its scripts; the server sends them precompressed). */
function scriptBytes(page: Page) {
  return page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.js'))
    .reduce((sum, e) => sum + (e as PerformanceResourceTiming).encodedBodySize, 0));
}

/** A profile the site shows visitors (read through the browser: only it resolves *.localhost). */
async function someProfile(page: Page, host: string): Promise<{ id: number; name: string }> {
  const res = await page.goto(onHost(host, '/api/lander-profiles.php?limit=1'));
  if (!res) throw new Error(`no answer from ${host}`);
  return (await res.json()).profiles[0];
}

// Each type once, rotating over three sites × locales, so every type and every site/locale pair is covered.
const PLACES = [
  { host: 'localhost', locale: 'en' },
  { host: 'gay.localhost', locale: 'de' },
  { host: 'rijpe.localhost', locale: 'nl' },
] as const;

test.describe('landers', () => {
  LANDER_TYPES.forEach((type, i) => {
    const { host, locale } = PLACES[i % PLACES.length];
    test(`${type} renders its design and profiles on ${host} (${locale}) and opens signup keeping the tracking`, async ({ page, context }, info) => {
      await context.addCookies([{ name: 'lang', value: locale, url: onHost(host) }]);
      await skipEntryWarning(page);
      const res = await page.goto(onHost(host, `/landers/${type}?network=adnet&sub1=campaign7`));
      expect(res?.status()).toBe(200);
      await expect(page.locator('html')).toHaveAttribute('lang', LOCALE_TAGS[locale]);
      await expect(page.locator(`[data-lander="${type}"]`)).toBeVisible();
      await expect(page.getByRole('heading', { level: 1 }).first()).toHaveText(headline(locale, type));
      // Teasers are filled with real profiles after load (names replace the placeholder).
      await expect(page.locator('[data-teaser-name]').first()).not.toHaveText(tr(locale, 'lander.teaser_new'));
      expect(await scriptBytes(page)).toBeLessThanOrEqual(10 * 1024);
      const cookie = (await context.cookies(onHost(host))).find((c) => c.name === TRACKING_COOKIE);
      expect(decodeURIComponent(cookie?.value ?? '')).toContain('network=adnet&sub1=campaign7');
      await page.screenshot({ path: info.outputPath(`${type}.png`), fullPage: false });
      const cta = page.locator('main a[data-open-signup].lander-cta').first();
      if (info.project.name === 'phone') {
        await cta.click();
        await expect(page).toHaveURL(/\/signup$/);
        // The wizard's first step, on its own page (its title is the page's h1 there).
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(page.getByLabel(tr(locale, 'auth.email'))).toBeVisible();
        await expect(page.getByText(tr(locale, 'signup.invite_only'))).toHaveCount(0);
      } else {
        await cta.click();
        const modal = page.locator('#signup-modal');
        await expect(modal).toBeVisible();
        await expect(modal.getByLabel(tr(locale, 'auth.email'))).toBeVisible();
        await expect(modal.getByText(tr(locale, 'signup.invite_only'))).toHaveCount(0);
      }
    });
  });

  test('an unknown slug or type is the 404 page', { tag: '@any-width' }, async ({ page }) => {
    expect((await page.goto('/landers/gallery/no-such-slug'))?.status()).toBe(404);
    expect((await page.goto('/landers/nosuchtype'))?.status()).toBe(404);
    // A niche slug exists only on its site.
    expect((await page.goto(onHost('gay.localhost', '/landers/gallery/mature')))?.status()).toBe(404);
    expect((await page.goto(onHost('rijpe.localhost', '/landers/gallery/mature')))?.status()).toBe(200);
  });

  test('a visitor from a lander can still sign up three clicks later on an invitation-only site', { tag: '@any-width' }, async ({ page, context }, info) => {
    await context.addCookies([{ name: 'lang', value: 'nl', url: onHost('rijpe.localhost') }]);
    await skipEntryWarning(page);
    await page.goto(onHost('rijpe.localhost', '/landers/gallery?network=x'));
    await page.goto(onHost('rijpe.localhost', '/members'));
    await expect(page).toHaveURL(/\/members$/);
    await page.locator('a[href^="/members/"]:not([data-open-signup])').first().click();
    await expect(page).toHaveURL(/\/members\/\d+$/);
    await page.locator('a[data-open-signup]').first().click();
    // Desktop opens the signup modal; phones take the signup page, as does a click made before the page's script ran
    // (the link works without JavaScript: a loaded CI machine clicked that early once).
    if (info.project.name === 'phone') await expect(page).toHaveURL(/\/signup/);
    const email = page.getByLabel(tr('nl', 'auth.email'));
    const form = page.locator('#signup-modal[open], main').filter({ has: email }).first();
    await expect(form).toBeVisible();
    await expect(form.getByLabel(tr('nl', 'auth.email'))).toBeVisible();
    await expect(form.getByText(tr('nl', 'signup.invite_only'))).toHaveCount(0);
  });
});

test.describe('profile landing pages', () => {
  for (const [path, design] of [['landing', 1], ['landing2', 2], ['landing3', 3]] as const) {
    test(`/members/{id}/${path} shows the member and opens signup aimed at them`, async ({ page }, info) => {
      await skipEntryWarning(page);
      const { id, name } = await someProfile(page, 'gay.localhost');
      const res = await page.goto(onHost('gay.localhost', `/members/${id}/${path}`));
      expect(res?.status()).toBe(200);
      await expect(page.locator(`[data-profile-landing="${design}"]`)).toBeVisible();
      await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', 'noindex');
      await page.screenshot({ path: info.outputPath(`${path}.png`) });
      await page.locator(`a[data-target="${id}"]`).first().click();
      const title = tr('de', 'signup.title_target').replace('{{name}}', name);
      if (info.project.name === 'phone') await expect(page).toHaveURL(new RegExp(`/members/${id}/signup$`));
      await expect(page.getByRole('heading', { name: title })).toBeVisible();
    });
  }

  test('unknown, invisible or other-site profiles are 404', { tag: '@any-width' }, async ({ page }) => {
    expect((await page.goto('/members/999999999/landing'))?.status()).toBe(404);
    expect((await page.goto('/members/abc/landing2'))?.status()).toBe(404);
    const other = (await someProfile(page, 'gay.localhost')).id;
    expect((await page.goto(onHost('localhost', `/members/${other}/landing3`)))?.status()).toBe(404);
    expect((await page.goto(onHost('gay.localhost', `/members/${other}/landing2/no-such-slug`)))?.status()).toBe(404);
    expect((await page.goto(onHost('gay.localhost', `/members/${other}/landing2/men`)))?.status()).toBe(200);
    // One route serves the three designs: any other name there, or a slug on the first design, is no page.
    expect((await page.goto(onHost('gay.localhost', `/members/${other}/landing4`)))?.status()).toBe(404);
    expect((await page.goto(onHost('gay.localhost', `/members/${other}/landing/men`)))?.status()).toBe(404);
    expect((await page.goto(onHost('gay.localhost', `/members/${other}/hasOwnProperty`)))?.status()).toBe(404);
  });
});

test('live cam cards are marked and link to the partner (site flag)', { tag: '@any-width' }, async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/members');
  const card = page.locator('[data-live-cam]');
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(tr('en', 'livecam.badge'));
  const link = card.getByRole('link', { name: tr('en', 'livecam.title') });
  await expect(link).toHaveAttribute('href', 'https://cams.partner.example/?aff=kindred');
  await expect(link).toHaveAttribute('rel', /sponsored/);
  // The US footer variant shows for locale en on a site that enables it.
  await expect(page.getByText(tr('en', 'footer.us_age_statement').replace('{{site}}', 'Kindred'))).toBeVisible();
  // Other sites have neither.
  await page.goto(onHost('rijpe.localhost', '/members?network=x'));
  await expect(page.locator('.profile-card').first()).toBeVisible();
  await expect(page.locator('[data-live-cam]')).toHaveCount(0);
});
