import AxeBuilder from '@axe-core/playwright';
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import { expect, hydrated, PORT, skipEntryWarning, test, tr, tv } from './fixtures';
import { linkFromMail } from './mail-server';

const PASSWORD = 'a long passphrase 42';
/** Kindred (localhost), NL: bundle 2 is 250 credits for €79.95 (the most chosen); new members get 20 credits. */
const BUNDLE = { id: 2, credits: 250 };
const SIGNUP_CREDITS = 20;
const REFUND_DAYS = 14;
const t = tv;

interface Member { email: string; name: string }

/** A member made through the signup API, activated from the mail unless `confirmed` is false. */
async function createMember(request: APIRequestContext, tag: string, confirmed = true): Promise<Member> {
  const name = `${tag}${Date.now() % 1_000_000}${Math.floor(Math.random() * 1000)}`;
  const email = `${name.toLowerCase()}@example.com`;
  const signup = await request.post('/api/signup.php', { data: { email, name, password: PASSWORD, date_of_birth: '1984-03-03', gender: 'male' } });
  expect(signup.status(), await signup.text()).toBe(200);
  if (confirmed) {
    const link = await linkFromMail(email, '/api/activate.php?token=');
    await request.get(link.replace(/^https?:\/\/[^/]+/, ''));
  }
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  return { email, name };
}

/** Logs the page's browser context in (same cookie jar as the page). */
async function login(page: Page, member: Member) {
  await skipEntryWarning(page);
  const res = await page.request.post('/api/user.php', {
    data: { email: member.email, password: PASSWORD },
    headers: { 'X-Requested-With': 'kindred-client', Origin: `http://localhost:${PORT}` },
  });
  expect(res.status(), await res.text()).toBe(200);
}

const live = (page: Page) => expect(page.locator('html')).toHaveAttribute('data-realtime', 'open');
const creditsNav = (page: Page) => page.locator('[data-nav="credits"]');
const premiumNav = (page: Page) => page.locator('[data-nav="premium"]');

/** On /credits/{id}: picks a method (and a bank), agrees to the waiver and orders; lands on the local checkout. */
async function order(page: Page, method: string, bank = false) {
  await page.getByRole('radio', { name: method }).check();
  if (bank) await page.getByLabel(t('shop.choose_bank')).selectOption({ index: 1 });
  await page.getByRole('checkbox', { name: t('shop.consent', { days: REFUND_DAYS }) }).check();
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page).toHaveURL(/\/api\/local-mollie\/checkout\//);
}

/** On the local provider's checkout: picks how the payment ends. */
async function finishCheckout(page: Page, outcome: string) {
  await page.getByLabel(outcome, { exact: true }).check();
  await page.getByRole('button', { name: tr('en', 'payments.local.submit') }).click();
  await expect(page).toHaveURL(/\/credits\/return\?id=\d+/);
}

test('a new member buys credits with iDEAL and a bank: completed page, live badge in another tab, receipt', async ({ page, request, isMobile }) => {
  test.setTimeout(90_000);
  const member = await createMember(request, 'Buyer');
  await login(page, member);
  // A second tab of the same member stays on the members page and hears of the payment live.
  const other: Page = await page.context().newPage();
  await other.goto('/members');
  await live(other);
  await expect(premiumNav(other)).toBeVisible();
  await expect(creditsNav(other)).toBeHidden();

  await page.goto('/premium');
  await expect(page.getByText(tr('en', 'premium.higher_chance').replace('{{percent}}', '46'))).toBeVisible();
  await page.getByRole('link', { name: t('shop.premium_cta') }).click();
  await expect(page).toHaveURL(/\/credits$/);
  await expect(page.getByText(t('shop.balance', { count: SIGNUP_CREDITS }))).toBeVisible();
  const card = page.locator(`[data-bundle="${BUNDLE.id}"]`);
  await expect(card).toContainText(t('shop.badge_most_chosen'));
  await expect(card).toContainText(t('shop.incl_vat'));
  // The time bonus is the active discount for a new member: old price struck through, new price beside it.
  await expect(card.locator('del')).toContainText('79.95');
  await expect(card).toContainText('59.96');
  await card.getByRole('link', { name: t('shop.choose_bundle', { count: BUNDLE.credits }) }).click();
  await expect(page).toHaveURL(new RegExp(`/credits/${BUNDLE.id}\\?country=NL`));

  // Nothing is ordered without a method, a bank and the waiver.
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page.getByText(t('shop.method_required'))).toBeVisible();
  await page.getByRole('radio', { name: 'iDEAL' }).check();
  await expect(page).toHaveURL(new RegExp(`/credits/${BUNDLE.id}/ideal`));
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page.getByText(t('shop.bank_required'))).toBeVisible();
  await page.getByLabel(t('shop.choose_bank')).selectOption({ index: 1 });
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page.getByText(t('shop.consent_required'))).toBeVisible();
  await expect(page.locator('.order-total')).toContainText('59.96');
  await order(page, 'iDEAL', true);
  await finishCheckout(page, tr('en', 'payments.local.paid'));

  await expect(page.getByRole('heading', { name: t('shop.result_completed') })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText(t('shop.result_credits_added', { count: BUNDLE.credits }))).toBeVisible();
  await expect(page.getByText(t('shop.balance', { count: SIGNUP_CREDITS + BUNDLE.credits }))).toBeVisible();
  // Premium now: the nav shows credits instead of Get Premium — here, and live in the other tab.
  await expect(creditsNav(page)).toBeVisible();
  await expect(premiumNav(page)).toBeHidden();
  await expect(creditsNav(other)).toBeVisible({ timeout: 5_000 });
  await expect(premiumNav(other)).toBeHidden();
  await other.close();

  await page.getByRole('link', { name: t('shop.result_receipt') }).click();
  await expect(page.getByRole('heading', { name: t('shop.receipt_heading') })).toBeVisible();
  await expect(page.locator('.receipt')).toContainText('Kindred Media B.V.');
  await expect(page.locator('.receipt')).toContainText('81234567');
  await expect(page.locator('.receipt')).toContainText('NL862345678B01');
  await expect(page.locator('.receipt-total')).toContainText('59.96');
  await expect(page.locator('.receipt')).toContainText(t('shop.vat_amount', { rate: 21 }));
  await page.getByRole('link', { name: t('shop.tx_back') }).click();
  await expect(page).toHaveURL(/\/transactions$/);
  const row = page.locator('[data-payment]').first();
  await expect(row).toContainText(t('shop.credits_count', { count: BUNDLE.credits }));
  await expect(row).toContainText('iDEAL');
  await expect(row).toContainText(t('shop.status_paid'));
  if (!isMobile) await expect(page.locator('.tx-table thead')).toBeVisible();
});

test('a failed payment offers another method, which then succeeds', { tag: '@any-width' }, async ({ page, request }) => {
  test.setTimeout(90_000);
  const member = await createMember(request, 'Retry');
  await login(page, member);
  await page.goto(`/credits/${BUNDLE.id}`);
  await order(page, tr('en', 'payments.method.creditcard'));
  await finishCheckout(page, tr('en', 'payments.local.failed'));
  await expect(page.getByRole('heading', { name: tr('en', 'payments.failed') })).toBeVisible({ timeout: 15_000 });
  await expect(premiumNav(page)).toBeVisible();
  // No receipt for money never received: the payment's own page shows its state.
  const failedId = new URL(page.url()).searchParams.get('id');
  const failedPage = await page.context().newPage();
  await failedPage.goto(`/transactions/${failedId}`);
  await expect(failedPage.getByRole('heading', { name: t('shop.tx_state_failed') })).toBeVisible();
  await expect(failedPage.getByRole('heading', { name: t('shop.receipt_heading') })).toHaveCount(0);
  await expect(failedPage.getByRole('link', { name: t('shop.try_other_method') })).toBeVisible();
  // An unknown method in the address is a 404, not a checkout.
  expect((await failedPage.goto(`/credits/${BUNDLE.id}/nope`))?.status()).toBe(404);
  await failedPage.close();
  await page.getByRole('link', { name: t('shop.try_other_method') }).click();
  await expect(page).toHaveURL(new RegExp(`/credits/${BUNDLE.id}`));
  await order(page, 'PayPal');
  await finishCheckout(page, tr('en', 'payments.local.paid'));
  await expect(page.getByRole('heading', { name: t('shop.result_completed') })).toBeVisible({ timeout: 15_000 });
  await page.goto('/transactions');
  await expect(page.locator('[data-payment]')).toHaveCount(2);
  await expect(page.locator('[data-payment]').nth(1)).toContainText(t('shop.status_failed'));
});

test('a pending payment shows pending, then completes by itself', { tag: '@any-width' }, async ({ page, request }) => {
  test.setTimeout(90_000);
  const member = await createMember(request, 'Pending');
  await login(page, member);
  await page.goto(`/credits/1/paypal?country=NL`);
  await expect(page.getByRole('radio', { name: 'PayPal' })).toBeChecked();
  await order(page, 'PayPal');
  await finishCheckout(page, tr('en', 'payments.local.pending'));
  await expect(page.getByRole('heading', { name: t('shop.result_pending') })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('heading', { name: t('shop.result_completed') })).toBeVisible({ timeout: 45_000 });
});

test('direct debit with the SMS code from the development mailbox', { tag: '@any-width' }, async ({ page, request }) => {
  test.setTimeout(90_000);
  const member = await createMember(request, 'Debit');
  await login(page, member);
  await page.goto(`/credits/${BUNDLE.id}?country=NL`);
  await page.getByRole('radio', { name: tr('en', 'payments.method.directdebit') }).check();
  // A new member's discount (the time bonus) is on the checkout's total, and the same total on the form.
  await expect(page.locator('.order-total .price-old')).toBeVisible();
  const shown = (await page.locator('.order-total .price-now').textContent())?.trim();
  await page.getByRole('button', { name: t('shop.dd_continue') }).click();
  await expect(page).toHaveURL(new RegExp(`/directdebit\\?bundle=${BUNDLE.id}&country=NL`));
  await expect(page.locator('.order-total .price-now')).toHaveText(shown as string);
  await expect(page.getByRole('heading', { name: t('shop.dd_mandate_title') })).toBeVisible();
  await expect(page.locator('.mandate-data')).toContainText('NL98ZZZ999999990000');
  // Reached by a click, not page.goto: wait for the form's island before using it.
  await hydrated(page);

  // Empty form: every SPEC §5 field is asked for, nothing is sent.
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  for (const field of ['account_holder', 'iban', 'street', 'house_number', 'postal_code', 'city', 'mobile']) {
    await expect(page.getByLabel(t(`shop.dd_${field}`))).toHaveAttribute('aria-invalid', 'true');
  }
  await expect(page.getByText(tr('en', 'payments.dd.authorization_required'))).toBeVisible();

  await page.getByLabel(t('shop.dd_account_holder')).fill(member.name);
  await page.getByLabel(t('shop.dd_iban')).fill('NL91ABNA0417164300');
  await page.getByLabel(t('shop.dd_street')).fill('Keizersgracht');
  await page.getByLabel(t('shop.dd_house_number')).fill('12');
  await page.getByLabel(t('shop.dd_postal_code')).fill('1015 CJ');
  await page.getByLabel(t('shop.dd_city')).fill('Amsterdam');
  // A number of its own: the desktop and phone runs share one development mailbox.
  // +31 61… is a valid Dutch mobile range for libphonenumber (not every +31 6 number is: +31 69… is refused).
  const mobile = `+3161${String(1_000_000 + Math.floor(Math.random() * 8_999_999))}`;
  await page.getByLabel(t('shop.dd_mobile')).fill(mobile);
  await page.getByRole('button', { name: t('shop.dd_send_code') }).click();
  await expect(page.getByText(t('shop.dd_code_sent'))).toBeVisible();

  // The SMS lands in the development mailbox.
  const mailbox = await page.context().newPage();
  await mailbox.goto('/dev/mailbox');
  const sms = mailbox.locator('.mail', { hasText: `sms:${mobile}` }).first();
  const code = ((await sms.locator('pre').textContent()) ?? '').match(/\b(\d{6})\b/)?.[1];
  expect(code).toMatch(/^\d{6}$/);
  await mailbox.close();

  // A wrong code is refused with 'Code invalid'.
  const wrong = code === '000000' ? '111111' : '000000';
  await page.getByLabel(t('shop.dd_sms_code')).fill(wrong);
  await page.getByRole('checkbox', { name: t('shop.dd_authorize', { creditor: 'Kindred Media B.V.' }) }).check();
  await page.getByRole('checkbox', { name: t('shop.consent', { days: REFUND_DAYS }) }).check();
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page.getByText(tr('en', 'payments.sms_invalid'))).toBeVisible();

  await page.getByLabel(t('shop.dd_sms_code')).fill(code as string);
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page).toHaveURL(/\/credits\/return\?id=\d+/);
  await expect(page.getByRole('heading', { name: new RegExp(`${t('shop.result_completed')}|${t('shop.result_pending')}`) })).toBeVisible({ timeout: 15_000 });
  await page.goto('/transactions');
  await expect(page.locator('[data-payment]').first()).toContainText(tr('en', 'payments.method.directdebit'));
  // Charged what both pages showed.
  await expect(page.locator('[data-payment]').first()).toContainText((shown as string).replace(t('shop.new_price'), '').trim());
});

test('repeat order with the stored card, and a declined stored card offers try again and PayPal', { tag: '@any-width' }, async ({ page, request }) => {
  test.setTimeout(120_000);
  const member = await createMember(request, 'Repeat');
  await login(page, member);
  // Free members hear that repeat order is for premium members.
  await page.goto('/credits/repeat-order');
  await expect(page.getByText(tr('en', 'premium.only_feature'))).toBeVisible();

  await page.goto('/credits/1/creditcard?country=NL');
  await order(page, tr('en', 'payments.method.creditcard'));
  await finishCheckout(page, tr('en', 'payments.local.paid'));
  await expect(page.getByRole('heading', { name: t('shop.result_completed') })).toBeVisible({ timeout: 15_000 });

  await page.goto('/credits');
  await page.getByRole('link', { name: t('shop.repeat_link') }).click();
  await expect(page).toHaveURL(/\/credits\/repeat-order$/);
  await page.getByRole('checkbox', { name: t('shop.consent', { days: REFUND_DAYS }) }).check();
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page.getByRole('heading', { name: t('shop.result_completed') })).toBeVisible({ timeout: 15_000 });

  // Another member whose card is declined on repeat orders.
  const declined = await createMember(request, 'Declined');
  const context: BrowserContext = page.context();
  await context.clearCookies();
  await login(page, declined);
  await page.goto('/credits/1/creditcard?country=NL');
  await order(page, tr('en', 'payments.method.creditcard'));
  await finishCheckout(page, tr('en', 'payments.local.paid_declines_later'));
  await expect(page.getByRole('heading', { name: t('shop.result_completed') })).toBeVisible({ timeout: 15_000 });
  await page.goto('/credits/repeat-order');
  await page.getByRole('checkbox', { name: t('shop.consent', { days: REFUND_DAYS }) }).check();
  await page.getByRole('button', { name: t('shop.order_button') }).click();
  await expect(page.getByText(tr('en', 'payments.card_failed'))).toBeVisible({ timeout: 15_000 });
  await page.getByRole('button', { name: t('shop.try_again') }).click();
  await expect(page.getByText(tr('en', 'payments.card_failed'))).toBeVisible({ timeout: 15_000 });
  await page.getByRole('link', { name: t('shop.pay_with_paypal') }).click();
  await expect(page).toHaveURL(/\/credits\/1\/paypal/);
  await expect(page.getByRole('radio', { name: 'PayPal' })).toBeChecked();
});

test('a discount code: unknown code refused, the retention code applied as old and new price', { tag: '@any-width' }, async ({ page, request }) => {
  const member = await createMember(request, 'Coupon');
  await login(page, member);
  await page.goto('/credits');
  const input = page.getByLabel(t('shop.code_label'));
  await input.fill('NOPE123');
  await page.getByRole('button', { name: t('shop.code_apply') }).click();
  await expect(page.getByRole('alert')).toContainText(tr('en', 'payments.code_not_found'));
  // The account-deletion alternative's code (the company's delete_discount, 50% on Kindred).
  await input.fill('STAY50');
  await page.getByRole('button', { name: t('shop.code_apply') }).click();
  await expect(page.getByText(t('shop.discount_active', { percent: 50 }))).toBeVisible();
  await expect(page).toHaveURL(/discount=STAY50/);
  const card = page.locator('[data-bundle="1"]');
  await expect(card.locator('del')).toContainText('34.95');
  await expect(card).toContainText('17.48');
  await card.getByRole('link').click();
  await expect(page).toHaveURL(/\/credits\/1\?country=NL&discount=STAY50/);
  await expect(page.locator('.order-summary')).toContainText(t('shop.discount_line', { percent: 50 }));
  await expect(page.locator('.order-total')).toContainText('17.48');
});

test('the time bonus counts down in a banner and the popup comes after 40 s for a member with 0 credits', async ({ page, request }) => {
  // Unconfirmed: no signup credits yet, so the balance is 0.
  const member = await createMember(request, 'Bonus', false);
  await page.clock.install();
  await login(page, member);
  await page.goto('/members');
  const banner = page.getByRole('region', { name: t('shop.tb_title') });
  await expect(banner).toBeVisible();
  const timer = banner.getByRole('timer');
  await expect(timer).toHaveText(/^03:5\d:\d\d$/);
  const before = await timer.textContent();
  await page.clock.runFor(3_000);
  await expect(timer).not.toHaveText(before as string);

  const dialog = page.getByRole('dialog', { name: t('shop.tb_title') });
  await expect(dialog).toBeHidden();
  await page.clock.runFor(40_000);
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('25%');
  await expect(dialog).toContainText(t('shop.tb_act_fast', { hours: 4 }));
  await expect(dialog.getByRole('link', { name: t('shop.tb_cta') })).toHaveAttribute('href', '/credits');
  await dialog.getByRole('button', { name: tr('en', 'common.close') }).click();
  await expect(dialog).toBeHidden();
  expect(await page.evaluate(() => localStorage.getItem('hide-time-bonus-modal'))).toMatch(/^\d+$/);

  // Dismissed: it does not come back on the next page.
  await page.goto('/likes');
  await page.clock.runFor(45_000);
  await expect(page.getByRole('dialog', { name: t('shop.tb_title') })).toBeHidden();
  await banner.getByRole('link', { name: t('shop.tb_cta') }).click();
  await expect(page).toHaveURL(/\/credits$/);
});

test('the deletion alternatives lead to the trial package and the retention discount', { tag: '@any-width' }, async ({ page, request }) => {
  const member = await createMember(request, 'Leaver');
  await login(page, member);
  await page.goto('/settings');
  const alternatives = page.locator('.alternatives');
  // The button answers once the settings island runs (on a loaded machine the page may still be starting it).
  const startDeleting = () => expect(async () => {
    if (!(await alternatives.isVisible())) await page.getByRole('button', { name: tr('en', 'settings.delete_start') }).click({ timeout: 2000 });
    await expect(alternatives).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 15_000 });
  await startDeleting();
  await alternatives.getByRole('link', { name: tr('en', 'nav.credits') }).click();
  // The trial package (bundle 9, 30 credits) is not listed on /credits but can be bought from here.
  await expect(page).toHaveURL(/\/credits\/9$/);
  await expect(page.locator('.order-summary')).toContainText(t('shop.credits_count', { count: 30 }));
  await page.goBack();
  await startDeleting();
  await alternatives.getByRole('link', { name: tr('en', 'settings.alt_discount_cta') }).click();
  await expect(page).toHaveURL(/\/credits\?discount=stay50/);
  await expect(page.getByText(t('shop.discount_active', { percent: 50 }))).toBeVisible();
});

test('a free member at the daily like limit gets the premium-only alert with the way to premium', async ({ page, request }) => {
  const member = await createMember(request, 'Liker');
  await login(page, member);
  const { results } = await (await page.request.get('/api/search.php?gender=female')).json() as { results: { id: number }[] };
  expect(results.length).toBeGreaterThanOrEqual(5);
  for (const profile of results.slice(0, 4)) {
    const like = await page.request.post('/api/like.php', { data: { profile_id: profile.id }, headers: { Origin: `http://localhost:${PORT}` } });
    expect(like.status(), await like.text()).toBe(200);
  }
  await page.goto(`/members/${results[4].id}`);
  await page.getByRole('button', { name: tr('en', 'profile.like') }).click();
  const alert = page.locator('[data-premium-only]');
  await expect(alert).toContainText(tr('en', 'premium.only_feature'));
  await expect(alert.getByRole('link', { name: t('shop.premium_only_cta') })).toHaveAttribute('href', '/premium');
  await expect(alert.getByRole('link', { name: t('shop.to_credits') })).toHaveAttribute('href', '/credits');
});

test('the money screens have no accessibility violations, and German orders "zahlungspflichtig"', { tag: '@any-width' }, async ({ page, request, context }) => {
  test.setTimeout(150_000);
  const member = await createMember(request, 'Axe');
  await login(page, member);
  for (const path of ['/credits', '/credits/2/ideal?country=NL', '/premium', '/directdebit?bundle=2&country=NL', '/transactions']) {
    await page.goto(path);
    const results = await new AxeBuilder({ page: page as never }).analyze();
    expect(results.violations.map((v) => `${path} ${v.id}: ${v.nodes.length}`)).toEqual([]);
  }
  await context.addCookies([{ name: 'lang', value: 'de', url: `http://localhost:${PORT}` }]);
  await page.goto('/credits/2?country=DE');
  await expect(page.getByRole('button', { name: tr('de', 'shop.order_button') })).toHaveText('Zahlungspflichtig bestellen');
});
