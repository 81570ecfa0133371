import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABUSE_LIMITS, FREE_CONVERSATIONS, FREE_LIKES_PER_DAY, FREE_PHOTOS, SWIPES_PER_DAY_FREE } from '../../src/shared/constants';
import { RESETS_PER_DAY } from '../../src/server/accounts/accounts.service';
import { ACCOUNT_FAILURES, IP_FAILURES } from '../../src/server/accounts/login-limiter';
import { JSON_HEADERS, activeMember, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

const PARALLEL = 8;
const DAY = 86_400_000;

/** Active fictional profiles on the demo site to like, swipe, write to and report. */
async function targets(t: TestApp, n: number, gender: 'female' | 'male' = 'female') {
  const now = t.clock.now();
  const rows = await t.app.db.db.insertInto('profiles').values(Array.from({ length: n }, (_, i) => ({
    site_id: 'kindred', user_id: null, name: `Target${i}`, gender, sexuality: 'hetero' as const, birth_date: '1985-01-01', country: 'NL',
    region: null, city: null, hair_color: null, eye_color: null, body_type: null, relationship_status: null, tattoos: null, about: null,
    fictional: 1, invisible: 0, status: 'active' as const, last_active_at: now - i, created_at: now,
  }))).returning('id').execute();
  return rows.map((r) => r.id);
}
const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();
const count = async (t: TestApp, table: 'photos' | 'likes' | 'swipes' | 'conversations' | 'reports' | 'user_tokens', column: string, value: number) =>
  Number((await t.app.db.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(column as never, '=', value as never).executeTakeFirstOrThrow()).n);
const png = () => sharp({ create: { width: 48, height: 48, channels: 3, background: '#3a7' } }).png().toBuffer();

for (const dialect of DIALECTS) {
  describe(`counted limits hold under ${PARALLEL} parallel requests (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect); });
    afterAll(() => t.close());

    it(`stores ${FREE_PHOTOS} of ${PARALLEL} parallel uploads by a free member`, async () => {
      const m = await activeMember(t, 'Paula');
      const image = await png();
      const res = await Promise.all(Array.from({ length: PARALLEL }, () =>
        t.request('/api/photos.php', { method: 'POST', headers: { 'content-type': 'image/png', cookie: m.cookie }, body: new Uint8Array(image) })));
      expect(statuses(res)).toEqual([...Array(FREE_PHOTOS).fill(201), ...Array(PARALLEL - FREE_PHOTOS).fill(409)]);
      expect(await count(t, 'photos', 'profile_id', m.profileId)).toBe(FREE_PHOTOS);
    });

    it(`keeps ${FREE_LIKES_PER_DAY} likes a day for a free member`, async () => {
      const m = await activeMember(t, 'Lars', { gender: 'male' });
      const ids = await targets(t, PARALLEL);
      const res = await Promise.all(ids.map((id) => t.request('/api/like.php', post(m.cookie, { profile_id: id }))));
      expect(statuses(res)).toEqual([...Array(FREE_LIKES_PER_DAY).fill(200), ...Array(PARALLEL - FREE_LIKES_PER_DAY).fill(429)]);
      expect(await count(t, 'likes', 'liker_profile_id', m.profileId)).toBe(FREE_LIKES_PER_DAY);
    });

    it('keeps the daily swipe allowance', async () => {
      const m = await activeMember(t, 'Sven', { gender: 'male' });
      const ids = await targets(t, SWIPES_PER_DAY_FREE + PARALLEL);
      const day = Math.floor(t.clock.now() / DAY);
      const left = 3;
      await t.app.db.db.insertInto('swipes').values(ids.slice(0, SWIPES_PER_DAY_FREE - left).map((id) => ({
        swiper_profile_id: m.profileId, target_profile_id: id, day, decision: 'pass' as const, created_at: t.clock.now(),
      }))).execute();
      const fresh = ids.slice(SWIPES_PER_DAY_FREE);
      const res = await Promise.all(fresh.map((id) => t.request('/api/swipe.php', post(m.cookie, { profile_id: id, decision: 'pass' }))));
      expect(statuses(res)).toEqual([...Array(left).fill(200), ...Array(PARALLEL - left).fill(429)]);
      expect(await count(t, 'swipes', 'swiper_profile_id', m.profileId)).toBe(SWIPES_PER_DAY_FREE);
    });

    it(`lets a free member start ${FREE_CONVERSATIONS} conversations, not more`, async () => {
      const m = await activeMember(t, 'Carl', { gender: 'male', credits: 1000 });
      const ids = await targets(t, PARALLEL);
      const res = await Promise.all(ids.map((id) =>
        t.request('/api/messages.php', post(m.cookie, { kind: 'text', client_id: randomUUID(), text: 'Hello', profile_id: id }))));
      expect(statuses(res)).toEqual([...Array(FREE_CONVERSATIONS).fill(201), ...Array(PARALLEL - FREE_CONVERSATIONS).fill(403)]);
      expect(await count(t, 'conversations', 'starter_profile_id', m.profileId)).toBe(FREE_CONVERSATIONS);
    });

    it('takes one report per member and profile', async () => {
      const m = await activeMember(t, 'Rita');
      const [id] = await targets(t, 1, 'male');
      const res = await Promise.all(Array.from({ length: PARALLEL }, () => t.request('/api/report.php', post(m.cookie, { profile_id: id, reason: 'spam' }))));
      expect(statuses(res)).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
      const refused = await Promise.all(res.filter((r) => r.status === 409).map((r) => r.json()));
      expect(refused[0]).toMatchObject({ error: 'already_reported', message: 'You have already reported this profile. Our team will look into it.' });
      expect(await count(t, 'reports', 'reporter_profile_id', m.profileId)).toBe(1);
    });

    it(`mails ${RESETS_PER_DAY} reset links a day`, async () => {
      const m = await activeMember(t, 'Rosa');
      const res = await Promise.all(Array.from({ length: PARALLEL }, () =>
        t.request('/api/reset-password.php', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ email: 'rosa@example.com' }) })));
      expect(statuses(res)).toEqual([...Array(RESETS_PER_DAY).fill(200), ...Array(PARALLEL - RESETS_PER_DAY).fill(429)]);
      const tokens = await t.app.db.db.selectFrom('user_tokens').select('token_hash').where('user_id', '=', m.userId).where('kind', '=', 'reset').execute();
      expect(tokens).toHaveLength(RESETS_PER_DAY);
    });
  });

  describe(`abuse limits answer a translated 429 with Retry-After (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect); });
    afterAll(() => t.close());

    const expect429 = async (res: Response, message: RegExp) => {
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = await res.json();
      expect(body.message).toMatch(message);
      return body;
    };
    const signupFrom = (ip: string, name: string, lang = 'en') => t.request('/api/signup.php', {
      method: 'POST', headers: { ...JSON_HEADERS, cookie: `lang=${lang}`, 'x-test-ip': ip },
      body: JSON.stringify({ email: `${name}@example.com`, name, password: 'correct horse battery', date_of_birth: '1990-05-01', gender: 'female' }),
    });

    it(`allows ${ABUSE_LIMITS.signup_ip.points} signups per IP a day, then refuses (other addresses still sign up)`, async () => {
      for (let i = 0; i < ABUSE_LIMITS.signup_ip.points; i++) expect((await signupFrom('203.0.113.7', `bulk${i}`)).status).toBe(200);
      const users = async () => Number((await t.app.db.db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const before = await users();
      await expect429(await signupFrom('203.0.113.7', 'bulkmore'), /^Too many accounts have been created from your network\. Please try again in \d+ min\.$/);
      const german = await signupFrom('203.0.113.7', 'bulkde', 'de');
      expect(german.status).toBe(429);
      expect((await german.json()).message).toMatch(/^Von deinem Netzwerk aus wurden zu viele Konten erstellt/);
      expect(await users()).toBe(before);
      expect((await signupFrom('198.51.100.2', 'elsewhere')).status).toBe(200);
    });

    it('limits reset and activation mails per address and per IP', async () => {
      const m = await activeMember(t, 'Mona');
      await t.app.db.db.updateTable('users').set({ status: 'not_confirmed' }).where('id', '=', m.userId).execute();
      const mails = async () => (await t.app.db.db.selectFrom('mails').select('id').where('to_address', '=', 'mona@example.com').execute()).length;
      const resend = () => t.request('/api/resend-activation.php', { method: 'POST', headers: { ...JSON_HEADERS, cookie: m.cookie, 'x-test-ip': '192.0.2.10' } });
      for (let i = 0; i < ABUSE_LIMITS.mail_address.points; i++) expect((await resend()).status).toBe(200);
      const sent = await mails();
      await expect429(await resend(), /^Too many e-mails have been sent to this address\./);
      expect(await mails()).toBe(sent);

      // Per IP: many addresses from one network (unknown addresses count too, so the form cannot test addresses).
      const reset = (email: string) => t.request('/api/reset-password.php', { method: 'POST', headers: { ...JSON_HEADERS, 'x-test-ip': '192.0.2.99' }, body: JSON.stringify({ email }) });
      for (let i = 0; i < ABUSE_LIMITS.mail_ip.points; i++) expect((await reset(`nobody${i}@example.com`)).status).toBe(404);
      await expect429(await reset('mona@example.com'), /^Too many e-mails have been requested from your network\./);
    });

    it(`takes ${ABUSE_LIMITS.report_day.points} reports a day from one member`, async () => {
      const m = await activeMember(t, 'Rhea');
      const ids = await targets(t, ABUSE_LIMITS.report_day.points + 1, 'male');
      for (const id of ids.slice(0, -1)) expect((await t.request('/api/report.php', post(m.cookie, { profile_id: id, reason: 'spam' }))).status).toBe(201);
      await expect429(await t.request('/api/report.php', post(m.cookie, { profile_id: ids.at(-1), reason: 'spam' })), /^You have sent the maximum number of reports for today\./);
      expect(await count(t, 'reports', 'reporter_profile_id', m.profileId)).toBe(ABUSE_LIMITS.report_day.points);
    });

    it(`takes ${ABUSE_LIMITS.message_minute.points} messages a minute from one member; a retried client_id is not counted`, async () => {
      const m = await activeMember(t, 'Max', { gender: 'male', paid: true, credits: 10_000 });
      const [id] = await targets(t, 1);
      const clientIds = Array.from({ length: ABUSE_LIMITS.message_minute.points }, () => randomUUID());
      for (const client_id of clientIds) expect((await t.request('/api/messages.php', post(m.cookie, { kind: 'text', client_id, text: 'hi', profile_id: id }))).status).toBe(201);
      expect((await t.request('/api/messages.php', post(m.cookie, { kind: 'text', client_id: clientIds[0], text: 'hi', profile_id: id }))).status).toBe(201);
      const body = await expect429(
        await t.request('/api/messages.php', post(m.cookie, { kind: 'text', client_id: randomUUID(), text: 'hi', profile_id: id })),
        /^You are sending messages too quickly\. Please wait \d+ seconds and try again\.$/,
      );
      expect(body.error).toBe('rate_limited');
      expect(await count(t, 'messages' as never, 'sender_profile_id', m.profileId)).toBe(ABUSE_LIMITS.message_minute.points);
    });

    it(`takes ${ABUSE_LIMITS.upload_hour.points} uploads an hour from one member`, async () => {
      const m = await activeMember(t, 'Ulla', { paid: true });
      // Rejected photos do not count against the 25 photos, so only the hourly limit is left to bite.
      const image = await png();
      const upload = () => t.request('/api/photos.php', { method: 'POST', headers: { 'content-type': 'image/png', cookie: m.cookie }, body: new Uint8Array(image) });
      for (let i = 0; i < ABUSE_LIMITS.upload_hour.points; i++) {
        expect((await upload()).status).toBe(201);
        await t.app.db.db.updateTable('photos').set({ status: 'rejected' }).where('profile_id', '=', m.profileId).execute();
      }
      await expect429(await upload(), /^You have uploaded too many images in the last hour\./);
    });

    it('says whether the account or the address is blocked after failed logins', async () => {
      const login = (email: string, ip: string) => t.request('/api/user.php', {
        method: 'POST', headers: { ...JSON_HEADERS, 'x-test-ip': ip }, body: JSON.stringify({ email, password: 'wrong password here' }),
      });
      // One account tried from many addresses: the account is blocked.
      for (let i = 1; i < ACCOUNT_FAILURES; i++) expect((await login('victim@example.com', `198.51.100.${i}`)).status).toBe(401);
      const account = await expect429(await login('victim@example.com', '198.51.100.200'), /^Too many incorrect attempts, account blocked for \d+ min\.$/);
      expect(account.error).toBe('blocked');
      // Many accounts tried from one address: the address is blocked, with its own text.
      for (let i = 1; i < IP_FAILURES; i++) expect((await login(`spray${i}@example.com`, '198.51.100.250')).status).toBe(401);
      const address = await expect429(await login('spray-last@example.com', '198.51.100.250'), /^Too many failed logins from your network, your address is blocked for \d+ min\.$/);
      expect(address.error).toBe('blocked');
      expect((await login('someone-else@example.com', '198.51.100.251')).status).toBe(401);
    });
  });
}
