// Screenshots of the main screens for the README (docs/screenshots/), phone and desktop. Not part of
// the normal e2e run (playwright.config.ts ignores it unless SCREENSHOTS=1): `npm run screenshots`.
import { mkdirSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, hydrated, skipEntryWarning, test, tr } from './fixtures';

const DIR = 'docs/screenshots';
const DEMO = { email: 'premium@kindred.example', password: 'kindred-demo-2026' };

async function shoot(page: Page, name: string, project: string) {
  // Let lazy images and fonts settle; no animation mid-frame.
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: `${DIR}/${name}-${project}.png`, animations: 'disabled', caret: 'hide', scale: 'css' });
}

test.beforeAll(() => mkdirSync(DIR, { recursive: true }));

test('main screens', async ({ page }, info) => {
  test.setTimeout(90_000);
  const project = info.project.name;
  await skipEntryWarning(page);

  await page.goto('/');
  await shoot(page, 'home', project);

  await page.goto('/signup');
  await hydrated(page);
  await shoot(page, 'signup', project);

  await page.goto('/login');
  await hydrated(page);
  await page.getByLabel(tr('en', 'auth.email')).fill(DEMO.email);
  await page.getByLabel(tr('en', 'auth.password')).fill(DEMO.password);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/members/);
  await hydrated(page);
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

  await page.goto(`${profile}/chat`);
  await hydrated(page);
  await shoot(page, 'chat', project);

  await page.goto('/likes');
  await hydrated(page);
  await shoot(page, 'likes', project);

  await page.goto('/credits');
  await hydrated(page);
  await shoot(page, 'credits', project);
});
