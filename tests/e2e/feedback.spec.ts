import type { Page } from '@playwright/test';
import type { Locale } from '../../src/shared/locales';
import { expect, onHost, skipEntryWarning, test, tr, openSearchFilters } from './fixtures';

// Männerhafen's demo member: no other journey changes this member's settings.
const HOST = 'gay.localhost';
let locale: Locale = 'en';
/** Texts in the language the member's pages are shown in (their saved language). */
const t = (key: string) => tr(locale, key);

async function logIn(page: Page) {
  await skipEntryWarning(page);
  await page.goto(onHost(HOST, '/login'));
  // Through the page: only the browser resolves *.localhost.
  const status = await page.evaluate(async () => {
    const res = await fetch('/api/user.php', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'free@maennerhafen.example', password: 'kindred-demo-2026' }) });
    return res.status;
  });
  expect(status).toBe(200);
  await page.goto(onHost(HOST, '/notifications'));
  locale = String(await page.locator('html').getAttribute('lang')).slice(0, 2) as Locale;
}

const toast = (page: Page, text: string) => page.locator('#toasts .toast', { hasText: text });

test('a failed save says so at once, ends in a toast with Try again, and Try again saves it', async ({ page }) => {
  test.setTimeout(60_000);
  await logIn(page);
  await page.goto(onHost(HOST, '/settings'));
  const news = page.getByRole('checkbox', { name: `${t('notification_type.news')}: ${t('settings.email_channel')}` });
  const before = await news.isChecked();

  // The server fails every time: the client retries (saying so), then gives up with a way to try again.
  await page.route('**/api/account-settings.php', (route) => route.fulfill({ status: 500, body: '{}', contentType: 'application/json' }));
  await news.click();
  await expect(toast(page, t('toast.saving'))).toBeVisible();
  await expect(news).toBeDisabled();
  const failed = toast(page, t('toast.failed'));
  await expect(failed).toBeVisible({ timeout: 15_000 });
  await expect(news).toBeEnabled();
  expect(await news.isChecked()).toBe(before);

  await page.unroute('**/api/account-settings.php');
  await failed.getByRole('button', { name: t('common.try_again') }).click();
  await expect(toast(page, t('settings.saved'))).toBeVisible();
  await expect(news).toBeChecked({ checked: !before });
  await page.reload();
  await expect(news).toBeChecked({ checked: !before });
  // Back as it was.
  await news.click();
  await expect(toast(page, t('settings.saved'))).toBeVisible();
  await expect(news).toBeChecked({ checked: before });
});

test('a failed search keeps the results on screen and its retry runs the search', async ({ page }) => {
  test.setTimeout(60_000);
  await logIn(page);
  await page.goto(onHost(HOST, '/members'));
  const cards = page.locator('[data-profile-id]');
  const shown = await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-profile-id')));
  expect(shown.length).toBeGreaterThan(0);

  await page.route('**/api/search.php*', (route) => route.abort('connectionfailed'));
  await openSearchFilters(page);
  await page.getByLabel(t('search.min_age')).fill('40');
  await page.getByRole('button', { name: t('search.submit') }).click();
  const alert = page.getByRole('alert').filter({ hasText: t('search.failed') });
  await expect(alert).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText(t('search.none'))).toBeHidden();
  expect(await cards.evaluateAll((els) => els.map((el) => el.getAttribute('data-profile-id')))).toEqual(shown);

  await page.unroute('**/api/search.php*');
  await alert.getByRole('button', { name: t('common.try_again') }).click();
  await expect(alert).toBeHidden();
  await expect(page).toHaveURL(/min_age=40/);
});
