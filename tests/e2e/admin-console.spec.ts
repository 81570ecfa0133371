import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, Browser, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import type { Locale } from '../../src/shared/locales';
import { expect, gotoHydrates, test, tr, tv } from './fixtures';
import { createMember, makeStaff, staffLogin } from './staff';

// The operator console at a desk (issue 27): tiles against SQL, two answers in a row, one claim per
// conversation, a ban that needs its confirmation, no raw ids in nl/de/fr, axe, and 390 px phones.
const PASSWORD = 'a long passphrase 42';
const DATA_DIR = process.env.E2E_DATA_DIR ?? 'test-results/e2e-data';
const SHOTS = 'test-results/console-shots';
const t = tv;
const DAY = 86_400_000;

/** A browser context at 1280 px (desktop project) or 390 px (phone project). */
async function newPage(browser: Browser, baseURL: string | undefined, isMobile: boolean, locale: Locale = 'en') {
  const context = await browser.newContext({
    baseURL, ...(isMobile ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } }),
  });
  await context.addCookies([{ name: 'lang', value: locale, url: baseURL as string }]);
  return gotoHydrates(await context.newPage());
}

/** Staff of Kindred with a role, logged in with TOTP in a fresh context. */
async function staffPage(request: APIRequestContext, browser: Browser, baseURL: string | undefined, isMobile: boolean, role: string, tag: string) {
  const member = await createMember(request, tag);
  makeStaff(member.email, role);
  const page = await newPage(browser, baseURL, isMobile);
  await staffLogin(page, member.email);
  return { page, member };
}

/** A member (logged in in the given request context) writes to a profile. */
async function write(request: APIRequestContext, email: string, profileId: number, text: string) {
  expect((await request.post('/api/user.php', { data: { email, password: PASSWORD } })).status()).toBe(200);
  const res = await request.post('/api/messages.php', { data: { profile_id: profileId, client_id: crypto.randomUUID(), kind: 'text', text } });
  expect(res.status()).toBe(201);
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
}

/** Whether the console's tabs scroll sideways (phones) or all fit (from 1200 px). */
async function tabs(page: Page) {
  return page.locator('.admin-nav').evaluate((el) => ({ scroll: el.scrollWidth > el.clientWidth, overflow: getComputedStyle(el).overflowX }));
}

async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page: page as unknown as ConstructorParameters<typeof AxeBuilder>[0]['page'] }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

/** Nothing in the console's main area reaches within 8 px of the screen's edges (390 px). */
async function touchingEdges(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const bad: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('.admin-main h1, .admin-main p, .admin-main section, .admin-main form, .admin-main li, .admin-main table, .admin-main dl, .admin-main canvas')) {
      if (el.closest('.admin-table-wrap') && el.tagName !== 'TABLE') continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || el.closest('dialog')) continue;
      // A table may scroll inside its wrapper; the wrapper must stay clear of the edges.
      const frame = (el.tagName === 'TABLE' && el.closest('.admin-table-wrap')?.getBoundingClientRect()) || box;
      if (frame.left < 8 || frame.right > width - 8) bad.push(`${el.tagName}.${el.className}: ${Math.round(frame.left)}–${Math.round(frame.right)}`);
    }
    return bad;
  });
}

test('an admin sees the figures at a glance, as the database has them', async ({ request, browser, baseURL, isMobile }) => {
  test.setTimeout(120_000);
  const db = new Database(path.join(DATA_DIR, 'kindred.db'), { readonly: true, fileMustExist: true });
  const count = (query: string, ...args: number[]) => Number((db.prepare(query).get(...args) as { n: number }).n);
  const todayStart = Math.floor(Date.now() / DAY) * DAY;
  const figures = () => ({
    signups: count("select count(*) as n from users where site_id = 'kindred' and role = 'member' and created_at >= ?", todayStart),
    weekSignups: count("select count(*) as n from users where site_id = 'kindred' and role = 'member' and created_at >= ?", todayStart - 6 * DAY),
    activations: count("select count(*) as n from users where site_id = 'kindred' and role = 'member' and confirmed_at >= ?", todayStart),
    paying: count("select count(*) as n from users where site_id = 'kindred' and role = 'member' and paid_user = 1 and deleted_at is null"),
    photos: count("select count(*) as n from photos join profiles on profiles.id = photos.profile_id where profiles.site_id = 'kindred' and photos.status = 'under inspection'"),
    // Staff accounts: other tests make them from members they just signed up (a member's figures then go down).
    staff: count("select count(*) as n from users where site_id = 'kindred' and role <> 'member'"),
  });
  const { page } = await staffPage(request, browser, baseURL, isMobile, 'admin', 'Tiles');
  // Other tests sign members up meanwhile, and turn some into staff: the page's figure lies between the counts
  // before and after it loaded, give or take the members made staff in between.
  const before = figures();
  await page.goto('/admin');
  const after = figures();
  db.close();
  const value = async (period: string, tile: string) => Number(await page.locator(`[data-tiles="${period}"] [data-tile="${tile}"] .admin-tile-value`).first().getAttribute('data-value'));
  const promoted = after.staff - before.staff;
  const between = (shown: number, key: keyof ReturnType<typeof figures>) => {
    const slack = key === 'photos' ? 0 : promoted;
    expect(shown, key).toBeGreaterThanOrEqual(before[key] - slack);
    expect(shown, key).toBeLessThanOrEqual(after[key] + slack);
  };
  between(await value('today', 'signups'), 'signups');
  between(await value('week', 'signups'), 'weekSignups');
  between(await value('today', 'activations'), 'activations');
  between(await value('now', 'paying_members'), 'paying');
  between(await value('now', 'photos_waiting'), 'photos');
  expect(before.signups).toBeGreaterThan(0);
  await expect(page.locator('[data-tiles="today"] [data-tile="revenue"]').first()).toContainText(t('admin.tile.revenue'));
  await expect(page.locator('[data-tiles="today"] [data-tile="signups"] .admin-tile-change')).toContainText(t('admin.tile.vs_yesterday', { change: '' }).trim());

  // Charts: named legends (no "Time: --"), a range switch, a CSV per chart; two per row at 1280, each fits at 390.
  for (const metric of ['signups', 'net_revenue', 'messages']) await expect(page.locator(`[data-chart="${metric}"] canvas`)).toBeVisible();
  await expect(page.locator('[data-chart="signups"] .u-legend')).toContainText(t('admin.stat.day'));
  await expect(page.locator('[data-chart="signups"] .u-legend')).toContainText(t('admin.stat.signups'));
  await expect(page.locator('.u-legend').first()).not.toContainText('Time');
  const boxes = await page.locator('.admin-chart').evaluateAll((els) => els.slice(0, 2).map((e) => e.getBoundingClientRect().top));
  if (isMobile) expect(boxes[1]).toBeGreaterThan(boxes[0]);
  else expect(boxes[1]).toBe(boxes[0]);
  await page.getByRole('button', { name: t('admin.range_days7') }).click();
  await expect(page.getByRole('button', { name: t('admin.range_days7') })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('link', { name: `${t('admin.csv')} (${t('admin.stat.signups')})` })).toHaveAttribute('href', /metric=signups.*format=csv/);
  if (isMobile) {
    expect(await touchingEdges(page)).toEqual([]);
    // The tabs scroll sideways (the shadow at the edge is the cue).
    expect(await tabs(page)).toEqual({ scroll: true, overflow: 'auto' });
  } else expect((await tabs(page)).scroll, 'the nine tabs fit at 1280 px').toBe(false);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/dashboard-en-${isMobile ? 390 : 1280}.png`, fullPage: true });
  await page.context().close();
});

test('an operator answers two conversations in a row; a second operator cannot take one that is claimed', async ({ request, browser, baseURL, isMobile }) => {
  test.setTimeout(150_000);
  const { page: op, member: opMember } = await staffPage(request, browser, baseURL, isMobile, 'operator', 'Shift');
  const persona = `Pia${Date.now() % 100000}${isMobile ? 'p' : 'd'}`;
  const made = await op.request.post('/api/admin/fictional.php', { data: { name: persona, gender: 'female', sexuality: 'hetero', birth_date: '1988-08-08', country: 'NL', city: 'Utrecht', about: 'Loves long walks by the canals.' } });
  expect(made.status()).toBe(200);
  const personaId = (await made.json()).profile.id as number;
  const first = await createMember(request, 'Wone');
  const second = await createMember(request, 'Wtwo');
  await write(request, first.email, personaId, 'Hi Pia, how was your day?');
  await write(request, second.email, personaId, 'Hello from Rotterdam!');

  // The queue counts what waits and how long; the operator opens the first member's conversation.
  await op.goto('/admin/inbox');
  await expect(op.locator('[data-inbox-summary]')).toContainText(/\d/);
  const row = op.locator('[data-inbox] tr', { hasText: first.name });
  await expect(row).toBeVisible();
  await row.getByRole('link', { name: t('admin.inbox.open') }).click();
  await expect(op.locator('[data-persona]')).toContainText(persona);
  await expect(op.locator('[data-persona]')).toContainText('Utrecht');
  await expect(op.locator('[data-persona]')).toContainText('Loves long walks by the canals.');
  await expect(op.locator('[data-member-credits]')).toContainText(/\d/);
  await expect(op.locator('body')).not.toContainText(first.email);
  const firstUrl = op.url();

  // A second operator opening the same conversation finds it held, read-only.
  const { page: other } = await staffPage(request, browser, baseURL, isMobile, 'operator', 'Second');
  await other.goto(new URL(firstUrl).pathname);
  await expect(other.locator('[data-claimed]')).toContainText(opMember.email);
  await expect(other.getByRole('button', { name: t('admin.inbox.send') })).toHaveCount(0);
  const stolen = await other.request.post('/api/admin/inbox-reply.php', { data: { conversation_id: Number(firstUrl.split('/').pop()), text: 'Me too', client_id: 'steal-attempt-1' } });
  expect(stolen.status()).toBe(409);
  expect((await stolen.json()).message).toBe(t('admin.error.claimed_elsewhere'));
  expect(await seriousViolations(other)).toEqual([]);
  await other.context().close();

  // Notes and a quick line; send: a confirmation, and the next conversation (same persona first) opens.
  await op.getByLabel(t('admin.inbox.notes')).fill('Asked about her day; lives in the north.');
  await op.getByRole('button', { name: t('admin.inbox.save_notes') }).click();
  await expect(op.locator('.inbox-notes-state')).toHaveText(t('admin.inbox.notes_saved'));
  await op.getByLabel(t('admin.inbox.answer_as', { name: persona })).fill('Lovely, thank you! And yours?');
  await op.getByRole('button', { name: t('admin.inbox.send') }).click();
  await expect(op.locator('[data-sent]')).toHaveText(t('admin.inbox.sent', { name: first.name }));
  await expect(op).toHaveURL(/\/admin\/inbox\/\d+\?sent=\d+$/);
  await expect(op.locator('[data-messages]')).toContainText('Hello from Rotterdam!');
  // The persona's earlier line is one click away.
  await op.getByRole('button', { name: 'Lovely, thank you! And yours?' }).click();
  await expect(op.getByLabel(t('admin.inbox.answer_as', { name: persona }))).toHaveValue('Lovely, thank you! And yours?');
  expect(await seriousViolations(op)).toEqual([]);
  if (isMobile) expect(await touchingEdges(op)).toEqual([]);
  await op.screenshot({ path: `${SHOTS}/inbox-en-${isMobile ? 390 : 1280}.png`, fullPage: true });
  await op.getByRole('button', { name: t('admin.inbox.send') }).click();
  await expect(op.locator('[data-sent]')).toHaveText(t('admin.inbox.sent', { name: second.name }));
  // Whatever opened next (another test's conversation, or the empty queue) goes back unanswered.
  const next = /\/admin\/inbox\/(\d+)/.exec(op.url());
  if (next) await op.request.post('/api/admin/inbox-claim.php', { data: { conversation_id: Number(next[1]), release: true } });
  // Both conversations are answered: they left the queue.
  await op.goto('/admin/inbox');
  for (const m of [first, second]) await expect(op.locator('[data-inbox] tr', { hasText: m.name })).toHaveCount(0);
  await op.context().close();
});

test('a ban needs its confirmation; deleting needs the name typed; the result shows', async ({ request, browser, baseURL, isMobile }) => {
  test.setTimeout(120_000);
  const { page } = await staffPage(request, browser, baseURL, isMobile, 'admin', 'Judge');
  const target = await createMember(request, 'Target');
  const { user } = await (await page.request.get(`/api/admin/members.php?q=${encodeURIComponent(target.email)}`)).json().then((r) => ({ user: r.members[0] }));
  await page.goto(`/admin/members/${user.id}`);
  await expect(page.locator('[data-member-state]')).toHaveText(t('admin.status.confirmed'));
  const ban = page.locator('form[data-action="ban"]');
  await expect(page.locator('[data-group="destructive"]')).toContainText(t('admin.action.ban'));
  await ban.getByLabel(t('admin.field.reason')).fill('Scam messages');
  await ban.getByRole('button', { name: t('admin.action.ban') }).click();
  const dialog = page.getByRole('dialog', { name: t('admin.confirm.ban_title', { name: target.name }) });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(t('admin.confirm.ban_text', { name: target.name }));
  // The dialog opens with its form drawn: focus inside it, on Cancel (it opened empty, focus on the dialog itself).
  await expect(dialog.getByRole('button', { name: t('admin.confirm.cancel') })).toBeFocused();
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/member-ban-en-${isMobile ? 390 : 1280}.png` });
  await dialog.getByRole('button', { name: t('admin.confirm.cancel') }).click();
  await expect(dialog).toBeHidden();
  await page.reload();
  await expect(page.locator('[data-member-state]')).toHaveText(t('admin.status.confirmed'));
  // The API refuses a ban without the confirmation, too.
  const bare = await page.request.post('/api/admin/member-action.php', { data: { action: 'ban', user_id: user.id, reason: 'Scam messages' } });
  expect(bare.status()).toBe(400);
  expect((await bare.json()).message).toBe(t('admin.error.confirm_required'));
  await ban.getByLabel(t('admin.field.reason')).fill('Scam messages');
  await ban.getByRole('button', { name: t('admin.action.ban') }).click();
  await dialog.getByRole('button', { name: t('admin.confirm.ban_button', { name: target.name }) }).click();
  await expect(page.locator('[data-done="ban"]')).toContainText(target.name);
  await expect(page.locator('[data-member-state]')).toHaveText(t('admin.status.banned'));

  // Deleting: the button stays off until the member's name is typed.
  const del = page.locator('form[data-action="delete"]');
  await del.getByLabel(t('admin.field.reason')).fill('GDPR request');
  await del.getByRole('button', { name: t('admin.action.delete') }).click();
  const delDialog = page.getByRole('dialog', { name: t('admin.confirm.delete_title', { name: target.name }) });
  const confirm = delDialog.getByRole('button', { name: t('admin.confirm.delete_button', { name: target.name }) });
  await expect(confirm).toBeDisabled();
  // Typing goes straight into the name field.
  await expect(delDialog.getByLabel(t('admin.confirm.type_name', { name: target.name }))).toBeFocused();
  await delDialog.getByLabel(t('admin.confirm.type_name', { name: target.name })).fill(`${target.name}x`);
  await expect(confirm).toBeDisabled();
  await delDialog.getByLabel(t('admin.confirm.type_name', { name: target.name })).fill(target.name);
  await confirm.click();
  await expect(page.locator('[data-done="delete"]')).toBeVisible();
  await expect(page.locator('[data-member-state]')).toHaveText(t('admin.status.deleted'));
  if (isMobile) expect(await touchingEdges(page)).toEqual([]);
  // The audit log names the member (not the stored "member #id") and links to their page.
  await page.goto('/admin/audit');
  const named = page.locator('[data-target="member"]').getByRole('link', { name: t('admin.target.member', { id: user.id }), exact: true });
  await expect(named.first()).toHaveAttribute('href', `/admin/members/${user.id}`);
  await page.context().close();
});

test('the members tab opens on the newest signups, and its search field is a whole field', { tag: '@any-width' }, async ({ request, browser, baseURL, isMobile }) => {
  const { page } = await staffPage(request, browser, baseURL, isMobile, 'admin', 'Newest');
  const newcomer = await createMember(request, 'Newcomer');
  await page.goto('/admin/members');
  await expect(page.getByRole('heading', { name: tr('en', 'admin.members.newest') })).toBeVisible();
  await expect(page.locator('.admin-table a', { hasText: newcomer.name })).toHaveAttribute('href', /^\/admin\/members\/\d+$/);
  // The field is as tall as the button beside it (it was a bare 20 px browser box) and writes at 16 px.
  const field = page.getByLabel(tr('en', 'admin.members.search_label'));
  const [fieldBox, buttonBox] = [await field.boundingBox(), await page.getByRole('button', { name: tr('en', 'admin.members.search') }).boundingBox()];
  expect(fieldBox!.height).toBeGreaterThanOrEqual(44);
  expect(Math.abs(fieldBox!.height - buttonBox!.height)).toBeLessThanOrEqual(2);
  expect(await field.evaluate((el) => getComputedStyle(el).fontSize)).toBe('16px');
  await field.fill(newcomer.email);
  await field.press('Enter');
  await expect(page.getByRole('heading', { name: tv('admin.members.results', { query: newcomer.email }) })).toBeVisible();
  await expect(page.locator('.admin-table tbody tr')).toHaveCount(1);
  if (isMobile) expect(await touchingEdges(page)).toEqual([]);
  await page.context().close();
});

for (const locale of ['nl', 'de', 'fr'] as const) {
  test(`no raw method, state or action id on the console in ${locale}`, { tag: '@any-width' }, async ({ request, browser, baseURL, isMobile }) => {
    test.setTimeout(150_000);
    // A member who paid (so the payment lists, the revenue table and the member page show a method and a state).
    const buyer = await createMember(request, `Buy${locale}`);
    expect((await request.post('/api/user.php', { data: { email: buyer.email, password: PASSWORD } })).status()).toBe(200);
    const order = await request.post('/api/payments.php', { data: { bundle: 1, method: 'creditcard', country: 'NL', consent: true } });
    const { checkout_url } = await order.json();
    await request.post(new URL(checkout_url).pathname, { form: { outcome: 'paid' }, headers: { 'sec-fetch-site': 'same-origin' }, maxRedirects: 0 });
    await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
    const { page } = await staffPage(request, browser, baseURL, isMobile, 'admin', `Loc${locale}`);
    await page.context().addCookies([{ name: 'lang', value: locale, url: baseURL as string }]);
    const { members } = await (await page.request.get(`/api/admin/members.php?q=${encodeURIComponent(buyer.email)}`)).json();
    const raw = /\b(creditcard|banktransfer|directdebit|charged_back|under inspection|signup_bonus|grant_credits|take_credits|refund_refused|login_totp|totp_enrolled|fictional_create|inbox_answer|not_confirmed|paid|refunded|pending|canceled|expired|finance|role)\b|\b(staff|member) #\d/;
    for (const path of ['/admin', `/admin/payments?user_id=${members[0].id}`, '/admin/members', `/admin/members/${members[0].id}`, '/admin/audit', '/admin/discounts', '/admin/inbox']) {
      await page.goto(path);
      await expect(page.locator('html')).toHaveAttribute('lang', new RegExp(`^${locale}`));
      if (path === '/admin') await expect(page.locator('[data-table="revenue"]')).toContainText(tr(locale, 'payments.method.creditcard'));
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText keeps the gaps between table cells, so ids stay whole words.
      const text = await page.locator('main').innerText();
      // E-mail addresses may contain anything: left out.
      expect(text.replace(/\S+@\S+/g, '').match(raw)?.[0], `${path} in ${locale}`).toBeUndefined();
    }
    await page.goto(`/admin/members/${members[0].id}`);
    await expect(page.locator('[data-payments] [data-payment-status="paid"]').first()).toHaveText(tr(locale, 'shop.status_paid'));
    if (isMobile) expect(await touchingEdges(page)).toEqual([]);
    else expect((await tabs(page)).scroll, `the nine tabs fit at 1280 px in ${locale}`).toBe(false);
    for (const [name, path] of [['dashboard', '/admin'], ['member', `/admin/members/${members[0].id}`], ['audit', '/admin/audit']]) {
      await page.goto(path);
      await page.screenshot({ path: `${SHOTS}/${name}-${locale}-${isMobile ? 390 : 1280}.png`, fullPage: name !== 'audit' });
    }
    await page.context().close();
  });
}
