import { expect, type Page } from '@playwright/test';
import { onHost, test } from './fixtures';

// The narrowest phones still in use: nothing may scroll sideways, logged in or out, on any demo site.
const SITES = [['localhost', 'kindred.example'], ['rijpe.localhost', 'rijpedates.example'], ['gay.localhost', 'maennerhafen.example']] as const;
const MEMBER_PAGES = ['/members', '/chats', '/likes', '/profile', '/settings', '/terms'];
const VISITOR_PAGES = ['/', '/login', '/terms'];

async function overflowing(page: Page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > vw + 1 && el.getBoundingClientRect().width > 0)
      .slice(0, 3)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`);
    return { scroll: document.documentElement.scrollWidth, vw, wide };
  });
}

test.use({ viewport: { width: 320, height: 640 } });

for (const [host, domain] of SITES) {
  test(`${host}: no page scrolls sideways at 320 px`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.addInitScript(() => localStorage.setItem('hide-entry-warning', String(Date.now())));
    for (const path of VISITOR_PAGES) {
      await page.goto(onHost(host, path));
      const o = await overflowing(page);
      expect(o.scroll, `${path} logged out: ${o.wide.join(' ')}`).toBeLessThanOrEqual(o.vw);
    }
    // Through the page: only the browser resolves *.localhost.
    const status = await page.evaluate(async (email) => {
      const res = await fetch('/api/user.php', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'kindred-demo-2026' }) });
      return res.status;
    }, `free@${domain}`);
    expect(status).toBe(200);
    for (const path of MEMBER_PAGES) {
      await page.goto(onHost(host, path));
      const o = await overflowing(page);
      expect(o.scroll, `${path} logged in: ${o.wide.join(' ')}`).toBeLessThanOrEqual(o.vw);
    }
  });
}
