import type { Browser, Page } from '@playwright/test';
import { expect, gotoHydrates, test, tv } from './fixtures';
import { createMember, login, makeStaff, staffLogin } from './staff';

const t = tv;
const WHATSAPP = 'add me on whatsapp 0612345678';

async function memberPage(browser: Browser, baseURL: string | undefined, isMobile: boolean): Promise<Page> {
  const context = await browser.newContext({ baseURL, ...(isMobile ? { viewport: { width: 412, height: 839 }, isMobile: true, hasTouch: true } : {}) });
  return gotoHydrates(await context.newPage());
}

test('an off-platform message: the sender confirms, the recipient reports it in one tap, a moderator suspends the sender', { tag: '@any-width' }, async ({ page, browser, request, baseURL, isMobile }) => {
  test.setTimeout(150_000);
  const ann = await createMember(request, 'Safa', 'female');
  const bob = await createMember(request, 'Safb', 'male');

  // Ann writes; "Are you sure?" comes first, with the site's rule, then "Send anyway".
  await login(page, ann.email);
  await expect(page).toHaveURL(/\/members/);
  await page.goto(`/members/${bob.profileId}/chat`);
  const composer = page.getByRole('textbox', { name: t('chat.message_label', { name: '' }).trim() });
  await composer.fill(WHATSAPP);
  await page.getByRole('button', { name: t('chat.send'), exact: true }).click();
  const confirm = page.locator('.safety-confirm');
  await expect(confirm).toContainText(t('safety.confirm_contact', { site: 'Kindred' }));
  await expect(composer).toHaveValue(WHATSAPP);
  await confirm.getByRole('button', { name: t('safety.send_anyway') }).click();
  await expect(page.locator('.conversation-history .bubble-row.mine p.bubble-text')).toHaveText([WHATSAPP]);
  await expect(confirm).toHaveCount(0);
  // The sender never sees the recipient's prompt.
  await expect(page.getByText(t('safety.prompt'))).toHaveCount(0);

  // Bob sees the message with the calm prompt and reports it in one tap.
  const bobPage = await memberPage(browser, baseURL, isMobile);
  await login(bobPage, bob.email);
  await expect(bobPage).toHaveURL(/\/members/);
  await bobPage.goto(`/members/${ann.profileId}/chat`);
  const prompt = bobPage.getByRole('group', { name: t('safety.prompt') });
  await expect(prompt).toContainText(t('safety.flag_off_platform_contact'));
  await prompt.getByRole('button', { name: t('safety.report') }).click();
  await expect(bobPage.getByText(t('safety.reported'))).toBeVisible();
  await expect(prompt).toHaveCount(0);
  await bobPage.context().close();

  // A moderator finds Ann in the safety queue, with the message in its conversation, and suspends her.
  const moderator = await createMember(request, 'Safm');
  makeStaff(moderator.email, 'moderator');
  const modPage = await memberPage(browser, baseURL, isMobile);
  await staffLogin(modPage, moderator.email);
  await modPage.getByRole('navigation', { name: t('admin.console') }).getByRole('link', { name: t('admin.nav.safety') }).click();
  await expect(modPage).toHaveURL(/\/admin\/safety$/);
  const entry = modPage.locator('[data-safety-account]').filter({ hasText: ann.name });
  await expect(entry).toContainText(t('safety.kind_off_platform_contact'));
  await expect(entry.locator('.safety-context .flagged')).toContainText(WHATSAPP);
  await expect(entry).toContainText(t('safety.history', { date: new Date().toISOString().slice(0, 10), started: 1, reports: 1, payments: 0 }));
  await entry.getByLabel(t('safety.reason')).fill('Asks members to move to WhatsApp');
  await entry.getByLabel(t('safety.days')).fill('14');
  await entry.getByRole('button', { name: t('safety.suspend'), exact: true }).click();
  await expect(modPage.getByText(t('safety.done_suspend'))).toBeVisible();
  await expect(modPage.locator('[data-safety-account]').filter({ hasText: ann.name })).toHaveCount(0);
  await modPage.context().close();

  // Ann's sessions ended with the suspension.
  expect((await page.request.get('/api/chats.php')).status()).toBe(403);
});
