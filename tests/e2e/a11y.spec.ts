import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, skipEntryWarning, test, tr } from './fixtures';

const DEMO = { email: 'premium@kindred.example', password: 'kindred-demo-2026' };
// /404: its big status figure; /cookies: its table scrolls on phones and so must take focus; {profile} landing2: its fake input.
const VISITOR_PAGES = ['/', '/login', '/signup', '/terms', '/404', '/cookies', '/members/{profile}/landing2'];
const MEMBER_PAGES = ['/members', '/chats', '/likes', '/profile', '/settings', '/notifications', '/credits', '/transactions', '/premium', '/match-finder', '/swipe-game'];
/**
 * The pages the phone checks too: where the phone's page differs in kind (the icon navigation and its menus,
 * the filters' drawer, stacked panes, the chat's two screens, the cookie table that scrolls, the signup
 * steps). The others have the same markup at every width: the desktop checks them (tagged @any-width).
 */
const PHONE_TOO = new Set(['/', '/signup', '/cookies', '/members/{profile}/landing2', '/members', '/chats', '/profile', '/credits', '/members/{profile}', '/chats/{chat}', '/members/{profile}/chat?gift=1']);
const widths = (path: string) => (PHONE_TOO.has(path) ? {} : { tag: '@any-width' });

/**
 * Serious and critical axe findings on the page, one line each (rule, and the first offending nodes), plus a
 * missing h1. The name/visible-label check (speech users say what they see) is experimental in axe: switched on.
 */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page: page as unknown as ConstructorParameters<typeof AxeBuilder>[0]['page'] }).options({ rules: { 'label-content-name-mismatch': { enabled: true } } }).analyze();
  // Hidden with the rest of a pane (the phone chat) does not count; visually hidden for screen readers does.
  const headings = (await page.locator('h1:visible').count()) > 0 ? [] : ['no h1'];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)
    .concat(headings);
}

async function logIn(page: Page) {
  const res = await page.request.post('/api/user.php', { data: DEMO, headers: { 'sec-fetch-site': 'same-origin' } });
  expect(res.status()).toBe(200);
}

for (const path of VISITOR_PAGES) {
  test(`axe: ${path} for a visitor has no serious or critical violation`, widths(path), async ({ page }) => {
    await skipEntryWarning(page);
    if (path.includes('{profile}')) await page.goto('/members');
    const profileId = path.includes('{profile}') ? await page.locator('[data-profile-id]').first().getAttribute('data-profile-id') : null;
    await page.goto(path.replace('{profile}', String(profileId)));
    expect(await seriousViolations(page)).toEqual([]);
  });
}

// {profile} and {chat} stand for a profile from the search and the member's first conversation (?gift=1: the gift picker).
for (const path of [...MEMBER_PAGES, '/members/{profile}', '/chats/{chat}', '/members/{profile}/chat?gift=1']) {
  test(`axe: ${path} for a member has no serious or critical violation`, widths(path), async ({ page }) => {
    test.setTimeout(60_000);
    await skipEntryWarning(page);
    await logIn(page);
    let url = path;
    if (path.includes('{')) {
      await page.goto('/members');
      const profileId = await page.locator('[data-profile-id]').first().getAttribute('data-profile-id');
      url = path.replace('{profile}', String(profileId));
      if (path.includes('{chat}')) {
        await page.goto('/chats');
        const chat = page.locator('a[href^="/chats/"]').first();
        url = (await chat.count()) ? String(await chat.getAttribute('href')) : `/members/${profileId}/chat`;
      }
    }
    await page.goto(url);
    expect(await seriousViolations(page)).toEqual([]);
  });
}

test('the language dropdown and the account menu follow the arrow keys and give focus back', async ({ page }) => {
  await skipEntryWarning(page);
  await page.goto('/terms');
  const language = page.locator('.lang-dropdown summary');
  await expect(language).toHaveAccessibleName(/^EN\b/);
  const items = page.locator('.lang-dropdown .dropdown-menu a');
  await language.focus();
  await page.keyboard.press('ArrowDown');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press('End');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('Home');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(items.first()).toBeHidden();
  await expect(language).toBeFocused();

  await logIn(page);
  await page.goto('/members');
  const account = page.locator('.account-dropdown summary');
  const accountItems = page.locator('.account-dropdown .dropdown-menu a');
  await account.focus();
  await page.keyboard.press('ArrowUp');
  await expect(accountItems.last()).toBeFocused();
  await expect(accountItems.last()).toHaveText(tr('en', 'nav.logout'));
  await page.keyboard.press('ArrowDown');
  await expect(accountItems.first()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(accountItems.first()).toBeHidden();
  await expect(account).toBeFocused();
});

test('the chat ⋯ menu is a menu: arrows move, Escape closes and gives focus back', async ({ page }) => {
  await skipEntryWarning(page);
  await logIn(page);
  await page.goto('/members');
  const profileId = await page.locator('[data-profile-id]').first().getAttribute('data-profile-id');
  await page.goto(`/members/${profileId}/chat`);
  const button = page.getByRole('button', { name: tr('en', 'chat.actions') });
  const items = page.getByRole('menu').getByRole('menuitem');
  await button.focus();
  await page.keyboard.press('Enter');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('End');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toHaveCount(0);
  await expect(button).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('menu')).toHaveCount(0);
});

test("a profile's Send a gift: the picker opens with the chat, Escape closes it and the composer has the focus", async ({ page }) => {
  await skipEntryWarning(page);
  await logIn(page);
  await page.goto('/members');
  const profileId = await page.locator('[data-profile-id]').first().getAttribute('data-profile-id');
  await page.goto(`/members/${profileId}`);
  await page.locator('.profile-actions').getByRole('link', { name: tr('en', 'profile.gift') }).click();
  const picker = page.getByRole('dialog');
  await expect(picker).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(picker).toBeHidden();
  await expect(page.locator('.composer textarea')).toBeFocused();
});

test('Like keeps the keyboard focus on its button', async ({ page }) => {
  await skipEntryWarning(page);
  const email = `focus-${Date.now()}@example.com`;
  expect((await page.request.post('/api/signup.php', { data: { email, name: 'Focus', password: 'a long passphrase 42', date_of_birth: '1980-01-01' } })).status()).toBe(200);
  await page.goto('/members');
  const profileId = await page.locator('[data-profile-id]').first().getAttribute('data-profile-id');
  await page.goto(`/members/${profileId}`);
  const like = page.locator('.profile-actions').getByRole('button', { name: tr('en', 'profile.like'), exact: true });
  await like.focus();
  await page.keyboard.press('Enter');
  const liked = page.locator('.profile-actions').getByRole('button', { name: tr('en', 'profile.liked') });
  await expect(liked).toHaveAttribute('aria-pressed', 'true');
  await expect(liked).toBeFocused();
});

test('the adult-entry gate cannot be dismissed with Escape without a choice', async ({ page }) => {
  await page.goto('/terms');
  const gate = page.getByRole('dialog', { name: tr('en', 'entry.title') });
  await expect(gate).toBeVisible();
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(100);
  }
  await expect(gate).toBeVisible();
  await gate.getByRole('button', { name: tr('en', 'entry.accept') }).click();
  await expect(gate).toBeHidden();
});
