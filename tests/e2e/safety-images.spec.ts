import { randomUUID } from 'node:crypto';
import { type APIRequestContext, type Browser, type Locator, type Page, request as playwrightRequest } from '@playwright/test';
import sharp from 'sharp';
import { expect, hydrated, test, tv as t } from './fixtures';
import { linkFromMail } from './mail-server';
import { login, makeStaff, staffLogin } from './staff';

// Explicit images (docs/safety-images.md). The e2e server runs with IMAGE_SCORER=fake (refused in
// production): a pure red picture scores as explicit, so no real explicit image ships with the tests.
const RED = { r: 255, g: 0, b: 0 };
const picture = (background: { r: number; g: number; b: number }) =>
  sharp({ create: { width: 480, height: 360, channels: 3, background } }).png().toBuffer();
const WIDTHS = [320, 390, 1280];

/** A confirmed member, with an API context that stays logged in as them. */
async function member(baseURL: string | undefined, tag: string) {
  const api = await playwrightRequest.newContext({ baseURL });
  const name = `${tag}${Math.floor(Math.random() * 1e6)}`;
  const email = `${name.toLowerCase()}@example.com`;
  const signup = await api.post('/api/signup.php', { data: { email, name, password: 'a long passphrase 42', date_of_birth: '1990-05-05', gender: tag === 'Bob' ? 'male' : 'female' } });
  expect(signup.status()).toBe(200);
  await api.get((await linkFromMail(email, '/api/activate.php?token=')).replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await api.get('/api/user.php')).json();
  return { api, email, name, profileId: user.profile.id as number };
}

async function sendPicture(api: APIRequestContext, profileId: number, background: { r: number; g: number; b: number }) {
  const res = await api.post(`/api/chat-image.php?profile_id=${profileId}&client_id=${randomUUID()}`, { headers: { 'content-type': 'image/png' }, data: await picture(background) });
  expect(res.status()).toBe(201);
  return (await res.json()) as { conversation_id: number; message: { id: number } };
}

async function pageAt(browser: Browser, baseURL: string | undefined) {
  return (await browser.newContext({ baseURL })).newPage();
}

/** The screen at the three widths the house checks, into test-results/. */
async function shoot(page: Page, name: string, focus?: Locator) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await focus?.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `test-results/safety-images/${name}-${width}.png`, fullPage: width !== 1280 });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('an explicit chat image arrives blurred with View; the setting shows it unblurred; an explicit photo tops the moderation queue', async ({ browser, baseURL }) => {
  test.setTimeout(120_000);
  const ann = await member(baseURL, 'Ann');
  const bob = await member(baseURL, 'Bob');
  // A photo costs 15 credits, a new member has 20: one each.
  const explicit = await sendPicture(ann.api, bob.profileId, RED);
  const benign = await sendPicture(bob.api, ann.profileId, { r: 90, g: 160, b: 220 });

  const page = await pageAt(browser, baseURL);
  await login(page, bob.email, `/chats/${explicit.conversation_id}`);
  await expect(page).toHaveURL(`/chats/${explicit.conversation_id}`);
  await hydrated(page);
  const explicitBubble = page.locator(`[data-message-id="${explicit.message.id}"]`);
  // Blurred from the start (checking, then explicit once the job scored it), with "View".
  await expect(explicitBubble.locator('[data-image-cover="explicit"]')).toBeVisible({ timeout: 15_000 });
  await expect(explicitBubble).toContainText(t('chat.image_cover_explicit'));
  // His own picture is shown as it is.
  await expect(page.locator(`[data-message-id="${benign.message.id}"] button.bubble-photo img`)).toBeVisible();
  await shoot(page, 'chat-blurred', explicitBubble);

  await explicitBubble.getByRole('button', { name: t('chat.image_view') }).click();
  await expect(explicitBubble.locator('[data-image-cover]')).toHaveCount(0);
  await expect(explicitBubble.getByRole('button', { name: t('chat.image_open') })).toBeVisible();

  // The sender sees her own image normally, and Bob's benign one unblurred once it was checked.
  const annPage = await pageAt(browser, baseURL);
  await login(annPage, ann.email, `/chats/${explicit.conversation_id}`);
  await hydrated(annPage);
  await expect(annPage.locator(`[data-message-id="${explicit.message.id}"] button.bubble-photo img`)).toBeVisible();
  await expect(annPage.locator(`[data-message-id="${benign.message.id}"] button.bubble-photo img`)).toBeVisible({ timeout: 15_000 });
  await expect(annPage.locator('[data-image-cover]')).toHaveCount(0);

  // Bob's setting: explicit images unblurred.
  await page.goto('/settings');
  await hydrated(page);
  const setting = page.getByRole('checkbox', { name: t('settings.show_explicit_images') });
  await expect(setting).not.toBeChecked();
  await setting.click();
  await expect(setting).toBeEnabled();
  await expect(setting).toBeChecked();
  await shoot(page, 'settings');
  await page.goto(`/chats/${explicit.conversation_id}`);
  await hydrated(page);
  await expect(page.locator(`[data-message-id="${explicit.message.id}"] button.bubble-photo img`)).toBeVisible();
  await expect(page.locator('[data-image-cover]')).toHaveCount(0);

  // An explicit profile photo goes to the front of the moderation queue with its score.
  for (const [who, colour] of [[bob, { r: 90, g: 160, b: 220 }], [ann, RED]] as const) {
    const res = await who.api.post('/api/photos.php', { headers: { 'content-type': 'image/png' }, data: await picture(colour) });
    expect(res.status()).toBe(201);
  }
  const moderator = await member(baseURL, 'Mod');
  makeStaff(moderator.email, 'moderator');
  const staffPage = await pageAt(browser, baseURL);
  await staffLogin(staffPage, moderator.email);
  // Ann's explicit photo is among the explicit ones that lead the queue (other tests' may lead it too).
  const explicitFirst = () => staffPage.locator('[data-moderation-photo]').evaluateAll((items, name) => {
    const flags = items.map((item) => item.getAttribute('data-explicit') === 'true');
    const mine = items.findIndex((item) => item.getAttribute('data-explicit') === 'true' && (item.textContent ?? '').includes(name));
    return mine >= 0 && flags.slice(0, mine + 1).every(Boolean);
  }, ann.name);
  await expect.poll(async () => {
    await staffPage.goto('/admin/moderation');
    return explicitFirst();
  }, { timeout: 15_000 }).toBe(true);
  const mine = staffPage.locator('[data-moderation-photo][data-explicit="true"]', { hasText: ann.name }).first();
  await expect(mine.locator('[data-explicit-score]')).toHaveText(t('moderation.explicit_score', { percent: 97 }));
  await shoot(staffPage, 'moderation');
});
