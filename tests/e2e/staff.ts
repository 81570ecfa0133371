import { execFileSync } from 'node:child_process';
import type { APIRequestContext, Page } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { expect, hydrated, skipEntryWarning, tr } from './fixtures';
import { linkFromMail } from './mail-server';

const DATA_DIR = process.env.E2E_DATA_DIR ?? 'test-results/e2e-data';
const PASSWORD = 'a long passphrase 42';

/** Makes a member staff of Kindred with a role, through the real CLI (`npm run staff`) on the e2e database. */
export function makeStaff(email: string, role: string) {
  execFileSync('npx', ['tsx', 'src/server/accounts/staff.cli.ts', 'kindred', email, '--role', role], {
    env: { ...process.env, DATA_DIR, NODE_ENV: 'production', DEPLOYMENT: 'demo', LOG_LEVEL: 'warn', SEED_ON_EMPTY: '0' }, stdio: 'pipe',
  });
}

export async function login(page: Page, email: string, next = '/members', password = PASSWORD) {
  await skipEntryWarning(page);
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await hydrated(page);
  await page.getByLabel(tr('en', 'auth.email')).fill(email);
  await page.getByLabel(tr('en', 'auth.password')).fill(password);
  await page.getByRole('button', { name: tr('en', 'auth.login_button') }).click();
}

/** First staff login: password, then TOTP enrolment with a code computed from the shown secret; lands in the console. */
export async function staffLogin(page: Page, email: string, password = PASSWORD) {
  await login(page, email, '/admin', password);
  await expect(page).toHaveURL(/\/admin\/login/);
  await hydrated(page);
  await page.getByRole('button', { name: tr('en', 'admin.twofa.enrol_start') }).click();
  await expect(page.getByRole('img', { name: tr('en', 'admin.twofa.qr_label') })).toBeVisible();
  const secret = (await page.locator('[data-totp-secret]').textContent()) as string;
  const code = OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret) });
  await page.getByLabel(tr('en', 'admin.twofa.code_label')).fill(code);
  await page.getByRole('button', { name: tr('en', 'admin.twofa.confirm') }).click();
  await expect(page.locator('[data-recovery-codes] li')).toHaveCount(10);
  await page.getByRole('button', { name: tr('en', 'admin.twofa.continue') }).click();
  return secret;
}


export interface Member { email: string; name: string; profileId: number }

/** A confirmed member (signup API, activated from the mail: 20 signup credits); the request context stays logged out. */
export async function createMember(request: APIRequestContext, tag: string, gender: 'male' | 'female' = 'male'): Promise<Member> {
  const name = `${tag}${Date.now() % 1_000_000}${Math.floor(Math.random() * 1000)}`;
  const email = `${name.toLowerCase()}@example.com`;
  expect((await request.post('/api/signup.php', { data: { email, name, password: PASSWORD, date_of_birth: '1984-03-03', gender } })).status()).toBe(200);
  const link = await linkFromMail(email, '/api/activate.php?token=');
  await request.get(link.replace(/^https?:\/\/[^/]+/, ''));
  const { user } = await (await request.get('/api/user.php')).json();
  await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
  return { email, name, profileId: user.profile.id };
}
