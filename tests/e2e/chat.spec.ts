import type { APIRequestContext, Browser, Page } from '@playwright/test';
import sharp from 'sharp';
// Kindred (localhost, a generic site): the demo logins are men.
import { DEMO_NAMES } from '../../src/server/db/demo-names';
import { expect, gotoHydrates, hydrated, skipEntryWarning, test, tr, tv } from './fixtures';
import { linkFromMail } from './mail-server';

const PASSWORD = 'a long passphrase 42';
const DEMO_PASSWORD = 'kindred-demo-2026';
/** Kindred (localhost): a text message costs 10 credits; new members get 20. */
const MESSAGE_PRICE = 10;
const SIGNUP_CREDITS = 20;
/**
 * Realtime: a message shows on the other side this fast, without a reload. 1 s on a quiet machine; our
 * machines differ up to threefold in speed, and a CI run on a slow one missed it once (a new chat's row,
 * which the list fetches when its first message arrives), so 3 s — still far from any reload or poll.
 */
const LIVE = { timeout: 3_000 };
const t = tv;

interface Member { email: string; name: string; password: string; profileId: number }

/** A confirmed member made through the signup API and activated from the mail. */
async function createMember(request: APIRequestContext, name: string, gender: 'male' | 'female', birth: string): Promise<Member> {
  const email = `${name.toLowerCase()}@example.com`;
  expect((await request.post('/api/signup.php', { data: { email, name, password: PASSWORD, date_of_birth: birth, gender } })).status()).toBe(200);
  const link = await linkFromMail(email, '/api/activate.php?token=');
  await request.get(link.replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await request.get('/api/user.php')).json();
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  return { email, name, password: PASSWORD, profileId: user.profile.id };
}

async function login(page: Page, member: { email: string; password: string }) {
  await skipEntryWarning(page);
  await page.goto('/login');
  await hydrated(page);
  await page.getByLabel(tr('en', 'auth.email')).fill(member.email);
  await page.getByLabel(tr('en', 'auth.password')).fill(member.password);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/members/);
}

async function memberPage(browser: Browser, baseURL: string | undefined, isMobile: boolean) {
  const context = await browser.newContext({ baseURL, ...(isMobile ? { viewport: { width: 412, height: 839 }, isMobile: true, hasTouch: true } : {}) });
  // Like the fixture's page: goto waits for the islands, so a click never races hydration.
  return gotoHydrates(await context.newPage());
}

/** Waits until the page's live connection listens, so no event can slip past before it. */
const live = (page: Page) => expect(page.locator('html')).toHaveAttribute('data-realtime', 'open');
const composer = (page: Page) => page.getByRole('textbox', { name: t('chat.message_label', { name: '' }).trim() });
const balance = (page: Page, credits: number) => expect(page.locator('.composer-balance')).toContainText(t('chat.balance', { credits }));

test('two members match, chat live, pay per message, exchange a gift and a photo, delete a chat and block', async ({ page, browser, request, baseURL, isMobile }) => {
  test.setTimeout(120_000);
  const stamp = `${Date.now() % 1_000_000}${isMobile ? 'p' : 'd'}`;
  const ann = await createMember(request, `Ann${stamp}`, 'female', '1985-04-04');
  const bob = await createMember(request, `Bob${stamp}`, 'male', '1983-05-05');
  await login(page, ann);
  const bobPage = await memberPage(browser, baseURL, isMobile);
  await login(bobPage, bob);

  // Ann likes Bob; Bob likes back: both see the match modal (Bob from his like, Ann live).
  await page.goto(`/members/${bob.profileId}`);
  await page.getByRole('button', { name: t('profile.like') }).click();
  await expect(page.getByText(t('like.sent', { name: bob.name }))).toBeVisible();
  await live(page);
  await bobPage.goto(`/members/${ann.profileId}`);
  await bobPage.getByRole('button', { name: t('profile.like') }).click();
  for (const [viewer, partner] of [[bobPage, ann], [page, bob]] as const) {
    const modal = viewer.getByRole('dialog', { name: t('match.title') });
    await expect(modal).toBeVisible();
    await expect(modal).toContainText(t('match.text', { name: partner.name }));
    await expect(modal.getByRole('link', { name: t('match.send_message') })).toHaveAttribute('href', `/members/${partner.profileId}/chat`);
    await viewer.keyboard.press('Escape');
    await expect(modal).toBeHidden();
  }

  // Ann writes first from the match; the chat gets its address; the price comes off her credits.
  await bobPage.goto('/chats');
  await live(bobPage);
  await page.goto(`/members/${bob.profileId}/chat`);
  await expect(page.getByText(t('chat.price', { credits: MESSAGE_PRICE }))).toBeVisible();
  await balance(page, SIGNUP_CREDITS);
  // Nothing floats over the composer: the push offer (un-hidden once the browser said it can do push)
  // waits for the other member pages.
  await page.waitForFunction(() => document.querySelector<HTMLElement>('[data-push-alert]')?.hidden === false, undefined, { timeout: 5_000 }).catch(() => undefined);
  expect(await composer(page).evaluate((box) => {
    const r = box.getBoundingClientRect();
    return [r.left + 8, r.left + r.width / 2, r.right - 8].every((x) => {
      const hit = document.elementFromPoint(x, r.top + r.height / 2);
      return hit === box || box.contains(hit);
    });
  })).toBe(true);
  await composer(page).fill('Hi Bob, nice to match!');
  await composer(page).press('Enter');
  await expect(page).toHaveURL(/\/chats\/\d+$/);
  const conversationId = Number(page.url().split('/').pop());
  await expect(page.locator('.bubble-row.mine:not(.pending)')).toContainText('Hi Bob, nice to match!');
  await balance(page, SIGNUP_CREDITS - MESSAGE_PRICE);

  // Bob sees it without reloading, opens it, and sends a photo back.
  const bobsChat = bobPage.locator(`[data-conversation="${conversationId}"]`);
  await expect(bobsChat).toContainText('Hi Bob, nice to match!', LIVE);
  await bobsChat.getByRole('link').click();
  await expect(bobPage).toHaveURL(`/chats/${conversationId}`);
  await expect(bobPage.locator('.bubble-row.theirs')).toContainText('Hi Bob, nice to match!');
  await live(page);
  const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 240, g: 120, b: 90 } } }).png().toBuffer();
  await bobPage.locator('.composer input[type="file"]').setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: photo });
  await expect(bobPage.locator('.bubble-row.mine[data-kind="image"]:not(.pending) img')).toBeVisible({ timeout: 10_000 });
  const picture = page.locator('.bubble-row.theirs[data-kind="image"] img');
  await expect(picture).toBeVisible(LIVE);
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);

  // Ann's second message uses up her credits: the chat says so at once, and the third cannot go; its draft stays.
  await live(bobPage);
  await composer(page).fill('Lovely photo! Where was that?');
  await page.getByRole('button', { name: t('chat.send'), exact: true }).click();
  await expect(bobPage.locator('.bubble-row.theirs').last()).toContainText('Lovely photo! Where was that?', LIVE);
  await balance(page, 0);
  const short = page.locator('[data-short-credits]');
  await expect(short).toHaveText(new RegExp(t('chat.short_credits', { price: MESSAGE_PRICE, credits: 0 })));
  await expect(short.getByRole('link', { name: t('chat.buy_credits') })).toHaveAttribute('href', '/credits');
  await composer(page).fill('Shall we meet for coffee?');
  await composer(page).press('Enter');
  await expect(page.getByRole('button', { name: t('chat.send'), exact: true })).toBeDisabled();
  await expect(composer(page)).toHaveValue('Shall we meet for coffee?');
  await expect(page.locator('.bubble-row', { hasText: 'Shall we meet for coffee?' })).toHaveCount(0);

  // A gift arrives from a premium member (a gift costs more than a new member's credits).
  const premiumPage = await memberPage(browser, baseURL, isMobile);
  await login(premiumPage, { email: 'premium@kindred.example', password: DEMO_PASSWORD });
  await page.goto('/chats');
  await live(page);
  await premiumPage.goto(`/members/${ann.profileId}/chat?gift=1`);
  const picker = premiumPage.getByRole('dialog', { name: t('chat.gift_title', { name: ann.name }) });
  await picker.getByRole('button', { name: new RegExp(tr('en', 'gift.rose')) }).click();
  await expect(premiumPage).toHaveURL(/\/chats\/\d+$/);
  const giftChatId = Number(premiumPage.url().split('/').pop());
  const giftChat = page.locator(`[data-conversation="${giftChatId}"]`);
  await expect(giftChat).toContainText(t('chat.preview_gift'), LIVE);
  await giftChat.getByRole('link').click();
  await expect(page.locator('.bubble-row.theirs[data-kind="gift"]')).toContainText(t('chat.gift_label', { gift: tr('en', 'gift.rose') }));
  await expect(page.locator('.bubble-row.theirs[data-kind="gift"] img')).toHaveAttribute('src', '/gifts/rose.svg');

  // Deleting a chat takes it off the list (after confirming).
  await page.goto('/chats');
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', { name: t('chat.delete', { name: DEMO_NAMES.premium.male }) }).click();
  await expect(page.locator(`[data-conversation="${giftChatId}"]`)).toHaveCount(0);
  await page.reload();
  await expect(page.locator(`[data-conversation="${giftChatId}"]`)).toHaveCount(0);
  await expect(page.locator(`[data-conversation="${conversationId}"]`)).toBeVisible();

  // Ann blocks Bob from the conversation: her composer closes with the reason, and Bob cannot write.
  await page.goto(`/chats/${conversationId}`);
  await page.getByRole('button', { name: t('chat.actions') }).click();
  await page.getByRole('menuitem', { name: t('profile.block') }).click();
  await expect(page.getByText(t('chat.reason_blocked', { name: bob.name }))).toBeVisible();
  await expect(composer(page)).toBeDisabled();
  // (Bob's 5 credits left after his photo do not pay for a message, so his composer no longer sends: he asks the endpoint.)
  const refused = await bobPage.request.post('/api/messages.php', { data: { conversation: conversationId, client_id: crypto.randomUUID(), kind: 'text', text: 'Are you still there?' } });
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toBe('blocked_by');
  await bobPage.reload();
  await expect(bobPage.getByText(t('profile.blocked', { name: ann.name }))).toBeVisible();

  await bobPage.context().close();
  await premiumPage.context().close();
});

test('visitors are asked to sign up to chat; members-only chat and likes pages send them to log in', { tag: '@any-width' }, async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/chats');
  await expect(page).toHaveURL(/\/login\?next=\/chats$/);
  await page.goto('/likes/matches');
  await expect(page).toHaveURL(/\/login\?next=\/likes\/matches$/);
  await page.goto('/members');
  const href = await page.locator('.profile-card a').first().getAttribute('href');
  await page.goto(`${href}/chat`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(t('chat.title_with', { name: '' }).trim());
  await expect(page.getByRole('link', { name: t('nav.signup') })).toHaveAttribute('href', `${href}/signup`);
});

test('likes pages show tabs, and an unknown type is not found', { tag: '@any-width' }, async ({ page }) => {
  await login(page, { email: 'free@kindred.example', password: DEMO_PASSWORD });
  await page.goto('/likes');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(t('likes.title'));
  await expect(page.getByRole('link', { name: new RegExp(t('likes.tab_received')) })).toHaveAttribute('aria-current', 'page');
  await page.getByRole('link', { name: new RegExp(t('likes.tab_matches')) }).click();
  await expect(page).toHaveURL(/\/likes\/matches$/);
  expect((await page.goto('/likes/nonsense'))?.status()).toBe(404);
});
