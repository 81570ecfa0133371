import type { APIRequestContext } from '@playwright/test';
import { expect, hydrated, skipEntryWarning, test } from './fixtures';
import { linkFromMail } from './mail-server';

// Member pages made from a kept frame (src/server/pages/member-frame.ts) must be exactly the pages Astro
// renders: the first view of a member's page goes through Astro (and keeps its layout as a frame), the
// next view of the same page in another encoding misses the page cache and is made from the frame.

const PASSWORD = 'a long passphrase 42';
const FRAME = 'x-member-frame';

async function signup(request: APIRequestContext, name: string, activate: boolean, gender: 'female' | 'male' = 'female') {
  const email = `frames-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await request.post('/api/signup.php', { data: { email, name, password: PASSWORD, date_of_birth: '1986-04-04', gender } })).status()).toBe(200);
  if (activate) await request.get((await linkFromMail(email, '/api/activate.php?token=')).replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await request.get('/api/user.php')).json();
  return { email, profileId: user.profile.id as number };
}

test('a member page made from its kept frame is the page Astro renders, byte for byte, headers included', async ({ playwright, baseURL }) => {
  const viewer = await playwright.request.newContext({ baseURL });
  const other = await playwright.request.newContext({ baseURL });
  // Escaped differently in the title (text) and the og:title/twitter:title attributes.
  const liker = await signup(other, `Tom & O'Neil ${Math.random().toString(36).slice(2, 6)}`, true);
  const viewed = await signup(viewer, 'Framed Viewer', true, 'male');
  const me = viewed.profileId;
  // A like from the other member: a badge in the title and a card on /likes.
  expect((await other.post('/api/like.php', { data: { profile_id: me, source: 'profile' }, headers: { 'sec-fetch-site': 'same-origin' } })).status()).toBe(200);

  const compare = async (path: string) => {
    const astro = await viewer.get(path, { headers: { 'accept-encoding': 'identity' } });
    const framed = await viewer.get(path, { headers: { 'accept-encoding': 'gzip' } });
    expect(astro.headers()[FRAME], path).toBeUndefined();
    expect(framed.headers()[FRAME], path).toBe('filled');
    expect(framed.headers()['content-encoding'], path).toBe('gzip');
    expect(framed.status(), path).toBe(astro.status());
    // Every header but those of the transfer itself.
    const TRANSFER = ['date', 'content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive', FRAME, 'x-page-cache'];
    const kept = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !TRANSFER.includes(name)));
    expect(kept(framed.headers()), path).toEqual(kept(astro.headers()));
    expect(astro.headers()['content-security-policy'], path).toContain("script-src 'self'");
    // A new member's time bonus carries the server's clock of each answer.
    const clockless = async (r: typeof astro) => (await r.text()).replace(/"server_now":\d+/, '"server_now":0');
    const page = await clockless(astro);
    expect(await clockless(framed), path).toBe(page);
    return page;
  };
  for (const path of ['/members', '/chats', '/likes/given', '/profile']) await compare(path);
  const likes = await compare('/likes');
  expect(likes).toContain('<title>(1) ');
  expect(likes).toContain('Tom &amp; O');
  // Another member never gets this member's frame: their first view of the same page goes through Astro.
  const theirs = await other.get('/members', { headers: { 'accept-encoding': 'br' } });
  expect(theirs.headers()[FRAME]).toBeUndefined();
  expect(await theirs.text()).toContain(liker.email);
  expect(await theirs.text()).not.toContain(viewed.email);
  // Opening the liker's profile marks their like as seen (the badge goes, so the layout changes once).
  await viewer.get(`/members/${liker.profileId}`);
  const profile = await compare(`/members/${liker.profileId}`);
  expect(profile).toContain('content="Tom &#38; O\'Neil');
  await viewer.dispose();
  await other.dispose();
});

test('a framed member page hydrates and works in the browser', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await skipEntryWarning(page);
  const target = await signup(context.request, `Framed Target ${Math.random().toString(36).slice(2, 6)}`, true);
  await context.request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  await signup(context.request, 'Framed Liker', true);
  // The first view keeps the frame; the next (another address, so not the page cache's copy) is made from it.
  await page.goto(`/members/${target.profileId}`);
  const again = await page.goto(`/members/${target.profileId}?again=1`);
  expect(again?.headers()[FRAME]).toBe('filled');
  await hydrated(page);
  await page.locator('.profile-actions .action-row .btn-primary').first().click();
  await expect(page.locator('.profile-actions .action-row .btn-primary').first()).toHaveAttribute('aria-pressed', 'true');
  await context.close();
});
