import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseExpiredAccounts } from '../../src/server/accounts/accounts.service';
import { createApi } from '../../src/server/api/app';
import { createAppContext } from '../../src/server/app-context';
import { readConfig } from '../../src/server/config';
import { createTestApp, DIALECTS, openSecondHandle, type TestApp } from '../helpers/test-app';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'another fine passphrase';
const DOB = '1990-05-01';

/** English texts from src/shared/i18n/catalogs/en.json. */
const EN = {
  accountExists: 'An account with this e-mail address already exists',
  usernameIsEmail: 'Username may not be the same as your e-mail address',
  usernameAt: 'Username may not start with @',
  dobHint: 'Enter your date of birth (18+)',
  dobInvalid: 'Invalid date of birth.',
  invalidEmail: 'Invalid email',
  passwordsDiffer: 'The entered passwords are not the same.',
  passwordTooShort: 'Use at least 8 characters.',
  passwordTooCommon: 'This password is too common. Choose another one.',
  pendingDeletion: 'This account is scheduled for deletion. Use the link in the e-mail we sent you to reactivate it.',
  loginFailed: 'Login failed, please try again',
  blocked15: 'Too many incorrect attempts, account blocked for 15 min.',
  checkOldPassword: 'Please check your old password.',
  emailNotFound: 'E-mail address not found',
  tooManyResets: 'Too many password reset emails sent, please try again tomorrow.',
  linkInvalid: 'Link expired or invalid, request a new email',
  invalidNewEmail: 'New email adress is invalid.',
  emailOwned: 'This email address already owns an account on this website.',
  invalidInput: 'Some of the data you sent is not valid.',
  authRequired: 'Please log in to continue.',
  inviteOnly: 'Signing up is by invitation only at the moment.',
  alreadyConfirmed: 'Your e-mail address is already confirmed.',
} as const;

interface CallOptions {
  method?: string;
  body?: unknown;
  /** kd_session token */
  session?: string;
  host?: string;
  lang?: string;
  headers?: Record<string, string>;
}

interface CallResult {
  res: Response;
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test answers are loosely typed
  json: any;
  text: string;
  /** The kd_session value set by the answer ('' when cleared), or undefined when not touched. */
  session: string | undefined;
  sessionCookie: string | undefined;
}

function sessionCookieOf(res: Response): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith('kd_session='));
}

async function call(t: TestApp, pathname: string, o: CallOptions = {}): Promise<CallResult> {
  const cookies = [o.session !== undefined ? `kd_session=${o.session}` : null, `lang=${o.lang ?? 'en'}`].filter(Boolean).join('; ');
  const headers: Record<string, string> = { cookie: cookies, ...o.headers };
  let body: string | undefined;
  if (o.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.body);
  }
  const res = await t.request(pathname, { method: o.method ?? (o.body !== undefined ? 'POST' : 'GET'), headers, body, host: o.host, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const sessionCookie = sessionCookieOf(res);
  const session = sessionCookie ? /^kd_session=([^;]*)/.exec(sessionCookie)?.[1] : undefined;
  return { res, status: res.status, json, text, session, sessionCookie };
}

/** Status, code, optional exact message; the message must always be translated text, never a raw catalog key. */
function expectError(r: CallResult, status: number, code: string, message?: string) {
  expect({ status: r.status, error: r.json?.error }, r.text).toEqual({ status, error: code });
  expect(typeof r.json.message).toBe('string');
  expect(r.json.message, 'message is an untranslated catalog key').not.toMatch(/^[a-z_]+\.[a-z_.]+$/);
  if (message !== undefined) expect(r.json.message).toBe(message);
}

let seq = 0;
const uniqueEmail = (prefix: string) => `${prefix}-${++seq}-${Math.random().toString(36).slice(2, 7)}@example.com`;

async function countRows(t: TestApp, table: 'users' | 'profiles' | 'mails' | 'sessions' | 'credit_ledger' | 'user_tokens' | 'notifications') {
  const row = await t.app.db.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

const snapshot = async (t: TestApp) => ({
  users: await countRows(t, 'users'),
  profiles: await countRows(t, 'profiles'),
  mails: await countRows(t, 'mails'),
  sessions: await countRows(t, 'sessions'),
});

function mailsTo(t: TestApp, address: string) {
  return t.app.db.db.selectFrom('mails').selectAll().where('to_address', '=', address).orderBy('id').execute();
}

const LINKS = {
  activation: /\/api\/activate\.php\?token=([A-Za-z0-9_-]+)/,
  reset: /\/reset-password\/do\?token=([A-Za-z0-9_-]+)/,
  mailChange: /\/mail-change\/do\?token=([A-Za-z0-9_-]+)/,
  reactivate: /\/api\/reactivate\.php\?token=([A-Za-z0-9_-]+)/,
};

/** The token of the newest mail to `address` carrying a link of that kind. */
async function latestToken(t: TestApp, address: string, kind: keyof typeof LINKS): Promise<string> {
  const mails = (await mailsTo(t, address)).filter((m) => LINKS[kind].test(m.text));
  expect(mails.length, `no ${kind} mail to ${address}`).toBeGreaterThan(0);
  const mail = mails[mails.length - 1];
  const token = LINKS[kind].exec(mail.text)?.[1] as string;
  expect(mail.html).toContain(token);
  return token;
}

function userRow(t: TestApp, email: string) {
  return t.app.db.db.selectFrom('users').selectAll().where('email_normalized', '=', email.toLowerCase()).executeTakeFirstOrThrow();
}

function profileOf(t: TestApp, userId: number) {
  return t.app.db.db.selectFrom('profiles').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

const validSignup = (email: string, extra: Record<string, unknown> = {}) => ({ email, name: 'Annie', password: PASSWORD, date_of_birth: DOB, ...extra });

async function signup(t: TestApp, email: string, extra: Record<string, unknown> = {}, host?: string) {
  const r = await call(t, '/api/signup.php', { body: validSignup(email, extra), host });
  expect([200, 201], r.text).toContain(r.status);
  expect(r.session).toBeTruthy();
  return { ...r, token: r.session as string };
}

async function activate(t: TestApp, email: string) {
  const r = await call(t, `/api/activate.php?token=${await latestToken(t, email, 'activation')}`);
  expect(r.status).toBe(303);
  expect(r.res.headers.get('location')).toBe('/activate/done');
}

/** A confirmed member with a live session. */
async function member(t: TestApp, prefix: string) {
  const email = uniqueEmail(prefix);
  const { token } = await signup(t, email);
  await activate(t, email);
  return { email, token, id: (await userRow(t, email)).id };
}

const login = (t: TestApp, email: string, password: string, o: CallOptions = {}) => call(t, '/api/user.php', { body: { email, password }, ...o });
const whoami = async (t: TestApp, session: string) => (await call(t, '/api/user.php', { session })).json.user;

for (const dialect of DIALECTS) {
  describe(`accounts API (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect); });
    afterAll(async () => { await t.close(); });

    describe('signup', () => {
      it('creates an unconfirmed account with a disabled profile, logs it in and mails one activation link', async () => {
        const before = await snapshot(t);
        const email = uniqueEmail('ann');
        const r = await call(t, '/api/signup.php', { body: validSignup(email) });
        expect([200, 201]).toContain(r.status);
        const user = r.json.user;
        expect(user).toMatchObject({ email, status: 'not_confirmed', credits: 0, profile: { status: 'disabled', name: 'Annie' } });
        expect(r.sessionCookie).toMatch(/HttpOnly/i);
        expect(r.sessionCookie).toMatch(/SameSite=Lax/i);
        expect(r.sessionCookie).toMatch(/Max-Age=2592000/);
        expect(r.sessionCookie).toMatch(/Path=\//);
        expect((await whoami(t, r.session as string)).email).toBe(email);

        const mails = await mailsTo(t, email);
        expect(mails).toHaveLength(1);
        expect(mails[0].site_id).toBe('kindred');
        expect(mails[0].subject).not.toBe('');
        expect(mails[0].text).toMatch(LINKS.activation);
        const row = await userRow(t, email);
        expect(row.tracking).toBeNull();
        expect(row.password_hash).not.toContain(PASSWORD);
        expect(await snapshot(t)).toEqual({ users: before.users + 1, profiles: before.profiles + 1, mails: before.mails + 1, sessions: before.sessions + 1 });
      });

      it('stores the tracking parameters sent with the signup', async () => {
        const email = uniqueEmail('tracked');
        await signup(t, email, { tracking: { network: 'adnet', sub1: 'campaign-7' } });
        const row = await userRow(t, email);
        expect(JSON.parse(row.tracking as string)).toEqual({ network: 'adnet', sub1: 'campaign-7' });
      });

      it('refuses an e-mail address that already has an account, in any letter case', async () => {
        const email = uniqueEmail('dup');
        await signup(t, email);
        const before = await snapshot(t);
        for (const variant of [email, email.toUpperCase(), `  ${email.replace(/^d/, 'D')}  `]) {
          const r = await call(t, '/api/signup.php', { body: validSignup(variant, { name: 'Other' }) });
          expectError(r, 409, 'email_taken', EN.accountExists);
          expect(r.session).toBeUndefined();
        }
        expect(await snapshot(t)).toEqual(before);
      });

      const invalid: [string, Record<string, unknown>, string, string][] = [
        ['a username equal to the e-mail address', { name: 'SameAs@Example.com', email: 'sameas@example.com' }, 'name', EN.usernameIsEmail],
        ['a username starting with @', { name: '@annie' }, 'name', EN.usernameAt],
        ['someone under 18', { date_of_birth: '2010-01-01' }, 'date_of_birth', EN.dobHint],
        ['an impossible date of birth', { date_of_birth: '1990-02-30' }, 'date_of_birth', EN.dobInvalid],
        ['a malformed e-mail address', { email: 'not-an-email' }, 'email', EN.invalidEmail],
        ['a different password repeat', { password_repeat: 'correct horse battery!' }, 'password_repeat', EN.passwordsDiffer],
        ['a 7-character password', { password: 'Sh0rt!x' }, 'password', EN.passwordTooShort],
      ];
      for (const [what, change, field, message] of invalid) {
        it(`refuses ${what} with 400 and changes nothing`, async () => {
          const before = await snapshot(t);
          const r = await call(t, '/api/signup.php', { body: validSignup(uniqueEmail('bad'), change) });
          expectError(r, 400, 'invalid_input', message);
          expect(r.json.fields?.[field]).toBe(message);
          expect(r.session).toBeUndefined();
          expect(await snapshot(t)).toEqual(before);
        });
      }

      it('refuses a common password with 400 and changes nothing', async () => {
        const before = await snapshot(t);
        const r = await call(t, '/api/signup.php', { body: validSignup(uniqueEmail('common'), { password: 'password123' }) });
        expectError(r, 400, 'weak_password', EN.passwordTooCommon);
        expect(r.json.fields?.password).toBe(EN.passwordTooCommon);
        expect(await snapshot(t)).toEqual(before);
      });

      it('answers in the visitor language', async () => {
        const r = await call(t, '/api/signup.php', { body: validSignup('not-an-email'), lang: 'de' });
        expect(r.status).toBe(400);
        expect(r.json.message).not.toBe(EN.invalidEmail);
        expect(r.json.message).not.toMatch(/^auth\./);
      });

      it('refuses signups without a traffic source on an invite-only site, and accepts them with one', async () => {
        const before = await snapshot(t);
        const email = uniqueEmail('rijpe');
        const denied = await call(t, '/api/signup.php', { body: validSignup(email), host: 'rijpe.localhost' });
        expectError(denied, 403, 'invite_only', EN.inviteOnly);
        expect(await snapshot(t)).toEqual(before);

        const ok = await call(t, '/api/signup.php', { body: validSignup(email, { tracking: { network: 'adnet' } }), host: 'rijpe.localhost' });
        expect([200, 201], ok.text).toContain(ok.status);
        expect(ok.json.user.status).toBe('not_confirmed');
        const row = await userRow(t, email);
        expect(row.site_id).toBe('rijpe-dates');
        expect(JSON.parse(row.tracking as string)).toEqual({ network: 'adnet' });
        expect((await mailsTo(t, email))[0].site_id).toBe('rijpe-dates');
      });

      it('refuses the e-mail address of an account pending deletion with 409 pending_deletion', async () => {
        const email = uniqueEmail('pending');
        const { token } = await signup(t, email);
        const del = await call(t, '/api/delete-account.php', { body: { password: PASSWORD }, session: token });
        expect(del.status).toBe(200);
        const before = await snapshot(t);
        const r = await call(t, '/api/signup.php', { body: validSignup(email, { name: 'Again' }) });
        expectError(r, 409, 'pending_deletion', EN.pendingDeletion);
        expect(await snapshot(t)).toEqual(before);
      });

      it('refuses arbitrary malformed bodies with 4xx and never creates an account', async () => {
        const users = await countRows(t, 'users');
        const wrong = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
        const wrongTracking = fc.oneof(fc.integer(), fc.boolean(), fc.string(), fc.record({ network: fc.oneof(fc.integer(), fc.string({ minLength: 65, maxLength: 80 })) }));
        const field = (valid: string) => fc.oneof(fc.constant(valid), wrong);
        const records = fc
          .record(
            {
              email: field('prop@example.com'),
              name: field('Proppy'),
              password: field(PASSWORD),
              date_of_birth: field(DOB),
              tracking: wrongTracking,
              language: fc.oneof(fc.integer(), fc.constant('xx')),
            },
            { requiredKeys: [] },
          )
          .filter((r) => !(r.email === 'prop@example.com' && r.name === 'Proppy' && r.password === PASSWORD && r.date_of_birth === DOB && r.tracking === undefined && r.language === undefined));
        await fc.assert(
          fc.asyncProperty(fc.oneof(fc.anything(), records), async (body) => {
            const res = await t.request('/api/signup.php', {
              method: 'POST',
              headers: { 'content-type': 'application/json', cookie: 'lang=en' },
              body: JSON.stringify(body),
            });
            expect(res.status).toBeGreaterThanOrEqual(400);
            expect(res.status).toBeLessThan(500);
            expect(await countRows(t, 'users')).toBe(users);
          }),
          { numRuns: 120 },
        );
      });
    });

    describe('activation', () => {
      it('confirms the account, activates the profile and grants the signup credits once', async () => {
        const email = uniqueEmail('act');
        const { token } = await signup(t, email);
        const link = await latestToken(t, email, 'activation');
        const r = await call(t, `/api/activate.php?token=${link}`);
        expect(r.status).toBe(303);
        expect(r.res.headers.get('location')).toBe('/activate/done');
        const user = await whoami(t, token);
        expect(user).toMatchObject({ status: 'confirmed', credits: 20, profile: { status: 'active' } });
        const ledger = await t.app.db.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', user.id).execute();
        expect(ledger).toHaveLength(1);
        expect(ledger[0]).toMatchObject({ reason: 'signup_bonus', delta: 20, balance_after: 20 });

        const again = await call(t, `/api/activate.php?token=${link}`);
        expect(again.status).toBe(303);
        expect(again.res.headers.get('location')).toBe('/activate/error');
        expect((await whoami(t, token)).credits).toBe(20);
        expect(await t.app.db.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', user.id).execute()).toHaveLength(1);
      });

      it('sends garbage and missing tokens to the error page', async () => {
        for (const q of ['?token=thisisnotatokenatall', '?token=x', '', `?token=${'a'.repeat(500)}`]) {
          const r = await call(t, `/api/activate.php${q}`);
          expect(r.status).toBe(303);
          expect(r.res.headers.get('location')).toBe('/activate/error');
        }
      });

      it('refuses an activation link older than 7 days', async () => {
        const email = uniqueEmail('late');
        const { token } = await signup(t, email);
        const link = await latestToken(t, email, 'activation');
        t.clock.advance(8 * DAY);
        const r = await call(t, `/api/activate.php?token=${link}`);
        expect(r.status).toBe(303);
        expect(r.res.headers.get('location')).toBe('/activate/error');
        expect(await whoami(t, token)).toMatchObject({ status: 'not_confirmed', credits: 0, profile: { status: 'disabled' } });
      });

      it('resends the activation mail to a logged-in unconfirmed member, and refuses once confirmed', async () => {
        const email = uniqueEmail('resend');
        const { token } = await signup(t, email);
        const loggedOut = await call(t, '/api/resend-activation.php', { method: 'POST' });
        expectError(loggedOut, 403, 'authentication_required', EN.authRequired);
        expect(loggedOut.json.authentication_required).toBe(true);

        const r = await call(t, '/api/resend-activation.php', { method: 'POST', session: token });
        expect(r.status).toBe(200);
        const mails = await mailsTo(t, email);
        expect(mails).toHaveLength(2);
        expect(LINKS.activation.exec(mails[1].text)?.[1]).not.toBe(LINKS.activation.exec(mails[0].text)?.[1]);
        await activate(t, email);

        const confirmed = await call(t, '/api/resend-activation.php', { method: 'POST', session: token });
        expectError(confirmed, 409, 'already_confirmed', EN.alreadyConfirmed);
        expect(await mailsTo(t, email)).toHaveLength(2);
      });
    });

    describe('sessions', () => {
      it('logs in with a new cookie each time; every cookie identifies the member', async () => {
        const email = uniqueEmail('sess');
        const { token: first } = await signup(t, email);
        const a = await login(t, email.toUpperCase(), PASSWORD);
        expect(a.status).toBe(200);
        expect(a.json.user.email).toBe(email);
        expect(a.sessionCookie).toMatch(/HttpOnly/i);
        expect(a.sessionCookie).toMatch(/SameSite=Lax/i);
        expect(a.sessionCookie).toMatch(/Max-Age=2592000/);
        const b = await login(t, email, PASSWORD);
        expect(b.status).toBe(200);
        expect(new Set([first, a.session, b.session]).size).toBe(3);
        expect((await whoami(t, b.session as string)).email).toBe(email);
        expect((await whoami(t, a.session as string)).email).toBe(email);
        expect((await whoami(t, first)).email).toBe(email);
      });

      it('answers user null without or with an unknown cookie', async () => {
        expect((await call(t, '/api/user.php')).json).toEqual({ user: null });
        expect((await call(t, '/api/user.php', { session: 'forged-token-value-123456' })).json).toEqual({ user: null });
        expect((await call(t, '/api/user.php', { session: 'x'.repeat(5000) })).json).toEqual({ user: null });
      });

      it('sets the saved language when the member logs in on another device', async () => {
        const email = uniqueEmail('lang');
        const { token } = await signup(t, email);
        expect((await call(t, '/api/user.php', { method: 'PUT', body: { language: 'de' }, session: token })).status).toBe(200);
        const elsewhere = await login(t, email, PASSWORD, { lang: 'en' });
        expect(elsewhere.status).toBe(200);
        expect(elsewhere.res.headers.getSetCookie().some((c) => /^lang=de;/.test(c))).toBe(true);
      });

      it('logs out: the cookie is cleared and no longer works', async () => {
        const email = uniqueEmail('logout');
        const { token } = await signup(t, email);
        // Another site's link or image must not log the member out (SameSite=Lax sends the cookie on navigations).
        for (const headers of [{ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, { 'sec-fetch-site': 'same-site' }, { referer: 'https://evil.example/x' }, {}] as Record<string, string>[]) {
          const refused = await call(t, '/api/logout.php', { session: token, headers });
          expect(refused.status === 303 || refused.status === 403).toBe(true);
          expect(refused.session).toBeUndefined();
          expect(await whoami(t, token)).not.toBeNull();
        }
        const r = await call(t, '/api/logout.php', { session: token, headers: { 'sec-fetch-site': 'same-origin' } });
        expect(r.status).toBe(200);
        expect(r.json).toEqual({ user: null });
        expect(r.session).toBe('');
        expect(r.sessionCookie).toMatch(/Max-Age=0/);
        expect(await whoami(t, token)).toBeNull();
      });

      it('ends sessions after 30 days', async () => {
        const email = uniqueEmail('expire');
        const { token } = await signup(t, email);
        t.clock.advance(29 * DAY);
        expect((await whoami(t, token))?.email).toBe(email);
        t.clock.advance(2 * DAY);
        expect(await whoami(t, token)).toBeNull();
      });

      it('stores only hashes of session tokens', async () => {
        const email = uniqueEmail('hash');
        const { token } = await signup(t, email);
        const rows = await t.app.db.db.selectFrom('sessions').selectAll().execute();
        expect(rows.length).toBeGreaterThan(0);
        expect(JSON.stringify(rows)).not.toContain(token);
        const tokens = await t.app.db.db.selectFrom('user_tokens').selectAll().execute();
        expect(JSON.stringify(tokens)).not.toContain(await latestToken(t, email, 'activation'));
      });

      it('changes the password: other sessions end, the answer carries a working new cookie', async () => {
        const email = uniqueEmail('chpw');
        const { token: older } = await signup(t, email);
        const current = (await login(t, email, PASSWORD)).session as string;

        const wrong = await call(t, '/api/change-password.php', { body: { old_password: 'not my password', password: NEW_PASSWORD }, session: current });
        expectError(wrong, 400, 'wrong_password', EN.checkOldPassword);
        expect(wrong.json.fields?.old_password).toBe(EN.checkOldPassword);
        expect((await whoami(t, older))?.email).toBe(email);

        const loggedOut = await call(t, '/api/change-password.php', { body: { old_password: PASSWORD, password: NEW_PASSWORD } });
        expectError(loggedOut, 403, 'authentication_required', EN.authRequired);

        const r = await call(t, '/api/change-password.php', { body: { old_password: PASSWORD, password: NEW_PASSWORD }, session: current });
        expect(r.status).toBe(200);
        expect(r.session).toBeTruthy();
        expect(r.session).not.toBe(current);
        expect(await whoami(t, older)).toBeNull();
        expect((await whoami(t, r.session as string))?.email).toBe(email);
        expectError(await login(t, email, PASSWORD), 401, 'login_failed', EN.loginFailed);
        expect((await login(t, email, NEW_PASSWORD)).status).toBe(200);
      });
    });

    describe('login failures', () => {
      it('answers a wrong password and an unknown e-mail address identically', async () => {
        const email = uniqueEmail('known');
        await signup(t, email);
        const sessions = await countRows(t, 'sessions');
        const wrongPassword = await login(t, email, 'wrong password here');
        const unknown = await login(t, uniqueEmail('nobody'), 'wrong password here');
        expectError(wrongPassword, 401, 'login_failed', EN.loginFailed);
        expect(unknown.status).toBe(401);
        expect(unknown.json).toEqual(wrongPassword.json);
        expect(wrongPassword.session).toBeUndefined();
        expect(await countRows(t, 'sessions')).toBe(sessions);

        const german = await login(t, uniqueEmail('nobody'), 'wrong password here', { lang: 'de' });
        expect(german.status).toBe(401);
        expect(german.json.error).toBe('login_failed');
        expect(german.json.message).not.toBe(EN.loginFailed);
      });

      it('blocks an account for 15 minutes after 5 failures, also across a restart', async () => {
        const email = uniqueEmail('brute');
        await signup(t, email);
        for (let i = 1; i <= 4; i++) expectError(await login(t, email, `wrong password ${i}`), 401, 'login_failed', EN.loginFailed);
        const fifth = await login(t, email, 'wrong password 5');
        expect([401, 429]).toContain(fifth.status);
        const sessions = await countRows(t, 'sessions');

        const correct = await login(t, email, PASSWORD);
        expectError(correct, 429, 'blocked', EN.blocked15);
        expect(correct.session).toBeUndefined();
        expect(await countRows(t, 'sessions')).toBe(sessions);

        // Another account is not affected.
        const other = uniqueEmail('bystander');
        await signup(t, other);
        expect((await login(t, other, PASSWORD)).status).toBe(200);

        const limits = await t.app.db.db.executeQuery(sql`select * from rate_limits`.compile(t.app.db.db));
        expect(JSON.stringify(limits.rows)).toContain(email);

        // "Restart": a new connection and new services on the same database.
        const handle = openSecondHandle(t.app.db);
        const config = readConfig({ NODE_ENV: 'test', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'kindred-restart-')) });
        const app2 = await createAppContext(config, { db: handle, clock: t.clock, logger: pino({ level: 'silent' }) });
        try {
          const api2 = createApi(app2);
          const res = await api2.request('http://localhost:4321/api/user.php', {
            method: 'POST',
            headers: { host: 'localhost:4321', 'content-type': 'application/json', cookie: 'lang=en' },
            body: JSON.stringify({ email, password: PASSWORD }),
          });
          expect(res.status).toBe(429);
          expect(await res.json()).toEqual({ error: 'blocked', message: EN.blocked15 });
        } finally {
          await app2.close();
        }
      });
    });

    describe('password reset', () => {
      it('refuses unknown addresses with 404', async () => {
        const before = await snapshot(t);
        const r = await call(t, '/api/reset-password.php', { body: { email: uniqueEmail('ghost') } });
        expectError(r, 404, 'email_not_found', EN.emailNotFound);
        expect(await snapshot(t)).toEqual(before);
      });

      it('mails at most 3 links per UTC day, and again the next day', async () => {
        const email = uniqueEmail('reset');
        await signup(t, email);
        for (let i = 0; i < 3; i++) expect((await call(t, '/api/reset-password.php', { body: { email } })).status).toBe(200);
        const resetMails = async () => (await mailsTo(t, email)).filter((m) => LINKS.reset.test(m.text)).length;
        expect(await resetMails()).toBe(3);
        const fourth = await call(t, '/api/reset-password.php', { body: { email: email.toUpperCase() } });
        expectError(fourth, 429, 'too_many_resets', EN.tooManyResets);
        expect(await resetMails()).toBe(3);
        t.clock.advance(DAY);
        expect((await call(t, '/api/reset-password.php', { body: { email } })).status).toBe(200);
        expect(await resetMails()).toBe(4);
      });

      it('sets a new password once per link, ends all old sessions and lets the new password log in', async () => {
        const email = uniqueEmail('resetdo');
        const { token: oldSession } = await signup(t, email);
        const other = (await login(t, email, PASSWORD)).session as string;
        expect((await call(t, '/api/reset-password.php', { body: { email } })).status).toBe(200);
        const link = await latestToken(t, email, 'reset');

        const r = await call(t, '/api/reset-password-do.php', { body: { token: link, password: NEW_PASSWORD } });
        expect(r.status).toBe(200);
        expect(r.json.user.email).toBe(email);
        expect((await whoami(t, r.session as string))?.email).toBe(email);
        expect(await whoami(t, oldSession)).toBeNull();
        expect(await whoami(t, other)).toBeNull();

        const hash = (await userRow(t, email)).password_hash;
        const reuse = await call(t, '/api/reset-password-do.php', { body: { token: link, password: 'yet another passphrase' } });
        expectError(reuse, 410, 'link_invalid', EN.linkInvalid);
        expect((await userRow(t, email)).password_hash).toBe(hash);

        expectError(await login(t, email, PASSWORD), 401, 'login_failed', EN.loginFailed);
        expect((await login(t, email, NEW_PASSWORD)).status).toBe(200);
      });

      it('refuses a reset link older than 2 hours', async () => {
        const email = uniqueEmail('resetlate');
        const { token: session } = await signup(t, email);
        expect((await call(t, '/api/reset-password.php', { body: { email } })).status).toBe(200);
        const link = await latestToken(t, email, 'reset');
        const hash = (await userRow(t, email)).password_hash;
        t.clock.advance(2 * HOUR + MINUTE);
        const r = await call(t, '/api/reset-password-do.php', { body: { token: link, password: NEW_PASSWORD } });
        expectError(r, 410, 'link_invalid', EN.linkInvalid);
        expect(r.session).toBeUndefined();
        expect((await userRow(t, email)).password_hash).toBe(hash);
        expect((await whoami(t, session))?.email).toBe(email);
      });
    });

    describe('mail change', () => {
      it('requires a login', async () => {
        const r = await call(t, '/api/mail-change.php', { body: { email: uniqueEmail('new'), password: PASSWORD } });
        expectError(r, 403, 'authentication_required', EN.authRequired);
        expect(r.json.authentication_required).toBe(true);
      });

      it('refuses invalid addresses and addresses of other accounts, and changes only after confirmation', async () => {
        const email = uniqueEmail('mover');
        const { token } = await signup(t, email);
        const taken = uniqueEmail('taken');
        await signup(t, taken);
        const before = await snapshot(t);

        const bad = await call(t, '/api/mail-change.php', { body: { email: 'no-at-sign', password: PASSWORD }, session: token });
        expectError(bad, 400, 'invalid_input', EN.invalidNewEmail);
        expect(bad.json.fields?.email).toBe(EN.invalidNewEmail);

        const owned = await call(t, '/api/mail-change.php', { body: { email: taken.toUpperCase(), password: PASSWORD }, session: token });
        expectError(owned, 409, 'email_owned', EN.emailOwned);
        expect(await snapshot(t)).toEqual(before);

        const wrongPassword = await call(t, '/api/mail-change.php', { body: { email: uniqueEmail('nope'), password: 'not my password' }, session: token });
        expect(wrongPassword.status).toBe(400);
        expect(await snapshot(t)).toEqual(before);

        const target = uniqueEmail('moved');
        const r = await call(t, '/api/mail-change.php', { body: { email: target, password: PASSWORD }, session: token });
        expect(r.status).toBe(200);
        expect((await whoami(t, token)).email).toBe(email);
        const link = await latestToken(t, target, 'mailChange');

        const done = await call(t, '/api/mail-change-do.php', { body: { token: link } });
        expect(done.status).toBe(200);
        expect(done.json.email).toBe(target);
        expect((await whoami(t, token)).email).toBe(target);
        expect((await userRow(t, target)).email_normalized).toBe(target);

        const reuse = await call(t, '/api/mail-change-do.php', { body: { token: link } });
        expectError(reuse, 410, 'link_invalid', EN.linkInvalid);
        expect((await whoami(t, token)).email).toBe(target);
      });
    });

    describe('settings', () => {
      it('reads and changes the notification preferences and invisibility of the own account only', async () => {
        const a = await member(t, 'set-a');
        const b = await member(t, 'set-b');
        expectError(await call(t, '/api/account-settings.php'), 403, 'authentication_required', EN.authRequired);

        const get = await call(t, '/api/account-settings.php', { session: a.token });
        expect(get.status).toBe(200);
        expect(get.json.user).toMatchObject({ email: a.email, invisible: false, notifications_disabled: [] });

        const put = await call(t, '/api/account-settings.php', { method: 'PUT', body: { email_prefs: { promotions: false }, invisible: true }, session: a.token });
        expect(put.status).toBe(200);
        expect(put.json.user.notifications_disabled).toContain('promotions');
        expect(put.json.user.invisible).toBe(true);
        expect(put.json.user.email_prefs.promotions).toBe(false);
        expect((await profileOf(t, a.id))?.invisible).toBe(1);

        const rowA = await userRow(t, a.email);
        const profileA = await profileOf(t, a.id);
        for (const body of [
          { email_prefs: { promotions: 'no' } },
          { invisible: 'yes' },
          { email_prefs: { not_a_type: false } },
          { email_prefs: ['promotions'] },
          { push_prefs: { news: 1 } },
          { invisible: false, email_prefs: { promotions: null } },
        ]) {
          const r = await call(t, '/api/account-settings.php', { method: 'PUT', body, session: a.token });
          expectError(r, 400, 'invalid_input');
        }
        expect(await userRow(t, a.email)).toEqual(rowA);
        expect(await profileOf(t, a.id)).toEqual(profileA);

        // Another member's settings change only their own account, whatever ids they send.
        const other = await call(t, '/api/account-settings.php', {
          method: 'PUT', body: { invisible: false, email_prefs: { promotions: true, news: false }, id: a.id, user_id: a.id, email: a.email }, session: b.token,
        });
        expect(other.status).toBe(200);
        expect(other.json.user.email).toBe(b.email);
        expect(other.json.user.notifications_disabled).toEqual(['news']);
        expect(await userRow(t, a.email)).toEqual(rowA);
        expect(await profileOf(t, a.id)).toEqual(profileA);
        expect((await call(t, '/api/account-settings.php', { session: a.token })).json.user).toMatchObject({ invisible: true, notifications_disabled: ['promotions'] });
      });

      it('saves the language through PUT /api/user.php and refuses unknown languages', async () => {
        const a = await member(t, 'lang');
        const r = await call(t, '/api/user.php', { method: 'PUT', body: { language: 'de' }, session: a.token });
        expect(r.status).toBe(200);
        expect(r.json.user.language).toBe('de');
        expect((await userRow(t, a.email)).language).toBe('de');
        expect((await whoami(t, a.token)).language).toBe('de');

        for (const language of ['xx', 'DE', 7, null]) {
          const bad = await call(t, '/api/user.php', { method: 'PUT', body: { language }, session: a.token });
          expectError(bad, 400, 'invalid_input', EN.invalidInput);
        }
        expect((await userRow(t, a.email)).language).toBe('de');
      });
    });

    describe('deletion', () => {
      it('checks the password, deletes, refuses login, and reactivates from the mailed link', async () => {
        const m = await member(t, 'del');
        const wrong = await call(t, '/api/delete-account.php', { body: { password: 'not my password' }, session: m.token });
        expectError(wrong, 400, 'wrong_password', EN.checkOldPassword);
        expect((await profileOf(t, m.id))?.status).toBe('active');
        expect((await whoami(t, m.token))?.email).toBe(m.email);
        expectError(await call(t, '/api/delete-account.php', { body: { password: PASSWORD } }), 403, 'authentication_required', EN.authRequired);

        const r = await call(t, '/api/delete-account.php', { body: { password: PASSWORD }, session: m.token });
        expect(r.status).toBe(200);
        expect(r.session).toBe('');
        expect(r.sessionCookie).toMatch(/Max-Age=0/);
        expect(await whoami(t, m.token)).toBeNull();
        expect((await profileOf(t, m.id))?.status).toBe('deleted');
        expect((await userRow(t, m.email)).deleted_at).not.toBeNull();

        const refused = await login(t, m.email, PASSWORD);
        expectError(refused, 403, 'pending_deletion', EN.pendingDeletion);
        expect(refused.session).toBeUndefined();

        const link = await latestToken(t, m.email, 'reactivate');
        const back = await call(t, `/api/reactivate.php?token=${link}`);
        expect(back.status).toBe(303);
        expect(back.res.headers.get('location')).toBe('/members?reactivated=1');
        expect(back.session).toBeTruthy();
        expect(back.sessionCookie).toMatch(/HttpOnly/i);
        expect(await whoami(t, back.session as string)).toMatchObject({ email: m.email, status: 'confirmed', credits: 20, profile: { status: 'active' } });
        expect((await userRow(t, m.email)).deleted_at).toBeNull();

        const again = await call(t, `/api/reactivate.php?token=${link}`);
        expect(again.status).toBe(303);
        expect(again.res.headers.get('location')).toBe('/account-deleted?reactivation=failed');
        expect(again.session).toBeUndefined();
        expect((await login(t, m.email, PASSWORD)).status).toBe(200);
      });

      it('fails the reactivation link after 15 days', async () => {
        const m = await member(t, 'dellate');
        expect((await call(t, '/api/delete-account.php', { body: { password: PASSWORD }, session: m.token })).status).toBe(200);
        const link = await latestToken(t, m.email, 'reactivate');
        t.clock.advance(15 * DAY);
        const r = await call(t, `/api/reactivate.php?token=${link}`);
        expect(r.status).toBe(303);
        expect(r.res.headers.get('location')).toBe('/account-deleted?reactivation=failed');
        expect(r.session).toBeUndefined();
        expect((await profileOf(t, m.id))?.status).toBe('deleted');
        const garbage = await call(t, '/api/reactivate.php?token=garbage-garbage-garbage');
        expect(garbage.res.headers.get('location')).toBe('/account-deleted?reactivation=failed');
      });

      it('erases accounts deleted more than 14 days ago, and none earlier', async () => {
        const e = await createTestApp(dialect);
        try {
          const m = await member(e, 'erase');
          const keep = await member(e, 'keep');
          expect((await call(e, '/api/delete-account.php', { body: { password: PASSWORD }, session: m.token })).status).toBe(200);
          const deleted = await userRow(e, m.email);

          e.clock.advance(13 * DAY + 23 * HOUR);
          expect(await eraseExpiredAccounts(e.app)).toBe(0);
          expect(await userRow(e, m.email)).toEqual(deleted);
          expect(await profileOf(e, m.id)).toBeDefined();

          e.clock.advance(DAY + HOUR);
          expect(await eraseExpiredAccounts(e.app)).toBe(1);
          const row = await e.app.db.db.selectFrom('users').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
          expect(row.erased_at).not.toBeNull();
          expect(row.email).not.toBe(m.email);
          expect(row.email).not.toContain(m.email.split('@')[0]);
          expect(row.email_normalized).not.toContain(m.email.split('@')[0]);
          expect(row.password_hash).toBeNull();
          expect(await profileOf(e, m.id)).toBeUndefined();
          expect(await e.app.db.db.selectFrom('sessions').selectAll().where('user_id', '=', m.id).execute()).toHaveLength(0);
          expect(await profileOf(e, keep.id)).toBeDefined();
          expect(await eraseExpiredAccounts(e.app)).toBe(0);
        } finally {
          await e.close();
        }
      });
    });

    describe('data export and notifications', () => {
      it('exports the member data as a JSON attachment without the password hash', async () => {
        const m = await member(t, 'export');
        const r = await call(t, '/api/export.php', { session: m.token });
        expect(r.status).toBe(200);
        expect(r.res.headers.get('content-disposition')).toMatch(/^attachment;\s*filename=".+\.json"$/);
        expect(r.res.headers.get('content-type')).toMatch(/application\/json/);
        expect(r.json.account).toMatchObject({ id: m.id, email: m.email, status: 'confirmed', credits: 20 });
        expect(r.json.profile).toMatchObject({ user_id: m.id, name: 'Annie' });
        expect(r.json.credit_ledger).toHaveLength(1);
        expect(r.json.credit_ledger[0]).toMatchObject({ reason: 'signup_bonus', delta: 20 });
        expect(r.text).not.toContain('password_hash');
        expect(r.text).not.toContain((await userRow(t, m.email)).password_hash as string);
        expect(r.text).not.toContain(m.token);

        const out = await call(t, '/api/export.php');
        expectError(out, 403, 'authentication_required', EN.authRequired);
        expect(out.res.headers.get('content-disposition')).toBeNull();
      });

      it('lists a welcome notification after activation', async () => {
        const email = uniqueEmail('notify');
        const { token } = await signup(t, email);
        expect((await call(t, '/api/notifications.php', { session: token })).json.notifications).toEqual([]);
        await activate(t, email);
        const r = await call(t, '/api/notifications.php', { session: token });
        expect(r.status).toBe(200);
        expect(r.json.notifications.map((n: { type: string }) => n.type)).toContain('welcome');
        expectError(await call(t, '/api/notifications.php'), 403, 'authentication_required', EN.authRequired);
      });
    });

    describe('affiliate signup', () => {
      it('is closed without a configured API key', async () => {
        const before = await snapshot(t);
        for (const headers of [{}, { 'x-api-key': 'k' }, { 'x-api-key': '' }] as Record<string, string>[]) {
          const r = await call(t, '/api/affiliate/signup.php', { body: { email: uniqueEmail('aff') }, headers });
          expect(r.status).toBe(403);
          expect(r.json.error).toBe('forbidden');
        }
        expect(await snapshot(t)).toEqual(before);
      });

      it('creates an account with the right key and lets the member complete it once', async () => {
        const a = await createTestApp(dialect, { AFFILIATE_API_KEY: 'k' });
        try {
          const email = uniqueEmail('affiliate');
          const before = await snapshot(a);
          for (const headers of [{}, { 'x-api-key': 'wrong' }, { 'x-api-key': 'K' }] as Record<string, string>[]) {
            const r = await call(a, '/api/affiliate/signup.php', { body: { email }, headers });
            expect(r.status).toBe(403);
            expect(r.json.error).toBe('forbidden');
          }
          expect(await snapshot(a)).toEqual(before);

          const created = await call(a, '/api/affiliate/signup.php', { body: { email, tracking: { network: 'partner' } }, headers: { 'x-api-key': 'k' } });
          expect(created.status).toBe(201);
          expect(created.json.url).toMatch(/\/complete-signup\?token=[A-Za-z0-9_-]+&api_signup_complete=1$/);
          const token = new URL(created.json.url).searchParams.get('token') as string;
          expect(created.session).toBeUndefined();

          const done = await call(a, '/api/complete-signup.php', { body: { token, name: 'Affie', password: PASSWORD, date_of_birth: DOB } });
          expect([200, 201], done.text).toContain(done.status);
          expect(done.json.user).toMatchObject({ email, status: 'not_confirmed', profile: { name: 'Affie', status: 'disabled' } });
          expect((await whoami(a, done.session as string))?.email).toBe(email);
          const mails = await mailsTo(a, email);
          expect(mails).toHaveLength(1);
          expect(mails[0].text).toMatch(LINKS.activation);

          const reuse = await call(a, '/api/complete-signup.php', { body: { token, name: 'Other', password: NEW_PASSWORD, date_of_birth: DOB } });
          expectError(reuse, 410, 'link_invalid', EN.linkInvalid);
          expect(reuse.session).toBeUndefined();
          expect((await login(a, email, PASSWORD)).status).toBe(200);
          expect(await countRows(a, 'profiles')).toBe(before.profiles + 1);
        } finally {
          await a.close();
        }
      });
    });
  });
}
