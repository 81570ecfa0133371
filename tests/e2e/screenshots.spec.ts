// Screenshots of the main screens for the README (docs/screenshots/), phone and desktop. Not part of
// the normal e2e run (playwright.config.ts ignores it unless SCREENSHOTS=1): `npm run screenshots`.
import { mkdirSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, hydrated, skipEntryWarning, test, tr } from './fixtures';

const DIR = 'docs/screenshots';
const DEMO = { email: 'premium@kindred.example', password: 'kindred-demo-2026' };
const FREE = { email: 'free@kindred.example', password: 'kindred-demo-2026' };

async function logIn(page: Page, who: { email: string; password: string }) {
  await page.goto('/login');
  await hydrated(page);
  await page.getByLabel(tr('en', 'auth.email')).fill(who.email);
  await page.getByLabel(tr('en', 'auth.password')).fill(who.password);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/members/);
  await hydrated(page);
}

async function shoot(page: Page, name: string, project: string, path?: string) {
  if (path) {
    await page.goto(path);
    await hydrated(page);
  }
  // Fonts and the pictures in view loaded (member pages keep a live connection: never "network idle").
  await page.waitForFunction(() => document.fonts.status === 'loaded'
    && [...document.images].filter((img) => {
      // Shown and in view (a lazy picture the layout hides never loads).
      const box = img.getBoundingClientRect();
      return box.width > 0 && box.top < innerHeight;
    }).every((img) => img.complete));
  await page.screenshot({ path: `${DIR}/${name}-${project}.png`, animations: 'disabled', caret: 'hide', scale: 'css' });
}

test.beforeAll(() => mkdirSync(DIR, { recursive: true }));

test('main screens', async ({ page }, info) => {
  test.setTimeout(90_000);
  const project = info.project.name;
  await skipEntryWarning(page);

  await shoot(page, 'home', project, '/');
  await shoot(page, 'signup', project, '/signup');

  await logIn(page, DEMO);
  await shoot(page, 'search', project);

  // A demo member with several photos (a premium member sees them all).
  const links = await page.locator('.profile-grid a[href^="/members/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href') as string));
  let profile: string | null = null;
  for (const href of [...new Set(links)].slice(0, 24)) {
    await page.goto(href);
    if (await page.locator('.profile-thumbs img').count()) {
      profile = href;
      break;
    }
  }
  expect(profile, 'a demo profile with several photos').not.toBeNull();
  await shoot(page, 'profile', project);

  // The demo member's conversation (seeded: their message to a fictional profile and its unread answer).
  await page.goto('/chats');
  const chat = await page.locator('a[href^="/chats/"]').first().getAttribute('href');
  expect(chat, 'the demo member\'s seeded conversation').not.toBeNull();
  await shoot(page, 'chat', project, chat as string);
  await shoot(page, 'likes', project, '/likes');
  await shoot(page, 'credits', project, '/credits');
});

test('a new free member', async ({ page }, info) => {
  test.setTimeout(60_000);
  const project = info.project.name;
  await skipEntryWarning(page);
  // The demo's free member signed up when the demo was seeded: the welcome bonus runs.
  await logIn(page, FREE);
  await shoot(page, 'free-search', project);
  await shoot(page, 'free-settings', project, '/settings');
});
