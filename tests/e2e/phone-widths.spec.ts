import { expect, type Page } from '@playwright/test';
import { brokenWords, onHost, skipEntryWarning, test, wrappedTexts } from './fixtures';
import { LOCALES } from '../../src/shared/locales';

// The narrowest phones still in use: nothing may scroll sideways, logged in or out, on any demo site.
const SITES = [['localhost', 'kindred.example'], ['rijpe.localhost', 'rijpedates.example'], ['gay.localhost', 'maennerhafen.example']] as const;
const MEMBER_PAGES = ['/members', '/chats', '/likes', '/profile', '/settings', '/terms'];
const VISITOR_PAGES = ['/', '/login', '/terms'];
/** Every page at the narrowest width; at the other common phone widths a page of each kind (time stays reasonable). */
const WIDTHS = [320, 360, 375, 390, 414];
const AT_OTHER_WIDTHS = new Set(['/', '/login', '/members', '/profile', '/chats']);
const pagesAt = (width: number, pages: string[]) => (width === 320 ? pages : pages.filter((p) => AT_OTHER_WIDTHS.has(p)));

async function overflowing(page: Page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > vw + 1 && el.getBoundingClientRect().width > 0)
      .slice(0, 3)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`);
    // Warning banners take one line each on phones (the text gives way, with an ellipsis); the push offer
    // floating at the foot is the exception: its sentence is read whole.
    const tall = [...document.querySelectorAll<HTMLElement>('.warning-banners > :not(.push-offer) .alert-text, .time-bonus-banner .tb-text')]
      .filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().height > 1.6 * Number.parseFloat(getComputedStyle(el).lineHeight))
      .map((el) => el.textContent?.slice(0, 30));
    const cutOffer = [...document.querySelectorAll<HTMLElement>('.push-offer:not([hidden]) .alert-text')]
      .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent?.slice(0, 30));
    return { scroll: document.documentElement.scrollWidth, vw, wide, tall: [...tall, ...cutOffer] };
  });
}

/** Logs in as a demo site's free member (the page's own fetch: only the browser resolves *.localhost). */
async function logInFree(page: Page, domain = 'kindred.example') {
  const status = await page.evaluate(async (email) => (await fetch('/api/user.php', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'kindred-demo-2026' }),
  })).status, `free@${domain}`);
  expect(status).toBe(200);
}

test.use({ viewport: { width: 320, height: 640 } });

for (const [host, domain] of SITES) {
  test(`${host}: no page scrolls sideways at 320, 360, 375, 390 and 414 px; banners take one line`, async ({ page }) => {
    test.setTimeout(150_000);
    await skipEntryWarning(page);
    const check = async (pages: string[], state: string) => {
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 640 });
        for (const path of pagesAt(width, pages)) {
          await page.goto(onHost(host, path));
          const o = await overflowing(page);
          expect(o.scroll, `${path} ${state} at ${width}: ${o.wide.join(' ')}`).toBeLessThanOrEqual(o.vw);
          expect(o.tall, `${path} ${state} at ${width}: banners on more than one line`).toEqual([]);
        }
      }
    };
    await check(VISITOR_PAGES, 'logged out');
    await logInFree(page, domain);
    await check(MEMBER_PAGES, 'logged in');
  });
}

// The time bonus's banner (a new member's first hours) in every language at 320 px: its button's label wraps where it is
// long ("Profiter de ma réduction", "Quiero mi descuento"), nothing goes past the screen's edge. On the same page a
// search card's town ("Edgeworthstown", "Wolverhampton") and the live cam card's text and badge stay whole.
test('the time bonus banner and the search cards fit a 320 px phone in every language', async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/terms');
  await logInFree(page);
  for (const locale of LOCALES) {
    await page.context().addCookies([{ name: 'lang', value: locale, url: page.url() }]);
    await page.goto('/members');
    expect(await page.locator('html').getAttribute('lang'), locale).toMatch(new RegExp(`^${locale}`));
    const banner = page.locator('.time-bonus-banner');
    await expect(banner, locale).toBeVisible();
    const o = await overflowing(page);
    expect(o.scroll, `${locale}: ${o.wide.join(' ')}`).toBeLessThanOrEqual(o.vw);
    const [box, cta] = [await banner.boundingBox(), await banner.locator('.tb-cta').boundingBox()];
    expect(cta && box && cta.x + cta.width <= box.x + box.width + 0.5, `${locale}: the button inside the banner`).toBe(true);
    await expect(page.locator('.profile-card').first(), locale).toBeVisible();
    expect(await brokenWords(page, '.profile-card .card-meta, .members-page h1'), locale).toEqual([]);
    // The live cam card's badge: one line, not cut ("● WEBCAM EN DIRECT" took two in French).
    expect(await wrappedTexts(page, '.live-cam-badge'), locale).toEqual([]);
    expect(await page.locator('.live-cam-badge').evaluate((badge) => badge.scrollWidth <= badge.clientWidth), `${locale}: the live cam badge whole`).toBe(true);
  }
});

// The pricing page's table of bundles whole on a 320 px phone in every language (its column titles wrap, a badge goes
// under its bundle): no price hidden behind a sideways scroll.
test('the pricing table fits a 320 px phone in every language', async ({ page }) => {
  await skipEntryWarning(page);
  for (const locale of LOCALES) {
    await page.goto(`/${locale}/pricing`);
    const wrap = page.locator('.pricing-table-wrap[open]').first();
    await expect(wrap, locale).toBeVisible();
    expect(await wrap.evaluate((el) => el.scrollWidth - el.clientWidth), locale).toBeLessThanOrEqual(0);
    const o = await overflowing(page);
    expect(o.scroll, `${locale}: ${o.wide.join(' ')}`).toBeLessThanOrEqual(o.vw);
  }
});

// Titles and headings keep their words whole on a 320 px phone in every language (without hyphenation dictionaries,
// as in this browser, "Geschäftsbedingungen", "Teilnahmevoraussetzungen" and "informasjonskapsler" broke inside).
const LEGAL_PAGES = ['/terms', '/privacy', '/cookies', '/faq', '/pricing', '/safety', '/service', '/complaints', '/return-policy', '/ban'];
test('legal pages\' headings keep their words whole at 320 px in every language', async ({ page }) => {
  test.setTimeout(120_000);
  await skipEntryWarning(page);
  for (const locale of LOCALES) {
    for (const path of LEGAL_PAGES) {
      await page.goto(`/${locale}${path}`);
      expect(await brokenWords(page, '.static-page h1, .prose h2, .prose h3'), `${locale}${path}`).toEqual([]);
    }
  }
});

// Phones, small tablets and narrow windows: a member's top bar fits from 320 to 991 px in every language (with the
// links' names from 768 px it ran 13–40 px past the screen in French, Spanish, Polish and Swedish), and Get Premium is
// one line (on phones "Przejdź na Premium" was three in an 88 px pill: phones show the short label).
test('a member\'s top bar fits phones and small tablets in every language', async ({ page }) => {
  test.setTimeout(150_000);
  await skipEntryWarning(page);
  await page.goto('/terms');
  await logInFree(page);
  for (const width of [320, 390, 576, 700, 768, 850, 991]) {
    await page.setViewportSize({ width, height: 700 });
    for (const locale of LOCALES) {
      await page.context().addCookies([{ name: 'lang', value: locale, url: page.url() }]);
      await page.goto('/likes');
      const o = await overflowing(page);
      expect(o.scroll, `${locale} at ${width}: ${o.wide.join(' ')}`).toBeLessThanOrEqual(o.vw);
      const premium = page.locator('[data-nav="premium"]');
      expect(await premium.evaluate((el) => el.scrollWidth <= el.clientWidth + 1), `${locale} at ${width}: Get Premium cut`).toBe(true);
      expect(await wrappedTexts(page, '[data-nav="premium"]'), `${locale} at ${width}: Get Premium on one line`).toEqual([]);
    }
  }
});

// The push offer floats over the foot of a member page until the member answers it. The swipe game keeps its buttons
// there (as a conversation keeps its composer): on a 390 × 740 phone the offer covered Pass, Profile and Like.
test('the push offer never covers the swipe game\'s buttons', async ({ page }) => {
  await skipEntryWarning(page);
  await page.setViewportSize({ width: 390, height: 740 });
  await page.goto('/terms');
  await logInFree(page);
  await page.goto('/members');
  await expect(page.locator('.push-offer')).toBeVisible();
  await page.goto('/swipe-game');
  await expect(page.locator('.swipe-card')).toBeVisible();
  await expect(page.locator('.push-offer')).toBeHidden();
  const covered = await page.locator('.swipe-buttons .btn').evaluateAll((buttons) => buttons.filter((button) => {
    const r = button.getBoundingClientRect();
    return !button.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
  }).map((button) => button.textContent));
  expect(covered).toEqual([]);
});

// The composer's placeholder on one line at 320 px: German's "Schreib eine Nachricht…" wrapped, and the box grew to
// two lines before anything was typed.
test("the chat composer's placeholder takes one line on a 320 px phone in every language", async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/terms');
  await logInFree(page);
  const { chats } = await (await page.request.get('/api/chats.php')).json();
  expect(chats.length).toBeGreaterThan(0);
  const heights: Record<string, number> = {};
  for (const locale of LOCALES) {
    await page.context().addCookies([{ name: 'lang', value: locale, url: page.url() }]);
    await page.goto(`/chats/${chats[0].conversation.id}`);
    expect(await page.locator('html').getAttribute('lang'), locale).toMatch(new RegExp(`^${locale}`));
    const box = page.locator('.composer textarea');
    await expect(box).toBeVisible();
    heights[locale] = await box.evaluate((el) => el.clientHeight);
  }
  expect(Object.entries(heights).filter(([, h]) => h !== heights.en)).toEqual([]);
});

// Likes on a 320 px phone in every language: the three tabs inside their strip (Polish "Dopasowania" was cut at its
// edge), short tab names on one line, and each card's buttons inside the card (Polish "Odwzajemnij polubienie" ran past it).
test('the Likes tabs and card buttons fit a 320 px phone in every language', async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/terms');
  await logInFree(page);
  const outside: string[] = [];
  for (const locale of LOCALES) {
    await page.context().addCookies([{ name: 'lang', value: locale, url: page.url() }]);
    await page.goto('/likes');
    await expect(page.locator('.like-card').first(), locale).toBeVisible();
    outside.push(...(await page.evaluate((lang) => {
      const bad: string[] = [];
      const inside = (el: Element, frame: Element) => {
        const [a, b] = [el.getBoundingClientRect(), frame.getBoundingClientRect()];
        return a.left >= b.left - 1 && a.right <= b.right + 1;
      };
      const strip = document.querySelector('.likes-tabs') as Element;
      for (const tab of document.querySelectorAll('.likes-tab')) if (!inside(tab, strip)) bad.push(`${lang}: tab ${tab.textContent}`);
      for (const button of document.querySelectorAll('.like-card .btn')) if (!inside(button, button.closest('.like-card') as Element)) bad.push(`${lang}: button ${button.textContent}`);
      return bad;
    }, locale)));
    // Tabs share the width by their names' lengths: short names stay on one line ("Vous aiment" wrapped beside a
    // half-empty "Matchs" when each tab took a third).
    if (['en', 'fr', 'es', 'it'].includes(locale)) {
      outside.push(...(await wrappedTexts(page, '.likes-tab-label')).map((label) => `${locale}: tab ${label} wraps`));
    }
  }
  expect(outside).toEqual([]);
});
