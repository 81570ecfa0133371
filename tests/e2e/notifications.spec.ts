import path from 'node:path';
import Database from 'better-sqlite3';
import { unsubscribeToken } from '../../src/server/notifications/unsubscribe';
import { expect, skipEntryWarning, test, tr, tv } from './fixtures';
import { createMember, login } from './staff';
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

test('a Dutch member unsubscribes from like mails with the link: in Dutch, without logging in or an entry gate, and sees it off after login', async ({ page, request, isMobile }) => {
  const email = `unsub${Date.now() % 1_000_000}${isMobile ? 'p' : 'd'}@example.com`;
  const data = { email, name: 'Unsub', password: PASSWORD, date_of_birth: '1988-03-03', gender: 'female', language: 'nl' };
  expect((await request.post('/api/signup.php', { data })).status()).toBe(200);
  await request.get((await linkFromMail(email, '/api/activate.php?token=')).replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await request.get('/api/user.php')).json();
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });

  // The link as a like mail carries it, opened in a fresh English browser that is not logged in: the page
  // speaks the member's language, and the adult-entry gate does not stand between them and their own mail's link.
  const token = unsubscribeToken(unsubscribeKey(), 'kindred', user.id, 'like');
  await page.context().setExtraHTTPHeaders({ 'accept-language': 'en-GB,en;q=0.9' });
  await page.goto(`/unsubscribe?t=${token}`);
  const nl = (key: string) => fill(tr('nl', key), { type: tr('nl', 'notification_type.like'), site: 'Kindred' });
  await expect(page.locator('html')).toHaveAttribute('lang', 'nl-NL');
  await expect(page.getByRole('heading', { name: tr('nl', 'unsubscribe.title') })).toBeVisible();
  await expect(page.getByText(nl('unsubscribe.question'))).toBeVisible();
  await expect(page.locator('#entry-warning')).toHaveCount(0);
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.screenshot({ path: `test-results/unsubscribe-confirm-${isMobile ? 'phone' : 'desktop'}.png`, fullPage: true });
  await page.getByRole('button', { name: tr('nl', 'unsubscribe.confirm') }).click();
  await expect(page.getByRole('status')).toHaveText(nl('unsubscribe.done'));
  await page.screenshot({ path: `test-results/unsubscribe-done-${isMobile ? 'phone' : 'desktop'}.png`, fullPage: true });

  // A tampered link names no member: refused with the translated error (in Dutch, the language this browser now keeps).
  const response = await page.goto(`/unsubscribe?t=${token.slice(0, -3)}xyz`);
  expect(response?.status()).toBe(400);
  await expect(page.getByRole('alert')).toHaveText(tr('nl', 'unsubscribe.invalid'));

  // After logging in, like mails show off; the other types stay on.
  await page.context().clearCookies();
  await skipEntryWarning(page);
  await page.goto('/login?next=/notifications');
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill(PASSWORD);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/notifications/);
  await expect(page.locator('[data-email-pref="like"] dd')).toHaveText(tr('nl', 'notifications.email_off'));
  await expect(page.locator('[data-email-pref="new_messages"] dd')).toHaveText(tr('nl', 'notifications.email_on'));
  await page.screenshot({ path: `test-results/notifications-prefs-${isMobile ? 'phone' : 'desktop'}.png`, fullPage: true });
  await page.goto('/settings');
  await expect(page.getByRole('checkbox', { name: `${tr('nl', 'notification_type.like')}: ${tr('nl', 'settings.email_channel')}` })).not.toBeChecked();
  await expect(page.getByRole('checkbox', { name: `${tr('nl', 'notification_type.new_messages')}: ${tr('nl', 'settings.email_channel')}` })).toBeChecked();
});

// The notifications page tells what happened: who liked the member (new until their profile is opened), who wrote.
test('the notifications page lists a new like and leads to the profile', async ({ page, request, browser, baseURL }) => {
  const [ann, bob] = [await createMember(request, 'Noteann', 'female'), await createMember(request, 'Notebob', 'male')];
  const bobContext = await browser.newContext({ baseURL });
  expect((await bobContext.request.post('/api/user.php', { data: { email: bob.email, password: 'a long passphrase 42' } })).status()).toBe(200);
  expect((await bobContext.request.post('/api/like.php', { data: { profile_id: ann.profileId } })).status()).toBe(200);
  await bobContext.close();
  await login(page, ann.email, '/members');
  await expect(page).toHaveURL(/\/members/);
  // From the account menu.
  await page.getByLabel(tr('en', 'nav.account')).click();
  await page.getByRole('link', { name: tr('en', 'notifications.title') }).click();
  await expect(page).toHaveURL(/\/notifications$/);
  const line = page.locator('[data-activity="liked_you"]', { hasText: tv('notifications.liked_you', { name: bob.name }) });
  await expect(line).toBeVisible();
  await expect(line.locator('.badge')).toHaveText(tr('en', 'notifications.new'));
  await line.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/members/${bob.profileId}$`));
  // Opened: the like is seen, the badge gone.
  await page.goto('/notifications');
  await expect(page.locator('[data-activity="liked_you"]', { hasText: bob.name }).locator('.badge')).toHaveCount(0);
});
