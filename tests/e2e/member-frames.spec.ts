import type { APIRequestContext } from '@playwright/test';
import { expect, hydrated, skipEntryWarning, test } from './fixtures';
import { linkFromMail } from './mail-server';

// Member pages made from a kept frame (src/server/pages/member-frame.ts) must be exactly the pages Astro
// renders: the first view of a page (per site, language, route …) goes through Astro and keeps its layout as
// a frame, without the member; every later view of that page by any member — their first too — is made from
// the frame. An Accept-Encoding only the compression middleware negotiates ("gzip;q=1") always goes through
// Astro: the page to compare with.

const PASSWORD = 'a long passphrase 42';
const FRAME = 'x-member-frame';

async function signup(request: APIRequestContext, name: string, activate: boolean, gender: 'female' | 'male' = 'female') {
  const email = `frames-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await request.post('/api/signup.php', { data: { email, name, password: PASSWORD, date_of_birth: '1986-04-04', gender } })).status()).toBe(200);
  if (activate) await request.get((await linkFromMail(email, '/api/activate.php?token=')).replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await request.get('/api/user.php')).json();
  return { email, profileId: user.profile.id as number };
}

/** The page from its frame and the page Astro renders for the same member: the same, byte for byte, headers included. */
async function compare(request: APIRequestContext, path: string, headers: Record<string, string> = {}) {
  const framed = await request.get(path, { headers: { ...headers, 'accept-encoding': 'gzip' } });
  const astro = await request.get(path, { headers: { ...headers, 'accept-encoding': 'gzip;q=1' } });
  expect(astro.headers()[FRAME], path).toBeUndefined();
  expect(framed.headers()[FRAME], path).toBe('filled');
  expect(framed.headers()['content-encoding'], path).toBe('gzip');
  expect(framed.status(), path).toBe(astro.status());
  // Every header but those of the transfer itself.
  const TRANSFER = ['date', 'content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive', FRAME];
  const kept = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !TRANSFER.includes(name)));
  expect(kept(framed.headers()), path).toEqual(kept(astro.headers()));
  expect(astro.headers()['content-security-policy'], path).toContain("script-src 'self'");
  // A new member's time bonus carries the server's clock of each answer.
  const clockless = async (r: typeof astro) => (await r.text()).replace(/"server_now":\d+/, '"server_now":0');
  const page = await clockless(astro);
  expect(await clockless(framed), path).toBe(page);
  return page;
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

  const paths = ['/members', '/chats', '/likes/given', '/profile', '/likes'];
  // The first view of each page keeps its layout (unless another test's view did).
  for (const path of paths) await viewer.get(path, { headers: { 'accept-encoding': 'identity' } });
  for (const path of paths.slice(0, -1)) await compare(viewer, path);
  const likes = await compare(viewer, '/likes');
  expect(likes).toContain('<title>(1) ');
  expect(likes).toContain('Tom &amp; O');
  // The frame holds nothing of the member: another member's first view of the page is theirs.
  const theirs = await other.get('/members', { headers: { 'accept-encoding': 'br' } });
  expect(theirs.headers()[FRAME]).toBe('filled');
  expect(await theirs.text()).toContain(liker.email);
  expect(await theirs.text()).not.toContain(viewed.email);
  // Opening the liker's profile marks their like as seen (the badge goes).
  await viewer.get(`/members/${liker.profileId}`);
  const profile = await compare(viewer, `/members/${liker.profileId}`);
  expect(profile).toContain('content="Tom &#38; O\'Neil');
  await viewer.dispose();
  await other.dispose();
});

test("a member's first view is made from the frame another member's view kept, as Astro renders it for them", async ({ playwright, baseURL }) => {
  const de = { 'accept-language': 'de' };
  const viewer = await playwright.request.newContext({ baseURL, extraHTTPHeaders: de });
  const newcomer = await playwright.request.newContext({ baseURL, extraHTTPHeaders: de });
  const viewed = await signup(viewer, `Framed Erste ${Math.random().toString(36).slice(2, 6)}`, true);
  // Another member, in German too: not activated (the activation alert and dialog), no badge, another initial.
  await signup(newcomer, `Zoë Neu ${Math.random().toString(36).slice(2, 6)}`, false, 'male');
  expect((await newcomer.post('/api/like.php', { data: { profile_id: viewed.profileId, source: 'profile' }, headers: { 'sec-fetch-site': 'same-origin' } })).status()).toBe(200);
  const paths = ['/members', '/members?api_signup_complete=1', '/chats', '/likes', '/likes/given', '/profile'];
  // The viewer's views keep the German layouts; their pages from them show their badge (the like).
  for (const path of paths) await viewer.get(path, { headers: { 'accept-encoding': 'identity' } });
  const viewersPage = await compare(viewer, '/chats');
  expect(viewersPage).toContain('data-badge="likes"');
  expect(viewersPage).not.toContain('data-activation-alert');
  // A profile page in German (the liker's is not shown before they activate): one from the search.
  const shown = (await (await viewer.get('/members')).text()).match(/data-profile-id="(\d+)"/)?.[1];
  expect((await viewer.get(`/members/${shown}`, { headers: { 'accept-encoding': 'identity' } })).status()).toBe(200);
  for (const path of [...paths, `/members/${viewed.profileId}`]) {
    const page = await compare(newcomer, path);
    expect(page, path).toContain('lang="de"');
    expect(page, path).toContain('data-activation-alert');
    expect(page, path).toContain('data-time-bonus');
    expect(page, path).not.toContain('data-badge="likes"');
    expect(page, path).toContain('<span class="avatar" aria-hidden="true">Z</span>');
    if (path.includes('api_signup_complete')) expect(page).toContain('id="activation-modal"');
  }
  await viewer.dispose();
  await newcomer.dispose();
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
