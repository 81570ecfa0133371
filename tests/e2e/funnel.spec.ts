import type { Page } from '@playwright/test';
import { expect, onHost, skipEntryWarning, test, tr } from './fixtures';

// Issue 24: from the ad click to a member (choice cards: choice-cards.spec.ts).

/** A profile the site shows visitors (read through the browser: only it resolves *.localhost). */
async function someProfile(page: Page, host: string): Promise<{ id: number; name: string }> {
  const res = await page.goto(onHost(host, '/api/lander-profiles.php?limit=1'));
  if (!res) throw new Error(`no answer from ${host}`);
  return (await res.json()).profiles[0];
}

for (const [lang, tag] of [['nl', 'nl-NL'], ['de', 'de-DE']] as const) {
  test(`a visitor landing on a ${lang} lander of an English site keeps ${lang} on the next three pages`, { tag: '@any-width' }, async ({ browser, baseURL }) => {
    // Five pages, the profile a framed member page: slow on a busy machine.
    test.setTimeout(60_000);
    const context = await browser.newContext({ baseURL, locale: tag, extraHTTPHeaders: { 'Accept-Language': `${tag},${lang};q=0.9` } });
    const page = await context.newPage();
    const { id } = await someProfile(page, 'localhost');
    // The settings call (the entry warning asks it for the country) used to set the site's language here.
    const settings = page.waitForResponse((r) => r.url().includes('/api/settings.php'));
    await page.goto(`/${lang}/landers/gallery?network=adnet`);
    await settings;
    await expect(page.locator('html')).toHaveAttribute('lang', tag);
    for (const path of ['/', '/signup', `/members/${id}`]) {
      await page.goto(path);
      await expect(page.locator('html'), path).toHaveAttribute('lang', tag);
    }
    await context.close();
  });
}

test('"Send a message" on a profile opens the form aimed at that member, on a desktop and a phone', async ({ page, isMobile }) => {
  await skipEntryWarning(page);
  const { id, name } = await someProfile(page, 'localhost');
  await page.goto(`/members/${id}`);
  await page.getByRole('link', { name: tr('en', 'profile.chat') }).click();
  const title = tr('en', 'signup.title_target').replace('{{name}}', name);
  if (isMobile) await expect(page).toHaveURL(new RegExp(`/members/${id}/signup$`));
  const form = isMobile ? page.locator('main') : page.locator('#signup-modal');
  await expect(form.getByRole('heading', { name: title })).toBeVisible();
  await expect(form.getByLabel(tr('en', 'signup.free_message').replace('{{name}}', name))).toBeVisible();
  await expect(form.getByRole('button', { name: tr('en', 'signup.send_and_create') })).toBeVisible();
});

test.describe('an invitation-only site', () => {
  test('its landers are not in the sitemap, and organic visitors are offered the login instead of a signup', { tag: '@any-width' }, async ({ page }) => {
    await skipEntryWarning(page);
    const sitemap = await (await page.goto(onHost('rijpe.localhost', '/sitemap.xml')))?.text();
    expect(sitemap).toContain('/terms</loc>');
    expect(sitemap).not.toContain('/landers/');
    expect(await (await page.goto(onHost('localhost', '/sitemap.xml')))?.text()).toContain('/landers/gallery</loc>');

    await page.goto(onHost('rijpe.localhost', '/nl/landers/gallery'));
    const cta = page.locator('main a.lander-cta').first();
    await expect(cta).toHaveText(tr('nl', 'lander.cta_invite_only'));
    await expect(cta).toHaveAttribute('href', '/login');

    // A visitor from an ad may sign up: the lander's own call to action stays.
    await page.goto(onHost('rijpe.localhost', '/nl/landers/gallery?network=adnet'));
    await expect(page.locator('main a.lander-cta').first()).not.toHaveText(tr('nl', 'lander.cta_invite_only'));
    await expect(page.locator('main a.lander-cta').first()).toHaveAttribute('href', '/signup');

    // The home page too: one honest way in (the login), and no "sign up free" in its text.
    await page.goto(onHost('rijpe.localhost', '/'));
    const hero = page.locator('[data-home]');
    await expect(hero.getByRole('link', { name: tr('nl', 'lander.cta_invite_only') })).toHaveAttribute('href', '/login');
    await expect(hero.getByRole('link', { name: tr('nl', 'home.cta_signup') })).toHaveCount(0);
    await expect(hero.getByRole('link', { name: tr('nl', 'home.cta_login'), exact: true })).toHaveCount(0);
    await expect(hero).toContainText(tr('nl', 'home.hero_text_invite'));
    await page.goto(onHost('rijpe.localhost', '/?network=adnet'));
    await expect(hero.getByRole('link', { name: tr('nl', 'home.cta_signup') })).toHaveAttribute('href', '/signup');
    await expect(hero).toContainText(tr('nl', 'home.hero_text'));
  });
});
