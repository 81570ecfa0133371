import type { Browser } from '@playwright/test';
import { expect, hydrated, test, tr, tv } from './fixtures';
import { createMember, login, makeStaff, staffLogin } from './staff';

const PASSWORD = 'a long passphrase 42';
const t = tv;

async function newPage(browser: Browser, baseURL: string | undefined, isMobile: boolean) {
  const context = await browser.newContext({ baseURL, ...(isMobile ? { viewport: { width: 412, height: 839 }, isMobile: true, hasTouch: true } : {}) });
  return context.newPage();
}

test('an admin logs in with TOTP, sees the charts, finds a member, grants credits and refunds a payment', async ({ request, browser, baseURL, isMobile }) => {
  test.setTimeout(150_000);
  // A member who bought a bundle (local provider, paid).
  const buyer = await createMember(request, 'Buyer');
  expect((await request.post('/api/user.php', { data: { email: buyer.email, password: PASSWORD } })).status()).toBe(200);
  const order = await request.post('/api/payments.php', { data: { bundle: 1, method: 'creditcard', country: 'NL', consent: true } });
  expect(order.status()).toBe(201);
  const { checkout_url, payment_id } = await order.json();
  const checkout = new URL(checkout_url);
  await request.post(checkout.pathname, { form: { outcome: 'paid' }, headers: { 'sec-fetch-site': 'same-origin' }, maxRedirects: 0 });
  await expect.poll(async () => (await (await request.get(`/api/payments.php?id=${payment_id}`)).json()).payment?.status).toBe('paid');
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });

  // The buyer keeps /credits open in a tab of their own: the grant below shows there at once.
  const buyerPage = await newPage(browser, baseURL, isMobile);
  await login(buyerPage, buyer.email, '/credits');
  await expect(buyerPage).toHaveURL(/\/credits$/);
  await hydrated(buyerPage);
  await expect(buyerPage.locator('html[data-realtime="open"]')).toHaveCount(1, { timeout: 10_000 });

  const admin = await createMember(request, 'Chief');
  makeStaff(admin.email, 'admin');
  const adminPage = await newPage(browser, baseURL, isMobile);
  await staffLogin(adminPage, admin.email);
  await expect(adminPage).toHaveURL(/\/admin$/);
  await expect(adminPage.getByRole('heading', { level: 1, name: t('admin.nav.dashboard') })).toBeVisible();
  for (const metric of ['signups', 'activations', 'active_members', 'messages', 'likes', 'matches']) {
    await expect(adminPage.locator(`[data-chart="${metric}"] canvas`)).toBeVisible();
  }
  await expect(adminPage.locator('[data-table="revenue"]')).toContainText(t('payments.method.creditcard'));
  await expect(adminPage.getByRole('link', { name: t('admin.csv') }).first()).toHaveAttribute('href', /format=csv/);

  // Find the buyer by e-mail and grant credits with a reason.
  await adminPage.goto(`/admin/members?q=${encodeURIComponent(buyer.email)}`);
  await adminPage.getByRole('link', { name: buyer.name }).click();
  await expect(adminPage.locator('[data-member-email]')).toHaveText(buyer.email);
  const credits = Number(await adminPage.locator('[data-member-credits]').textContent());
  const why = `Goodwill after ticket ${buyer.name}`;
  const grant = adminPage.locator('form[data-action="grant_credits"]');
  await grant.getByLabel(t('admin.field.credits')).fill('25');
  await grant.getByLabel(t('admin.field.reason')).fill(why);
  await grant.getByRole('button', { name: t('admin.action.grant_credits') }).click();
  await expect(adminPage.locator('[data-member-credits]')).toHaveText(String(credits + 25));
  await expect(buyerPage.locator('.shop-balance')).toHaveText(t('shop.balance', { count: credits + 25 }), { timeout: 2_000 });
  await buyerPage.context().close();
  await expect(adminPage.locator('[data-ledger] tbody tr').first()).toContainText('+25');
  await expect(adminPage.locator('[data-ledger] tbody tr').first()).toContainText(t('admin.ledger.admin'));

  // Refund the payment through the provider.
  const refund = adminPage.locator('form[data-action="refund"]');
  await refund.getByLabel(t('admin.field.reason')).fill(`Refund window ${buyer.name}`);
  await refund.getByRole('button', { name: t('admin.action.refund') }).click();
  // A refund asks first, naming the member.
  await adminPage.getByRole('dialog', { name: t('admin.confirm.refund_title', { name: buyer.name }) }).getByRole('button', { name: t('admin.confirm.refund_button') }).click();
  await expect(adminPage.locator(`[data-payment="${payment_id}"] [data-payment-status]`)).toHaveText(t('shop.status_refunded'));

  // Both actions are in the audit log, with who and why.
  await adminPage.goto('/admin/audit');
  const grantRow = adminPage.locator('tr[data-audit-action="grant_credits"]', { hasText: why });
  await expect(grantRow).toContainText(admin.email);
  await expect(adminPage.locator('tr[data-audit-action="refund"]', { hasText: `Refund window ${buyer.name}` })).toBeVisible();
  await adminPage.context().close();
});

test('a moderator cannot open finance pages', async ({ request, browser, baseURL, isMobile }) => {
  test.setTimeout(120_000);
  const moderator = await createMember(request, 'Mod');
  makeStaff(moderator.email, 'moderator');
  const page = await newPage(browser, baseURL, isMobile);
  await staffLogin(page, moderator.email);
  // The dashboard shows money: a moderator starts at the member search instead.
  await expect(page).toHaveURL(/\/admin\/members$/);
  const nav = page.getByRole('navigation', { name: t('admin.console') });
  await expect(nav.getByRole('link', { name: t('admin.nav.moderation') })).toBeVisible();
  await expect(nav.getByRole('link', { name: t('admin.nav.payments') })).toHaveCount(0);
  for (const path of ['/admin/payments', '/admin/discounts', '/admin/audit']) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(403);
    await expect(page.getByText(t('admin.error.forbidden'))).toBeVisible();
  }
  expect((await page.request.get('/api/admin/stats.php?metric=revenue&from=2026-01-01&to=2026-01-31')).status()).toBe(403);
  expect((await page.request.get('/api/admin/payments.php')).status()).toBe(403);
  await page.context().close();
});

test('an operator answers a member as a fictional profile; the member sees it live, labelled fictional', async ({ page, request, browser, baseURL, isMobile }) => {
  test.setTimeout(150_000);
  const operator = await createMember(request, 'Oper');
  makeStaff(operator.email, 'operator');
  const opPage = await newPage(browser, baseURL, isMobile);
  await staffLogin(opPage, operator.email);
  await expect(opPage).toHaveURL(/\/admin\/inbox$/);
  // The operator creates the fictional profile.
  await opPage.goto('/admin/fictional');
  // The form sits below the whole list (hundreds of profiles): the link at the top brings it into view.
  await opPage.locator('[data-new-fictional]').click();
  await expect(opPage.getByRole('heading', { name: t('admin.fictional.create') })).toBeInViewport();
  const fictionalName = `Fia${Date.now() % 100000}${isMobile ? 'p' : 'd'}`;
  await opPage.getByLabel(t('admin.field.name')).fill(fictionalName);
  await opPage.getByLabel(t('admin.field.birth_date')).fill('1979-07-07');
  await opPage.getByLabel(t('admin.field.city')).fill('Utrecht');
  await opPage.getByRole('button', { name: t('admin.save') }).click();
  const row = opPage.locator('[data-fictional] tr', { hasText: fictionalName });
  await expect(row).toBeVisible();
  const fictionalId = Number(await row.locator('td').first().textContent());
  await row.getByRole('link', { name: t('admin.edit') }).click();
  await expect(opPage.getByRole('heading', { name: t('admin.fictional.edit', { name: fictionalName }) })).toBeInViewport();

  // A member writes to that profile.
  const member = await createMember(request, 'Writer', 'male');
  await login(page, member.email);
  await expect(page).toHaveURL(/\/members/);
  await page.goto(`/members/${fictionalId}/chat`);
  await expect(page.locator('html')).toHaveAttribute('data-realtime', 'open');
  await expect(page.locator('.conversation-head .fictional-icon')).toBeVisible();
  await expect(page.locator('.conversation-fictional')).toBeVisible();
  await page.getByRole('textbox', { name: t('chat.message_label', { name: '' }).trim() }).fill('Hello, are you real?');
  await page.getByRole('button', { name: tr('en', 'chat.send'), exact: true }).click();
  await expect(page.locator('.conversation-history').getByText('Hello, are you real?')).toBeVisible();

  // It waits in the operator's queue; the operator answers as the profile and never sees the e-mail.
  // The member's screen shows the message before the server has stored it: the queue shows it once it has.
  const waiting = opPage.locator('[data-inbox] tr', { hasText: member.name });
  await expect(async () => {
    await opPage.goto('/admin/inbox');
    await expect(waiting).toContainText(fictionalName, { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await opPage.goto((await waiting.getByRole('link', { name: t('admin.inbox.open') }).getAttribute('href')) as string);
  await expect(opPage.locator('[data-messages]')).toContainText('Hello, are you real?');
  await expect(opPage.locator('body')).not.toContainText(member.email);
  await opPage.getByLabel(t('admin.inbox.answer_as', { name: fictionalName })).fill('Hi! Nice to hear from you.');
  await opPage.getByRole('button', { name: t('admin.inbox.send') }).click();
  // On to the next waiting conversation (or the empty queue), with a confirmation.
  await expect(opPage.locator('[data-sent]')).toHaveText(t('admin.inbox.sent', { name: member.name }));
  const next = /\/admin\/inbox\/(\d+)/.exec(opPage.url());
  if (next) await opPage.request.post('/api/admin/inbox-claim.php', { data: { conversation_id: Number(next[1]), release: true } });
  await opPage.goto('/admin/inbox');
  await expect(opPage.locator('[data-inbox] tr', { hasText: member.name })).toHaveCount(0);

  // The member sees the answer live, from the profile that carries the fictional label.
  await expect(page.locator('.conversation-history').getByText('Hi! Nice to hear from you.')).toBeVisible({ timeout: 5_000 });
  await expect(page.locator('.conversation-head .fictional-icon')).toBeVisible();
  // The conversation list marks the profile too.
  await page.goto('/chats');
  await expect(page.locator('li', { hasText: fictionalName }).locator('.fictional-icon')).toBeVisible();
  await opPage.context().close();
});
