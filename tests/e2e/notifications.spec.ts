import path from 'node:path';
import Database from 'better-sqlite3';
import { unsubscribeToken } from '../../src/server/notifications/unsubscribe';
import { expect, skipEntryWarning, test, tr } from './fixtures';
import { linkFromMail } from './mail-server';

const DATA_DIR = process.env.E2E_DATA_DIR ?? 'test-results/e2e-data';
const PASSWORD = 'a long passphrase 42';
const fill = (text: string, vars: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => vars[name] ?? '');

/** The server's unsubscribe key, read from the e2e database (it is made on the first start). */
function unsubscribeKey(): Buffer {
  const db = new Database(path.join(DATA_DIR, 'kindred.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("select value from app_keys where name = 'mail_unsubscribe'").get() as { value: string };
    return Buffer.from(row.value, 'base64url');
  } finally {
    db.close();
  }
}

test('a member unsubscribes from like mails with the link, without logging in, and sees it off after login', async ({ page, request, isMobile }) => {
  const email = `unsub${Date.now() % 1_000_000}${isMobile ? 'p' : 'd'}@example.com`;
  expect((await request.post('/api/signup.php', { data: { email, name: 'Unsub', password: PASSWORD, date_of_birth: '1988-03-03', gender: 'female' } })).status()).toBe(200);
  await request.get((await linkFromMail(email, '/api/activate.php?token=')).replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await request.get('/api/user.php')).json();
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });

  // The link as a like mail carries it, opened in a browser that is not logged in.
  const token = unsubscribeToken(unsubscribeKey(), 'kindred', user.id, 'like');
  await skipEntryWarning(page);
  await page.context().addCookies([{ name: 'lang', value: 'de', domain: 'localhost', path: '/' }]);
  await page.goto(`/unsubscribe?t=${token}`);
  const de = (key: string) => fill(tr('de', key), { type: tr('de', 'notification_type.like'), site: 'Kindred' });
  await expect(page.getByRole('heading', { name: tr('de', 'unsubscribe.title') })).toBeVisible();
  await expect(page.getByText(de('unsubscribe.question'))).toBeVisible();
  await page.screenshot({ path: `test-results/unsubscribe-confirm-${isMobile ? 'phone' : 'desktop'}.png`, fullPage: true });
  await page.getByRole('button', { name: tr('de', 'unsubscribe.confirm') }).click();
  await expect(page.getByRole('status')).toHaveText(de('unsubscribe.done'));
  await page.screenshot({ path: `test-results/unsubscribe-done-${isMobile ? 'phone' : 'desktop'}.png`, fullPage: true });

  // A tampered link is refused with the translated error.
  const response = await page.goto(`/unsubscribe?t=${token.slice(0, -3)}xyz`);
  expect(response?.status()).toBe(400);
  await expect(page.getByRole('alert')).toHaveText(tr('de', 'unsubscribe.invalid'));

  // After logging in, like mails show off; the other types stay on.
  await page.context().clearCookies();
  await page.goto('/login?next=/notifications');
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill(PASSWORD);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/notifications/);
  await expect(page.locator('[data-email-pref="like"] dd')).toHaveText(tr('en', 'notifications.email_off'));
  await expect(page.locator('[data-email-pref="new_messages"] dd')).toHaveText(tr('en', 'notifications.email_on'));
  await page.screenshot({ path: `test-results/notifications-prefs-${isMobile ? 'phone' : 'desktop'}.png`, fullPage: true });
  await page.goto('/settings');
  await expect(page.getByRole('checkbox', { name: `${tr('en', 'notification_type.like')}: ${tr('en', 'settings.email_channel')}` })).not.toBeChecked();
  await expect(page.getByRole('checkbox', { name: `${tr('en', 'notification_type.new_messages')}: ${tr('en', 'settings.email_channel')}` })).toBeChecked();
});
