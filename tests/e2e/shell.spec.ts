import { gzipSync } from 'node:zlib';
import AxeBuilder from '@axe-core/playwright';
import { STATIC_PAGES } from '../../src/shared/constants';
import { LOCALES, LOCALE_TAGS } from '../../src/shared/locales';
import { acceptEntryWarning, expect, onHost, skipEntryWarning, test, tr } from './fixtures';

test.describe('home page and locales', () => {
  for (const locale of ['en', 'de', 'nl'] as const) {
    test(`renders the home page in ${locale}`, { tag: '@any-width' }, async ({ page, context }) => {
      await context.addCookies([{ name: 'lang', value: locale, url: onHost('localhost') }]);
      await skipEntryWarning(page);
      await page.goto('/');
      await expect(page.locator('html')).toHaveAttribute('lang', LOCALE_TAGS[locale]);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr(locale, 'home.hero_title'));
      await expect(page.getByRole('link', { name: tr(locale, 'nav.login') })).toBeVisible();
    });
  }

  test('switches language with the dropdown, sets the cookie and keeps it after reload', async ({ page, context }) => {
    await skipEntryWarning(page);
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('en', 'home.hero_title'));
    await page.getByLabel(tr('en', 'nav.choose_language')).click();
    await page.getByRole('link', { name: 'Deutsch' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('de', 'home.hero_title'));
    const cookie = (await context.cookies()).find((c) => c.name === 'lang');
    expect(cookie?.value).toBe('de');
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(364 * 86400);
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('de', 'home.hero_title'));
    await page.goto('/terms');
    await expect(page.locator('html')).toHaveAttribute('lang', 'de-DE');
  });

  test('shows the site-entry warning once', async ({ page }) => {
    await page.goto('/');
    await acceptEntryWarning(page);
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('dialog')).toBeHidden();
    await page.goto('/faq');
    await expect(page.getByRole('dialog')).toBeHidden();
  });

  test('keeps the entry warning open on Escape (it is a gate)', async ({ page }) => {
    await page.goto('/');
    const dialog = page.getByRole('dialog', { name: tr('en', 'entry.title') });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('button', { name: tr('en', 'entry.accept') })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
  });
});

test.describe('static pages', () => {
  test('every static page answers 200 in every locale, in its own language', { tag: '@any-width' }, async ({ request }) => {
    for (const locale of LOCALES) {
      for (const page of STATIC_PAGES) {
        const res = await request.get(`/${locale}/${page}`);
        expect(res.status(), `/${locale}/${page}`).toBe(200);
        const html = await res.text();
        expect(html).toContain(`<html lang="${LOCALE_TAGS[locale]}"`);
        expect(html, `/${locale}/${page} has unfilled placeholders`).not.toMatch(/\{\{\s*[a-z_]+\s*\}\}/);
        expect(html).toContain('hreflang="x-default"');
        expect(html).toContain(`rel="canonical" href="https://kindred.example/${locale}/${page}"`);
        expect(res.headers()['content-language']).toBe(locale);
      }
    }
  });

  test('the unprefixed URL follows the lang cookie and fills the site data', { tag: '@any-width' }, async ({ request }) => {
    const nl = await request.get('/terms', { headers: { cookie: 'lang=nl' } });
    expect(await nl.text()).toContain('<html lang="nl-NL"');
    const html = await (await request.get('/service', { headers: { host: `rijpe.localhost:4399`, cookie: 'lang=en' } })).text();
    expect(html).toContain('Rijpe Media B.V.');
    expect(html).toContain('0307654321');
    const terms = await (await request.get('/en/terms', { headers: { host: `rijpe.localhost:4399` } })).text();
    expect(terms).toContain('March 15, 2024');
  });

  test('serves a sitemap with hreflang alternates per site', { tag: '@any-width' }, async ({ request }) => {
    const xml = await (await request.get('/sitemap.xml', { headers: { host: 'gay.localhost:4399' } })).text();
    expect(xml).toContain('<loc>https://maennerhafen.example/de/terms</loc>');
    expect(xml).toContain('hreflang="fi-FI"');
  });

  test('ships at most 15 KB of gzipped JavaScript', { tag: '@any-width' }, async ({ page }) => {
    await skipEntryWarning(page);
    let total = 0;
    page.on('response', async (res) => {
      if (res.request().resourceType() === 'script') total += gzipSync(await res.body()).length;
    });
    await page.goto('/terms', { waitUntil: 'networkidle' });
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(15 * 1024);
  });

  test('answers with brotli, ETag and 304', { tag: '@any-width' }, async ({ request }) => {
    const res = await request.get('/en/privacy', { headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers()['content-encoding']).toBe('gzip');
    const etag = res.headers().etag;
    const again = await request.get('/en/privacy', { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
    expect(again.status()).toBe(304);
    expect((await res.text()).length).toBeGreaterThan(1000); // the client decompressed it
  });
});

test.describe('errors and safety', () => {
  test('shows the 404 page with a link home', { tag: '@any-width' }, async ({ page }) => {
    await skipEntryWarning(page);
    const res = await page.goto('/does-not-exist');
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('en', 'error.not_found'));
    await page.getByRole('link', { name: tr('en', 'error.back_home') }).click();
    await expect(page).toHaveURL(/\/$/);
  });

  test('shows the error page with status 500 when a page fails', { tag: '@any-width' }, async ({ page }) => {
    await skipEntryWarning(page);
    const res = await page.goto('/dev/error');
    expect(res?.status()).toBe(500);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('en', 'error.title'));
    await expect(page.getByText(tr('en', 'error.generic'))).toBeVisible();
    await expect(page.getByText('Deliberate failure')).toHaveCount(0);
  });

  test('shows the fallback page with status 500 when the error page fails too', { tag: '@any-width' }, async ({ page }) => {
    const res = await page.goto('/dev/error?error-page-fails');
    expect(res?.status()).toBe(500);
    expect(res?.headers()['content-type']).toContain('text/html');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('en', 'error.page_failed_title'));
    await expect(page.getByRole('link', { name: tr('en', 'error.go_home') })).toBeVisible();
    await expect(page.getByText('Deliberate failure')).toHaveCount(0);
  });

  test('sends security headers everywhere', { tag: '@any-width' }, async ({ request }) => {
    for (const path of ['/', '/terms', '/does-not-exist', '/api/settings.php', '/api/nope.php']) {
      const h = (await request.get(path)).headers();
      expect(h['x-content-type-options'], path).toBe('nosniff');
      expect(h['referrer-policy'], path).toBeTruthy();
      expect(h['content-security-policy'], path).toContain("frame-ancestors 'none'");
    }
    const api404 = await request.get('/api/nope.php');
    expect(api404.status()).toBe(404);
    expect((await api404.json()).error).toBe('not_found');
  });
});

test.describe('sites', () => {
  test('two sites on two hosts show their own names and colours', { tag: '@any-width' }, async ({ page }) => {
    await skipEntryWarning(page);
    await page.goto(onHost('gay.localhost', '/'));
    await expect(page.locator('.brand-name')).toHaveText('Männerhafen');
    await expect(page.locator('html')).toHaveAttribute('lang', 'de-DE');
    const gayColour = await page.locator('.site-footer').evaluate((el) => getComputedStyle(el).backgroundColor);
    await page.goto(onHost('rijpe.localhost', '/'));
    await expect(page.locator('.brand-name')).toHaveText('Rijpe Dates');
    await expect(page.locator('html')).toHaveAttribute('lang', 'nl-NL');
    const rijpeColour = await page.locator('.site-footer').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(gayColour).toBe('rgb(29, 53, 87)');
    expect(rijpeColour).toBe('rgb(109, 27, 59)');
  });

  test('the home page has no accessibility violations', async ({ page }) => {
    await skipEntryWarning(page);
    await page.goto('/');
    const results = await new AxeBuilder({ page: page as never }).analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);
  });
});
