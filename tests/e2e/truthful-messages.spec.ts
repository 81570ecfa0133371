import type { Page } from '@playwright/test';
import { expect, skipEntryWarning, test, tr, tv } from './fixtures';
import { linkFromMail } from './mail-server';

// Issue 25 item 6: what a message says is what the member sees and what happens.
const PASSWORD = 'a long passphrase 42';
const DEMO = { email: 'premium@kindred.example', password: 'kindred-demo-2026' };
const unique = (name: string) => `${name}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

async function logIn(page: Page, data: { email: string; password: string }) {
  expect((await page.request.post('/api/user.php', { data, headers: { 'sec-fetch-site': 'same-origin' } })).status()).toBe(200);
}

/** A member's first conversation partner from the search. */
async function someProfile(page: Page): Promise<string> {
  await page.goto('/members');
  return String(await page.locator('[data-profile-id]').first().getAttribute('data-profile-id'));
}

const composer = (page: Page) => page.getByRole('textbox', { name: tv('chat.message_label', { name: '' }).trim() });

test('the signup summary lists every invalid field, the password rule shows once, the confirm step names the address', async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/signup');
  await page.getByLabel(tr('en', 'auth.email')).fill('not-an-address');
  await page.getByLabel(tr('en', 'auth.password')).fill('short');
  await page.getByRole('button', { name: tr('en', 'signup.create') }).click();
  const summary = page.locator('[data-signup-errors]');
  await expect(summary).toBeVisible();
  // Name, e-mail, password and date of birth are all wrong: each is named, each links to its field.
  await expect(summary.getByRole('listitem')).toHaveCount(4);
  for (const [field, label] of [['name', 'auth.username'], ['email', 'auth.email'], ['password', 'auth.password']] as const) {
    await expect(summary.getByRole('link', { name: tr('en', label), exact: true })).toHaveAttribute('href', `#f-${field}`);
  }
  await expect(page.getByText(tv('auth.password_too_short', { min: 8 }))).toHaveCount(2); // the summary and the field, not the hint too
  await expect(page.locator('.field-hint', { hasText: tv('auth.password_too_short', { min: 8 }) })).toHaveCount(0);

  const email = unique('confirm');
  await page.getByLabel(tr('en', 'auth.username')).fill('Truthful');
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill(PASSWORD);
  await page.getByLabel(tv('auth.dob_hint', { min_age: 18 })).fill('1988-08-08');
  await page.getByRole('button', { name: tr('en', 'signup.create') }).click();
  await expect(page.getByRole('heading', { name: tr('en', 'signup.photo_title') })).toBeVisible({ timeout: 10_000 });
  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: tr('en', 'signup.skip') }).click();
  await page.getByRole('button', { name: tr('en', 'signup.push_later') }).click();
  await expect(page.getByText(tv('signup.confirm_text', { email }))).toBeVisible();
});

test('the chat price hint is the real price with the running discount; at 0 credits the composer says so before typing', async ({ page }) => {
  await skipEntryWarning(page);
  const email = unique('price');
  expect((await page.request.post('/api/signup.php', { data: { email, name: 'Pricey', password: PASSWORD, date_of_birth: '1984-04-04', gender: 'male' } })).status()).toBe(200);
  // Activated: the signup credits (20, two messages) are granted.
  await page.request.get((await linkFromMail(email, '/api/activate.php?token=')).replace(/^https?:\/\/[^/]+/, ''));
  // A new member has the time bonus: /credits prices every bundle with it, and the chat quotes the cheapest.
  const credits = await (await page.request.get('/api/credits.php')).json();
  expect(credits.discount?.value_percentage).toBeGreaterThan(0);
  const cheapest = Math.min(...credits.offers.map((o: { quote: { price_per_message: number } }) => o.quote.price_per_message));
  const amount = new Intl.NumberFormat('en', { style: 'currency', currency: credits.currency }).format(cheapest / 100);
  const profileId = await someProfile(page);
  await page.goto(`/members/${profileId}/chat`);
  await expect(page.locator('.composer-price')).toContainText(`${tv('chat.price', { credits: 10 })} (${tv('chat.price_money', { amount })})`);
  await expect(page.locator('[data-short-credits]')).toHaveCount(0);

  // Two messages use up the 20 signup credits; opened again, the chat says so before a word is typed.
  for (const text of ['Hello there', 'How are you?']) {
    const res = await page.request.post('/api/messages.php', { data: { profile_id: Number(profileId), client_id: crypto.randomUUID(), kind: 'text', text } });
    expect(res.ok()).toBe(true);
  }
  await page.goto(`/members/${profileId}/chat`);
  const short = page.locator('[data-short-credits]');
  await expect(short).toContainText(tv('chat.short_credits', { price: 10, credits: 0 }));
  await expect(short.getByRole('link', { name: tr('en', 'chat.buy_credits') })).toHaveAttribute('href', '/credits');
  await composer(page).fill('Shall we meet?');
  await expect(page.getByRole('button', { name: tr('en', 'chat.send'), exact: true })).toBeDisabled();
  await composer(page).press('Enter');
  await expect(composer(page)).toHaveValue('Shall we meet?');
  await expect(page.locator('.bubble-row', { hasText: 'Shall we meet?' })).toHaveCount(0);
});

test('a chat send that fails on the way shows one message, with its retry', async ({ page }) => {
  await skipEntryWarning(page);
  await logIn(page, DEMO);
  const profileId = await someProfile(page);
  await page.goto(`/members/${profileId}/chat`);
  await page.route('**/api/messages.php', (route) => route.abort('connectionfailed'));
  await composer(page).fill('Is anyone there?');
  await composer(page).press('Enter');
  const toast = page.locator('.toast', { hasText: tr('en', 'toast.failed') });
  await expect(toast).toBeVisible();
  await expect(toast.getByRole('button', { name: tr('en', 'common.try_again') })).toBeVisible();
  await expect(page.locator('.chat-error')).toHaveCount(0);
  await expect(page.getByText(tr('en', 'error.try_later'))).toHaveCount(0);
  await expect(composer(page)).toHaveValue('Is anyone there?');
});
