import sharp from 'sharp';
import { acceptEntryWarning, expect, hydrated, onHost, skipEntryWarning, test, tr } from './fixtures';
import { linkFromMail } from './mail-server';
import type { Page } from '@playwright/test';

const PASSWORD = 'a long passphrase 42';
const unique = (tag: string) => `${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

async function photo() {
  return sharp({ create: { width: 400, height: 400, channels: 3, background: { r: 240, g: 120, b: 90 } } }).png().toBuffer();
}

/** Walks the whole wizard from the account step to the confirm step. */
async function completeWizard(page: Page, email: string, inModal = false) {
  const t = (k: string) => tr('en', k);
  await page.getByLabel(t('auth.username')).fill(`Tester${Math.floor(Math.random() * 1e5)}`);
  await page.getByLabel(t('auth.email')).fill(email);
  await page.getByLabel(t('auth.password')).fill(PASSWORD);
  await page.getByLabel('Enter your date of birth (18+)').fill('1990-04-12');
  await page.getByRole('button', { name: t('signup.create') }).click();
  await expect(page.getByText(t('signup.progress_creating'))).toBeVisible();
  if (inModal) {
    // While the account is being created, Escape and a backdrop click do not close the modal.
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 5);
    await expect(page.getByRole('dialog', { name: t('nav.signup') })).toBeVisible();
  }
  await expect(page.getByRole('heading', { name: t('signup.photo_title') })).toBeVisible({ timeout: 15_000 });
  // The new member is logged in: the nav no longer offers to log in (on /signup it never does).
  await expect(page.locator('[data-nav="login"]')).toBeHidden();
  await page.locator('input[type=file]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await photo() });
  await expect(page.getByText(t('signup.photo_done'))).toBeVisible();
  await page.getByRole('button', { name: t('signup.next') }).click();
  await page.getByLabel(t('option.sexuality.hetero')).check();
  await page.getByRole('button', { name: t('signup.next') }).click();
  await expect(page.getByRole('heading', { name: t('signup.location_title') })).toBeVisible();
  await page.getByLabel(t('signup.label_city')).fill('Utrecht');
  await page.getByRole('button', { name: t('signup.next') }).click();
  await expect(page.getByRole('heading', { name: t('signup.looks_title') })).toBeVisible();
  await page.getByRole('button', { name: t('signup.next') }).click();
  await page.getByRole('button', { name: t('signup.push_later') }).click();
  await expect(page.getByRole('heading', { name: t('signup.confirm_title') })).toBeVisible();
}

async function login(page: Page, email: string, password: string) {
  await page.goto('/login');
  await hydrated(page);
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill(password);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
}

test('a visitor signs up through every step, activates by mail, logs out and in again', async ({ page, isMobile }) => {
  // The longest journey (wizard, mail, activation, logout, login): ~29 s on a busy 2-core machine.
  test.setTimeout(60_000);
  const email = unique('signup');
  await page.goto('/');
  await acceptEntryWarning(page);
  await page.getByRole('link', { name: tr('en', 'home.cta_signup') }).click();
  if (isMobile) await expect(page).toHaveURL(/\/signup$/);
  else await expect(page.getByRole('dialog', { name: tr('en', 'nav.signup') })).toBeVisible();
  await completeWizard(page, email, !isMobile);

  await page.goto('/members');
  await expect(page.getByText(tr('en', 'activation.reminder'))).toBeVisible();
  const link = await linkFromMail(email, '/api/activate.php?token=');
  await page.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  await expect(page).toHaveURL(/\/activate\/done$/);
  await expect(page.getByRole('heading', { name: tr('en', 'activation.done_title') })).toBeVisible();

  await page.goto('/members');
  await expect(page.getByText(tr('en', 'activation.reminder'))).toHaveCount(0);
  await page.getByLabel(tr('en', 'nav.account')).click();
  await page.getByRole('link', { name: tr('en', 'nav.logout') }).click();
  await expect(page.getByRole('link', { name: tr('en', 'nav.login') })).toBeVisible();

  await login(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/members$/);
  await expect(page.getByRole('link', { name: tr('en', 'nav.get_premium') })).toBeVisible();
});

test('five wrong passwords block the account', { tag: '@any-width' }, async ({ page }) => {
  await skipEntryWarning(page);
  const victim = unique('victim');
  for (let i = 1; i <= 4; i++) {
    await login(page, victim, 'wrong-password-x');
    await expect(page.getByRole('alert')).toHaveText(tr('en', 'auth.login_failed'));
  }
  await login(page, victim, 'wrong-password-x');
  await expect(page.getByText('Too many incorrect attempts, account blocked for 15 min.')).toBeVisible();
});

test('a member resets the password through the mailed link', { tag: '@any-width' }, async ({ page, request }) => {
  await skipEntryWarning(page);
  const email = unique('reset');
  const res = await request.post('/api/signup.php', { data: { email, name: 'Resetter', password: PASSWORD, date_of_birth: '1985-01-01' } });
  expect(res.status()).toBe(200);
  await page.goto('/reset-password');
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByRole('button', { name: tr('en', 'reset.send') }).click();
  await expect(page.getByText(tr('en', 'reset.sent'))).toBeVisible();
  const link = await linkFromMail(email, '/reset-password/do?token=');
  await page.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  await page.getByLabel(tr('en', 'settings.new_password'), { exact: true }).fill('another good passphrase');
  await page.getByLabel(tr('en', 'auth.password_repeat')).fill('another good passphrase');
  await page.getByRole('button', { name: tr('en', 'common.save') }).click();
  await expect(page).toHaveURL(/\/members/);
  // Used once, the link says so at once: no new-password form that could only fail.
  await page.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  await expect(page.getByRole('alert')).toContainText(tr('en', 'auth.link_invalid'));
  await expect(page.getByRole('link', { name: tr('en', 'reset.request_new') })).toHaveAttribute('href', '/reset-password');
  await expect(page.getByLabel(tr('en', 'settings.new_password'), { exact: true })).toHaveCount(0);
});

test('a member deletes the account, sees the alternatives first, and restores it by link', { tag: '@any-width' }, async ({ page, request }) => {
  await skipEntryWarning(page);
  const email = unique('delete');
  await request.post('/api/signup.php', { data: { email, name: 'Leaver', password: PASSWORD, date_of_birth: '1980-02-02' } });
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  await login(page, email, PASSWORD);
  await expect(page).toHaveURL(/\/members/);
  await page.goto('/settings');
  await page.getByRole('button', { name: tr('en', 'settings.delete_start') }).click();
  await expect(page.getByText(tr('en', 'settings.alt_privacy'))).toBeVisible();
  await expect(page.getByText('Stay and get 50% off your next credits.')).toBeVisible();
  await page.getByRole('button', { name: tr('en', 'settings.delete_continue') }).click();
  await page.locator('#f-delete-password').fill(PASSWORD);
  await page.getByRole('button', { name: tr('en', 'settings.delete_confirm') }).click();
  await expect(page).toHaveURL(/\/account-deleted$/);
  await login(page, email, PASSWORD);
  await expect(page.getByRole('alert')).toContainText(tr('en', 'auth.pending_deletion'));
  const link = await linkFromMail(email, '/api/reactivate.php?token=');
  await page.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  await expect(page).toHaveURL(/\/members\?reactivated=1$/);
  await expect(page.getByRole('status').filter({ hasText: tr('en', 'members.reactivated') })).toBeVisible();
  await expect(page.getByLabel(tr('en', 'nav.account'))).toBeVisible();
});

test('a logged-in member sees the member navigation and keeps the chosen language on the account', async ({ page, isMobile }) => {
  await skipEntryWarning(page);
  // Each browser project uses its own demo member, so the two runs do not race on the saved language.
  await login(page, isMobile ? 'free@kindred.example' : 'premium@kindred.example', 'kindred-demo-2026');
  await expect(page).toHaveURL(/\/members$/);
  if (isMobile) await expect(page.getByRole('link', { name: tr('en', 'nav.get_premium') })).toBeVisible();
  else await expect(page.getByRole('link', { name: tr('en', 'nav.credits') })).toBeVisible();
  await page.getByLabel(tr('en', 'nav.choose_language')).click();
  await page.getByRole('link', { name: 'Italiano' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(tr('it', 'search.title'));
  const me = await page.request.get('/api/user.php');
  expect((await me.json()).user.language).toBe('it');
  await page.request.put('/api/user.php', { data: { language: 'en' } });
});

test('the signup form explains mistakes before sending anything', async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/signup');
  await page.getByLabel(tr('en', 'auth.username')).fill('@bob');
  await page.getByLabel(tr('en', 'auth.email')).fill('bob@gmial.com');
  await page.getByLabel(tr('en', 'auth.password')).click();
  await expect(page.getByText('Did you mean bob@gmail.com?')).toBeVisible();
  await page.getByLabel(tr('en', 'auth.password')).fill(PASSWORD);
  await page.getByLabel('Enter your date of birth (18+)').fill('2015-01-01');
  await page.getByRole('button', { name: tr('en', 'signup.create') }).click();
  await expect(page.getByText('Username may not start with @').first()).toBeVisible();
  await expect(page.locator('#f-date_of_birth-error')).toHaveText('Enter your date of birth (18+)');
});

test('an invite-only site asks for an invitation unless the visitor came through a network', { tag: '@any-width' }, async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto(onHost('rijpe.localhost', '/signup'));
  await expect(page.getByText(tr('nl', 'signup.invite_only'))).toBeVisible();
  await page.goto(onHost('rijpe.localhost', '/signup?network=adnet&sub1=x'));
  await expect(page.getByLabel(tr('nl', 'auth.username'))).toBeVisible();
});

test('the signup\'s first step works without JavaScript: every invalid field listed, then the member area', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/signup');
  const name = `NoScript${Date.now() % 1_000_000}`;
  await page.getByLabel(tr('en', 'auth.username')).fill(name);
  await page.getByLabel(tr('en', 'auth.email')).fill('not-an-address');
  await page.getByLabel(tr('en', 'auth.password')).fill('short');
  await page.getByRole('button', { name: tr('en', 'signup.create') }).click();
  const errors = page.locator('[data-signup-errors] li');
  // The e-mail, the password and the date of birth: all listed at once, what was typed kept.
  expect(await errors.count()).toBeGreaterThanOrEqual(3);
  await expect(errors.filter({ hasText: 'Use at least 8 characters.' })).toHaveCount(1);
  await expect(page.getByLabel(tr('en', 'auth.username'))).toHaveValue(name);
  await page.getByLabel(tr('en', 'auth.email')).fill(`${name.toLowerCase()}@example.com`);
  await page.getByLabel(tr('en', 'auth.password')).fill('a long passphrase 42');
  await page.getByLabel('Enter your date of birth (18+)').fill('1980-04-04');
  await page.getByRole('button', { name: tr('en', 'signup.create') }).click();
  await expect(page).toHaveURL(/\/members$/);
  expect(page.url()).not.toContain('password');
  await context.close();
});

test('logging in works without JavaScript and never puts the password in the URL', { tag: '@any-width' }, async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByLabel(tr('en', 'auth.email')).fill('free@kindred.example');
  await page.getByLabel(tr('en', 'auth.password')).fill('wrong password here');
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page.getByRole('alert')).toHaveText(tr('en', 'auth.login_failed'));
  expect(page.url()).not.toContain('password');
  await page.getByLabel(tr('en', 'auth.password')).fill('kindred-demo-2026');
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/members$/);
  expect(page.url()).not.toContain('password');
  await context.close();
});
