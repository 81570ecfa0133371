import { expect } from '@playwright/test';
import { skipEntryWarning, test, tr } from './fixtures';

test('the language switch on a static page keeps its unprefixed address', async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/terms');
  await expect(page.locator('html')).toHaveAttribute('lang', /^en/);
  await page.getByLabel(tr('en', 'nav.choose_language')).click();
  await page.locator('[data-lang="fr"]').click();
  await expect(page.locator('html')).toHaveAttribute('lang', /^fr/);
  expect(new URL(page.url()).pathname).toBe('/terms');
});

test('a member\'s saved language applies when they log in on a new device', async ({ browser, baseURL }) => {
  // First device: a member picks Italian, saved on the account.
  const email = `polyglot${Date.now()}${Math.floor(Math.random() * 1e4)}@example.com`;
  const first = await browser.newContext({ baseURL });
  const signup = await first.request.post('/api/signup.php', {
    data: { email, name: `Poly${Math.floor(Math.random() * 1e5)}`, password: 'correct horse battery', date_of_birth: '1990-05-01', gender: 'female' },
    headers: { 'sec-fetch-site': 'same-origin', cookie: 'lang=en' },
  });
  expect(signup.status()).toBe(200);
  const saved = await first.request.put('/api/user.php', { data: { language: 'it' }, headers: { 'sec-fetch-site': 'same-origin' } });
  expect(saved.status()).toBe(200);
  await first.close();

  // Second device, English browser: logs in through the form and sees Italian.
  const second = await browser.newContext({ baseURL, locale: 'en-GB' });
  const page = await second.newPage();
  await page.addInitScript(() => localStorage.setItem('hide-entry-warning', String(Date.now())));
  await page.goto('/login');
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill('correct horse battery');
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await page.waitForURL(/\/members/);
  await expect(page.locator('html')).toHaveAttribute('lang', /^it/);
  await second.close();
});
