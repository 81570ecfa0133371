import type { APIRequestContext, Page } from '@playwright/test';
import sharp from 'sharp';
// Kindred (localhost, a generic site): the demo logins are men.
import { DEMO_NAMES } from '../../src/server/db/demo-names';
import { SEARCH_PAGE_SIZE } from '../../src/shared/profiles.contract';
import { expect, gotoHydrates, hydrated, onHost, skipEntryWarning, test, tr, tv, openSearchFilters } from './fixtures';
import { linkFromMail } from './mail-server';
import { makeStaff, staffLogin } from './staff';

const PASSWORD = 'a long passphrase 42';
const t = tv;

/** A confirmed member with a known name, created through the API and activated in place. */
async function createMember(request: APIRequestContext, name: string, gender: 'male' | 'female', birth: string) {
  const email = `${name.toLowerCase()}-${Date.now()}@example.com`;
  const res = await request.post('/api/signup.php', { data: { email, name, password: PASSWORD, date_of_birth: birth, gender } });
  expect(res.status()).toBe(200);
  const profileId = ((await res.json()) as { user: { profile: { id: number } } }).user.profile.id;
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  return { email, name, profileId };
}

async function login(page: Page, email: string, password = PASSWORD) {
  await page.goto('/login');
  await hydrated(page);
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill(password);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
  await expect(page).toHaveURL(/\/members/);
}

test('a visitor searches members and is asked to sign up to like', async ({ page, isMobile }) => {
  await skipEntryWarning(page);
  await page.goto('/members?gender=female&min_age=40&max_age=60');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(t('search.title'));
  await expect(page.locator('.profile-card').first()).toBeVisible();
  await page.locator('.profile-card a').first().click();
  await expect(page).toHaveURL(/\/members\/\d+$/);
  // The shell's script opens the modal; a click before it runs (a loaded CI machine) follows the link to the signup page.
  await page.waitForLoadState('load');
  await page.getByRole('link', { name: t('profile.like') }).click();
  if (isMobile) await expect(page).toHaveURL(/\/members\/\d+\/signup$/);
  else await expect(page.getByRole('dialog', { name: t('nav.signup') })).toBeVisible();
});

test('a member\'s plain search looks for whom their orientation seeks, and follows a change of it at once', { tag: '@any-width' }, async ({ page, request }) => {
  const me = await createMember(request, `Seeker${Date.now()}`, 'male', '1984-04-04');
  await skipEntryWarning(page);
  await login(page, me.email);
  const gender = page.getByLabel(t('search.gender'));
  // Signed up as a man (straight unless said otherwise): women.
  await page.goto('/members');
  await expect(gender).toHaveValue('female');
  const setSexuality = async (value: string) => {
    await page.goto('/profile');
    await page.getByRole('combobox', { name: t('signup.label_sexuality') }).selectOption(value);
    await page.getByRole('button', { name: t('myprofile.save') }).click();
    await expect(page.getByText(t('myprofile.saved'))).toBeVisible();
  };
  // After signup, /signup-matches shows the first of the same search (the one lookingFor rule).
  const matchesAre = async (seeking: string) => {
    const expected = (await (await page.request.get(`/api/search.php${seeking ? `?gender=${seeking}` : ''}`)).json()).results.slice(0, 12).map((r: { id: number }) => `/members/${r.id}`);
    await page.goto('/signup-matches');
    const shown = await page.locator('.profile-grid .card-title a').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(expected.length).toBeGreaterThan(0);
    expect([...new Set(shown)]).toEqual(expected);
  };
  await matchesAre('female');
  await setSexuality('gay');
  await page.goto('/members');
  await expect(gender).toHaveValue('male');
  await matchesAre('male');
  await setSexuality('bi');
  await page.goto('/members');
  await expect(gender).toHaveValue('');
  await matchesAre('');
  // A search in the address is the member's own choice.
  await page.goto('/members?gender=female');
  await expect(gender).toHaveValue('female');
});

test('search filters and pages load without a reload; visited pages come from the cache; near me fills the place', async ({ browser, baseURL, request }) => {
  // Members other tests create are younger than 55, so these counts hold while they run.
  const older = (await (await request.get('/api/search.php?min_age=55')).json()) as { numResults: number };
  const olderWomen = (await (await request.get('/api/search.php?gender=female&min_age=55')).json()) as { numResults: number };
  expect(older.numResults).toBeGreaterThan(SEARCH_PAGE_SIZE);
  const context = await browser.newContext({ baseURL, geolocation: { latitude: 52.09, longitude: 5.12 } });
  const page = await context.newPage();
  await skipEntryWarning(page);
  const searches: string[] = [];
  page.on('request', (req) => { if (req.url().includes('/api/search.php')) searches.push(req.url()); });
  await page.goto('/members?gender=female&min_age=55');
  await hydrated(page);
  const count = page.locator('.result-count');
  await expect(count).toHaveText(t('search.results', { count: olderWomen.numResults }));
  await page.evaluate(() => { (window as unknown as { sameDocument: boolean }).sameDocument = true; });

  // Widening the filters loads through the store and puts them in the address bar.
  await openSearchFilters(page);
  await page.getByLabel(t('search.gender')).selectOption('');
  await page.getByRole('button', { name: t('search.submit') }).click();
  await expect(count).toHaveText(t('search.results', { count: older.numResults }));
  await expect(page).toHaveURL(/\/members\?min_age=55$/);
  expect(searches).toHaveLength(1);

  // Next, back and next again: page 2 is fetched once, page 1 came with the filters.
  const firstCard = page.locator('.profile-card').first();
  const pageOneFirst = await firstCard.getAttribute('data-profile-id');
  const pager = page.getByRole('navigation', { name: t('search.pages') });
  await pager.getByRole('link', { name: t('search.next') }).click();
  await expect(page).toHaveURL(/\/members\?min_age=55&page=2$/);
  await expect(pager.getByText(t('search.page', { page: 2 }))).toBeVisible();
  await expect(firstCard).not.toHaveAttribute('data-profile-id', pageOneFirst as string);
  const pageTwoFirst = await firstCard.getAttribute('data-profile-id');
  await pager.getByRole('link', { name: t('search.previous') }).click();
  await expect(page).toHaveURL(/\/members\?min_age=55$/);
  await expect(firstCard).toHaveAttribute('data-profile-id', pageOneFirst as string);
  await pager.getByRole('link', { name: t('search.next') }).click();
  await expect(firstCard).toHaveAttribute('data-profile-id', pageTwoFirst as string);
  expect(searches).toHaveLength(2);

  // "Near me" asks for the position only on a click, then fills country and region and searches there.
  await expect(page.getByLabel(t('search.country'))).toHaveValue('');
  await context.grantPermissions(['geolocation']);
  await openSearchFilters(page);
  await page.getByRole('button', { name: t('search.near_me') }).click();
  await expect(page.getByLabel(t('search.country'))).toHaveValue('NL', { timeout: 15_000 });
  await expect(page.getByLabel(t('search.region'))).toHaveValue('utrecht');
  await expect(page).toHaveURL(/\/members\?country=NL&countryregion=utrecht&min_age=55$/);
  expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);

  // With the permission granted already, an unfiltered search starts near the member by itself.
  await page.goto('/members');
  await expect(page.getByLabel(t('search.country'))).toHaveValue('NL', { timeout: 15_000 });
  await expect(page).toHaveURL(/\/members\?country=NL&countryregion=utrecht$/);
  await context.close();
});

test('without JavaScript the search form is a plain GET and pages are plain links', { tag: '@any-width' }, async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto('/members');
  await openSearchFilters(page);
  await page.getByLabel(t('search.gender')).selectOption('female');
  await page.getByLabel(t('search.min_age')).fill('55');
  await page.getByRole('button', { name: t('search.submit') }).click();
  await expect(page).toHaveURL(/\/members\?gender=female&country=&min_age=55&max_age=$/);
  await expect(page.locator('.result-count')).toContainText(t('search.results', { count: 2 }).replace(/^2\s*/, ''));
  await expect(page.getByRole('link', { name: t('search.next') })).toHaveAttribute('href', '/members?gender=female&min_age=55&page=2');
  await expect(page.getByRole('button', { name: t('search.near_me') })).toHaveCount(0);
  await context.close();
});

test('the gay site does not let visitors search', { tag: '@any-width' }, async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto(onHost('gay.localhost', '/members'));
  await expect(page).toHaveURL(/\/login\?next=\/members$/);
});

test('a member finds another by filters, likes and blocks them; the blocked one is shut out', async ({ page, browser, request, baseURL }) => {
  // A long journey (two members, search, like, block, checks from both sides): 25–28 s on a loaded machine.
  test.setTimeout(90_000);
  await skipEntryWarning(page);
  const stamp = Date.now() % 100000;
  const hunter = await createMember(request, `Hunter${stamp}`, 'male', '1980-03-03');
  const target = await createMember(request, `Target${stamp}`, 'female', '1992-07-07');
  for (const m of [hunter, target]) {
    const link = await linkFromMail(m.email, '/api/activate.php?token=');
    await request.get(link.replace(/^https?:\/\/[^/]+/, ''));
    await request.post('/api/user.php', { data: { email: m.email, password: PASSWORD } });
    await request.patch('/api/profile.php', { data: { country: 'NL', region: 'utrecht', city: 'Utrecht' } });
    await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  }
  await login(page, hunter.email);
  await page.goto('/members');
  await openSearchFilters(page);
  await page.getByLabel(t('search.gender')).selectOption('female');
  await page.getByLabel(t('search.country')).selectOption('NL');
  await expect(page.getByLabel(t('search.region'))).toBeVisible();
  await page.getByLabel(t('search.region')).selectOption('utrecht');
  await page.getByLabel(t('search.min_age')).fill('30');
  await page.getByLabel(t('search.max_age')).fill('40');
  await page.getByRole('button', { name: t('search.submit') }).click();
  await page.getByRole('link', { name: target.name }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(target.name);
  await page.getByRole('button', { name: t('profile.like') }).click();
  await expect(page.getByText(t('like.sent', { name: target.name }))).toBeVisible();
  await page.getByRole('button', { name: t('profile.block') }).click();
  await expect(page.getByText(t('profile.blocked_done', { name: target.name }))).toBeVisible();

  // The blocked member cannot open the blocker's profile and no longer finds them.
  const other = await browser.newContext({ baseURL });
  const otherPage = await other.newPage();
  await skipEntryWarning(otherPage);
  await login(otherPage, target.email);
  await otherPage.goto(`/members?gender=male&country=NL&countryregion=utrecht`);
  await expect(otherPage.locator('.result-count')).toBeVisible();
  await expect(otherPage.getByRole('link', { name: hunter.name })).toHaveCount(0);
  // …and the blocker no longer finds them either.
  await page.goto('/members?gender=female&country=NL&countryregion=utrecht');
  await expect(page.getByRole('link', { name: target.name })).toHaveCount(0);
  const hunterProfile = await page.evaluate(() => fetch('/api/user.php').then((r) => r.json()).then((b) => b.user.profile.id));
  const res = await otherPage.goto(`/members/${hunterProfile}`);
  expect(res?.status()).toBe(403);
  await expect(otherPage.getByRole('heading', { level: 1 })).toHaveText(t('profile.blocked', { name: hunter.name }));
  await other.close();
});

test('a member fills the whole profile and uploads a photo; a moderator approves it', async ({ page, browser, baseURL, request }) => {
  test.setTimeout(120_000);
  await skipEntryWarning(page);
  const stamp = Date.now() % 100000;
  const me = await createMember(request, `Filler${stamp}`, 'female', '1988-08-08');
  await login(page, me.email);
  await page.goto('/profile');
  // The way to one's own profile as others see it.
  await expect(page.getByRole('link', { name: t('myprofile.view_public') })).toHaveAttribute('href', /^\/members\/\d+$/);
  await page.getByLabel(t('signup.label_country')).selectOption('NL');
  await page.getByLabel(t('signup.label_region')).selectOption('utrecht');
  await page.getByLabel(t('signup.label_city')).fill('Amersfoort');
  for (const [field, value] of [['sexuality', 'bi'], ['relationship_status', 'single'], ['hair_color', 'red'], ['eye_color', 'green'], ['body_type', 'curvy'], ['tattoos', 'some']]) {
    await page.getByRole('combobox', { name: t(`signup.label_${field}`) }).selectOption(value);
  }
  await page.getByLabel(tr('en', 'interest.wine')).check();
  await page.getByLabel(tr('en', 'interest.hiking')).check();
  await page.getByRole('textbox', { name: t('profile.note_about') }).fill('Hiking on Sundays,\nwine on Fridays.');
  await page.getByRole('button', { name: t('myprofile.save') }).click();
  await expect(page.getByText(t('myprofile.saved'))).toBeVisible();
  const png = await sharp({ create: { width: 500, height: 500, channels: 3, background: '#e67' } }).png().toBuffer();
  await page.locator('#f-new-photo').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png });
  await expect(page.locator('[data-photo-status="under inspection"]')).toBeVisible();
  await expect(page.getByText(t('photo_status.under inspection'))).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(t('signup.label_city'))).toHaveValue('Amersfoort');
  await expect(page.getByLabel(tr('en', 'interest.wine'))).toBeChecked();
  await expect(page.getByRole('textbox', { name: t('profile.note_about') })).toHaveValue('Hiking on Sundays,\nwine on Fridays.');

  const mod = await browser.newContext({ baseURL });
  const modPage = await mod.newPage();
  await skipEntryWarning(modPage);
  // A moderator of its own (the second factor accepts each code once, so runs in parallel never share one).
  const moderator = await createMember(request, `Moder${stamp}`, 'female', '1975-05-05');
  makeStaff(moderator.email, 'moderator');
  await staffLogin(modPage, moderator.email);
  // The old address leads to the console's moderation page.
  await modPage.goto('/moderation');
  await expect(modPage).toHaveURL(/\/admin\/moderation$/);
  const card = modPage.locator('li[data-moderation-photo]', { hasText: me.name });
  await card.getByRole('button', { name: t('moderation.approve') }).click();
  await expect(card).toHaveCount(0);
  await mod.close();
  await page.reload();
  await expect(page.locator('[data-photo-status="active"]')).toBeVisible();
  // The profile shows the note the site lists (visible_profile_notes), line breaks kept.
  await page.goto(`/members/${me.profileId}`);
  const note = page.locator('[data-note="about"]');
  await expect(note.getByRole('heading', { name: t('profile.note_about') })).toBeVisible();
  await expect(note).toContainText(/Hiking on Sundays,\s+wine on Fridays\./);
});

test('a member page shows another member\'s change on the very next reload, hides an invisible profile at once and is the session\'s own', { tag: '@any-width' }, async ({ page, request, browser, baseURL }) => {
  test.setTimeout(60_000);
  await skipEntryWarning(page);
  const stamp = Date.now() % 100000;
  const author = await createMember(request, `Author${stamp}`, 'female', '1985-05-05');
  const link = await linkFromMail(author.email, '/api/activate.php?token=');
  await request.get(link.replace(/^https?:\/\/[^/]+/, ''));
  // The author edits their note in their own session (another browser).
  const authorContext = await browser.newContext({ baseURL });
  expect((await authorContext.request.post('/api/user.php', { data: { email: author.email, password: PASSWORD } })).status()).toBe(200);
  const about = async (text: string) => {
    expect((await authorContext.request.patch('/api/profile.php', { data: { about: text } })).status()).toBe(200);
  };
  await about('Tea first.');
  // A paid member past the time bonus's first hours.
  await login(page, 'premium@kindred.example', 'kindred-demo-2026');
  const note = page.locator('[data-note="about"]');
  await page.goto(`/members/${author.profileId}`);
  await expect(note).toContainText('Tea first.');
  await page.goto(`/members/${author.profileId}`);
  await expect(note).toContainText('Tea first.');
  // A change of what the page shows is on the very next reload.
  await about('Coffee now.');
  await page.reload();
  await expect(note).toContainText('Coffee now.');
  const settings = async (data: object) => {
    expect((await authorContext.request.put('/api/account-settings.php', { data })).status()).toBe(200);
  };
  // Invisible mode hides the author on the very next view, whatever was kept.
  await settings({ invisible: true });
  expect((await page.reload())?.status()).toBe(404);
  await settings({ invisible: false });
  expect((await page.reload())?.status()).toBe(200);
  await expect(note).toContainText('Coffee now.');
  // Pages are the session's own: the author's /profile is the author's.
  const authorProfile = await (await authorContext.request.get('/profile')).text();
  expect(authorProfile).toContain(`<a href="/members/${author.profileId}">${t('myprofile.view_public')}</a>`);
  expect(authorProfile).toContain(`"name":"${author.name}"`);
  await page.goto('/profile');
  const own = page.getByRole('link', { name: t('myprofile.view_public') });
  await expect(own).toHaveAttribute('href', /^\/members\/\d+$/);
  expect(await own.getAttribute('href')).not.toBe(`/members/${author.profileId}`);
  await own.click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(DEMO_NAMES.premium.male);
  await authorContext.close();
});

test('with permission, the browser position fills country, region and city', { tag: '@any-width' }, async ({ browser, baseURL, request }) => {
  const context = await browser.newContext({ baseURL, geolocation: { latitude: 52.09, longitude: 5.12 }, permissions: ['geolocation'] });
  const page = gotoHydrates(await context.newPage());
  await skipEntryWarning(page);
  const me = await createMember(request, `Locator${Date.now() % 100000}`, 'male', '1979-09-09');
  await login(page, me.email);
  await page.goto('/profile');
  await page.getByRole('button', { name: t('myprofile.use_location') }).click();
  // Position, permission and the server lookup take a few seconds on a loaded CI machine.
  await expect(page.getByRole('combobox', { name: t('signup.label_region') })).toHaveValue('utrecht', { timeout: 15_000 });
  await expect(page.getByLabel(t('signup.label_city'))).toHaveValue(/Utrecht/);
  await context.close();
});

test('the swipe game works with keys, drag and buttons', async ({ page, request, isMobile }) => {
  await skipEntryWarning(page);
  const me = await createMember(request, `Swiper${Date.now() % 100000}`, 'male', '1983-03-03');
  await login(page, me.email);
  await page.goto('/swipe-game');
  const card = page.locator('.swipe-card');
  const idOf = async () => card.getAttribute('data-card-id');
  let current = await idOf();
  expect(current).toBeTruthy();

  await page.keyboard.press('ArrowRight');
  await expect(card).not.toHaveAttribute('data-card-id', current as string);
  current = await idOf();
  await page.keyboard.press('ArrowLeft');
  await expect(card).not.toHaveAttribute('data-card-id', current as string);
  current = await idOf();

  // A drag to the left passes: touch on phones, the mouse on desktop.
  const box = (await card.boundingBox())!;
  const y = box.y + box.height / 2;
  if (isMobile) {
    const at = (x: number) => ({ clientX: x, clientY: y, pointerId: 7, pointerType: 'touch', isPrimary: true, bubbles: true });
    await card.dispatchEvent('pointerdown', at(box.x + box.width / 2));
    await card.dispatchEvent('pointermove', at(box.x + box.width / 2 - 60));
    await card.dispatchEvent('pointermove', at(box.x + box.width / 2 - 160));
    await card.dispatchEvent('pointerup', at(box.x + box.width / 2 - 160));
  } else {
    await page.mouse.move(box.x + box.width / 2, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 80, y, { steps: 4 });
    await page.mouse.move(box.x + box.width / 2 - 180, y, { steps: 4 });
    await page.mouse.up();
  }
  await expect(card).not.toHaveAttribute('data-card-id', current as string);
  current = await idOf();

  await page.getByRole('button', { name: t('profile.like') }).click();
  await expect(card).not.toHaveAttribute('data-card-id', current as string);
  await expect(page.getByText(t('swipe.remaining', { count: 50 - 4 }))).toBeVisible();

  // On the narrowest phone the card and its buttons sit inside the page with even margins, in one row.
  if (isMobile) {
    await page.setViewportSize({ width: 320, height: 640 });
    const boxes = await page.locator('.swipe-card, .swipe-buttons .btn').evaluateAll((els) => els.map((el) => {
      const r = el.getBoundingClientRect();
      return { left: Math.round(r.left), right: Math.round(innerWidth - r.right), top: Math.round(r.top) };
    }));
    const [cardBox, ...buttons] = boxes;
    expect(Math.abs(cardBox.left - cardBox.right), JSON.stringify(cardBox)).toBeLessThanOrEqual(1);
    expect(cardBox.left).toBeGreaterThanOrEqual(8);
    expect(new Set(buttons.map((b) => b.top)).size, 'the three buttons in one row').toBe(1);
    expect(Math.min(...buttons.map((b) => Math.min(b.left, b.right)))).toBeGreaterThanOrEqual(8);
    // The arrow-key tip is for keyboards; the count of cards left stays.
    await expect(page.getByText(t('swipe.keys'))).toBeHidden();
    await expect(page.getByText(t('swipe.remaining', { count: 50 - 4 }))).toBeVisible();
  } else {
    await expect(page.getByText(t('swipe.keys'))).toBeVisible();
  }
});

test('the match finder guides through who, age, where and interests to likeable matches', async ({ page, request }) => {
  await skipEntryWarning(page);
  const me = await createMember(request, `Seeker${Date.now() % 100000}`, 'male', '1975-05-05');
  await login(page, me.email);
  await page.goto('/match-finder');
  await page.getByLabel(tr('en', 'option.gender.female')).check();
  await page.getByRole('button', { name: t('signup.next') }).click();
  await openSearchFilters(page);
  await page.getByRole('combobox', { name: t('search.min_age') }).selectOption('30');
  await page.getByRole('combobox', { name: t('search.max_age') }).selectOption('70');
  await page.getByRole('button', { name: t('signup.next') }).click();
  await page.getByRole('button', { name: t('signup.next') }).click();
  await page.getByLabel(tr('en', 'interest.wine')).check();
  await page.getByRole('button', { name: t('finder.show') }).click();
  await expect(page.getByRole('heading', { name: t('finder.results') })).toBeVisible();
  const first = page.locator('.profile-card').first();
  await first.getByRole('button', { name: t('profile.like') }).click();
  await expect(first.getByRole('button', { name: t('profile.liked') })).toBeDisabled();
});
