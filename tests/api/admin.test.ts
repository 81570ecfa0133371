import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeMember, as, post } from '../helpers/members';
import { completeLocalCheckout, freePort, serveApi } from '../helpers/payments';
import { readEvents } from '../helpers/sse';
import { staffSession, totpCode } from '../helpers/staff';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';
import { ProviderError } from '../../src/server/payments/provider';

type Member = Awaited<ReturnType<typeof activeMember>>;
type Staff = Awaited<ReturnType<typeof staffSession>>;
const json = async <T = Record<string, unknown>>(res: Response | Promise<Response>) => (await res).json() as Promise<T>;

for (const dialect of DIALECTS) {
  describe(`operator console (${dialect})`, () => {
    let t: TestApp;
    let server: Awaited<ReturnType<typeof serveApi>>;
    let admin: Staff;
    let moderator: Staff;
    let operator: Staff;
    let finance: Staff;
    let n = 0;
    const req = (path: string, init: RequestInit & { host?: string } = {}) => t.request(path, { host: server.host, ...init });
    const member = (extra: Parameters<typeof activeMember>[2] = {}) => activeMember(t, `Cons${++n}x${dialect}`, extra);
    const act = (s: { cookie: string }, body: Record<string, unknown>) => req('/api/admin/member-action.php', post(s.cookie, body));
    const auditRows = () => t.app.db.db.selectFrom('staff_audit_log').selectAll().orderBy('id').execute();
    const credits = async (m: Member) => (await t.app.db.db.selectFrom('users').select('credits').where('id', '=', m.userId).executeTakeFirstOrThrow()).credits;

    beforeAll(async () => {
      const port = await freePort();
      t = await createTestApp(dialect, { SITE_ORIGINS: `kindred=http://127.0.0.1:${port}` });
      server = await serveApi(t, port);
      admin = await staffSession(t, `Admin${dialect}`, 'admin', server.host);
      t.clock.advance(60_000);
      moderator = await staffSession(t, `Moder${dialect}`, 'moderator', server.host);
      operator = await staffSession(t, `Opera${dialect}`, 'operator', server.host);
      finance = await staffSession(t, `Finan${dialect}`, 'finance', server.host);
    });
    afterAll(async () => {
      await server.close();
      await t.app.payments.close();
      await t.close();
    });

    describe('two-factor login', () => {
      it('members are no staff; staff need the second factor on each session before anything else', async () => {
        const m = await member();
        expect((await req('/api/admin/me.php', as(m.cookie))).status).toBe(403);
        expect((await req('/api/admin/members.php?q=x', as(m.cookie))).status).toBe(403);
        // The admin logs in again: a new session that has not passed the second factor.
        const login = await req('/api/user.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' }, body: JSON.stringify({ email: admin.email, password: 'correct horse battery' }) });
        expect(login.status).toBe(200);
        const cookie = `${login.headers.get('set-cookie')!.split(';')[0]}; lang=en`;
        const me = await json<{ staff: { verified: boolean; enrolled: boolean; role: string } }>(req('/api/admin/me.php', as(cookie)));
        expect(me.staff).toMatchObject({ verified: false, enrolled: true, role: 'admin' });
        const denied = await req('/api/admin/members.php?q=x', as(cookie));
        expect(denied.status).toBe(403);
        expect(await json(denied)).toMatchObject({ error: 'staff_2fa_required', message: 'Enter your two-factor code first.' });
        // Enrolment happens once.
        expect((await req('/api/admin/totp-enrol.php', post(cookie, {}))).status).toBe(409);
        // Wrong and malformed codes are refused with a translated message.
        const wrong = await req('/api/admin/verify.php', post(cookie, { code: totpCode(t, admin.secret, 5) }));
        expect(wrong.status).toBe(400);
        expect((await json(wrong)).message).toBe('This code is not valid.');
        const malformed = await req('/api/admin/verify.php', post(`${cookie.replace('lang=en', 'lang=de')}`, { code: '12ab' }));
        expect(malformed.status).toBe(400);
        expect((await json(malformed)).message).toBe('Der Code besteht aus 6 Ziffern.');
        // A code already accepted for the admin's first session is refused (no replays) …
        t.clock.advance(30_000);
        const fresh = totpCode(t, admin.secret);
        expect((await req('/api/admin/verify.php', post(cookie, { code: fresh }))).status).toBe(200);
        const again = await req('/api/user.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' }, body: JSON.stringify({ email: admin.email, password: 'correct horse battery' }) });
        const cookie2 = `${again.headers.get('set-cookie')!.split(';')[0]}; lang=en`;
        expect((await req('/api/admin/verify.php', post(cookie2, { code: fresh }))).status).toBe(400);
        // … and a recovery code works exactly once.
        expect((await req('/api/admin/verify.php', post(cookie2, { recovery_code: admin.recoveryCodes[0] }))).status).toBe(200);
        expect((await req('/api/admin/members.php?q=x', as(cookie2))).status).toBe(200);
        expect((await req('/api/admin/verify.php', post(cookie2, { recovery_code: admin.recoveryCodes[0] }))).status).toBe(400);
        const stored = await t.app.db.db.selectFrom('staff_recovery_codes').select('code_hash').execute();
        expect(stored.map((r) => r.code_hash)).not.toContain(admin.recoveryCodes[0]);
        const actions = (await auditRows()).map((r) => r.action);
        expect(actions).toContain('totp_enrolled');
        expect(actions).toContain('login_totp');
        expect(actions).toContain('login_recovery_code');
      });
    });

    describe('roles', () => {
      it('each role reaches only its own screens and actions', async () => {
        const m = await member();
        const get = (s: Staff, path: string) => req(path, as(s.cookie)).then((r) => r.status);
        const stats = '/api/admin/stats.php?metric=signups&from=2026-11-01&to=2026-11-22';
        expect(await get(moderator, stats)).toBe(403);
        expect(await get(moderator, '/api/admin/payments.php')).toBe(403);
        expect(await get(moderator, '/api/admin/discounts.php')).toBe(403);
        expect(await get(moderator, '/api/admin/audit.php')).toBe(403);
        expect(await get(moderator, '/api/admin/inbox.php')).toBe(403);
        expect(await get(moderator, `/api/admin/member.php?id=${m.userId}`)).toBe(200);
        expect(await get(operator, `/api/admin/member.php?id=${m.userId}`)).toBe(403);
        expect(await get(operator, '/api/admin/members.php?q=cons')).toBe(403);
        expect(await get(operator, '/api/admin/payments.php')).toBe(403);
        expect(await get(operator, '/api/admin/inbox.php')).toBe(200);
        expect(await get(finance, stats)).toBe(200);
        expect(await get(finance, '/api/admin/payments.php')).toBe(200);
        expect(await get(finance, '/api/admin/inbox.php')).toBe(403);
        // A moderator sees no money of a member; finance does.
        const seenByModerator = await json<{ ledger: unknown; payments: unknown }>(req(`/api/admin/member.php?id=${m.userId}`, as(moderator.cookie)));
        expect(seenByModerator.ledger).toBeNull();
        expect(seenByModerator.payments).toBeNull();
        const seenByFinance = await json<{ ledger: unknown[] }>(req(`/api/admin/member.php?id=${m.userId}`, as(finance.cookie)));
        expect(Array.isArray(seenByFinance.ledger)).toBe(true);
        // Actions follow the role.
        const before = await auditRows();
        expect((await act(moderator, { action: 'grant_credits', user_id: m.userId, amount: 10, reason: 'goodwill' })).status).toBe(403);
        expect((await act(finance, { action: 'ban', user_id: m.userId, reason: 'spam', confirmed: true })).status).toBe(403);
        expect((await act(moderator, { action: 'delete', user_id: m.userId, reason: 'spam', confirm_name: m.name })).status).toBe(403);
        expect((await act(operator, { action: 'end_sessions', user_id: m.userId, reason: 'spam' })).status).toBe(403);
        expect((await act(moderator, { action: 'ban', user_id: admin.userId, reason: 'coup', confirmed: true })).status).toBe(403);
        expect(await auditRows()).toEqual(before);
        expect(await credits(m)).toBe(0);
      });
    });

    describe('members', () => {
      const find = async (q: string) => (await json<{ members: { id: number }[] }>(req(`/api/admin/members.php?q=${encodeURIComponent(q)}`, as(admin.cookie)))).members.map((r) => r.id);
      it('finds a member by id, e-mail or name', async () => {
        const m = await member();
        expect(await find(String(m.userId))).toContain(m.userId);
        expect(await find(`cons${n}x${dialect}@example`)).toEqual([m.userId]);
        expect(await find(m.name.slice(0, 6).toUpperCase())).toContain(m.userId);
        expect(await find('%')).toEqual([]);
      });

      it("with no query lists the site's newest signups first, not another site's members nor erased accounts", async () => {
        const older = await member();
        const elsewhere = await member();
        const erased = await member();
        const newest = await member();
        const db = t.app.db.db;
        await db.updateTable('users').set({ site_id: 'maennerhafen' }).where('id', '=', elsewhere.userId).execute();
        await db.updateTable('users').set({ erased_at: t.clock.now() }).where('id', '=', erased.userId).execute();
        const listed = await find('');
        expect(listed.slice(0, 2)).toEqual([newest.userId, older.userId]);
        expect(listed).not.toContain(elsewhere.userId);
        expect(listed).not.toContain(erased.userId);
        expect(await find(String(erased.userId))).toEqual([]);
      });

      it('grants and takes credits with a ledger row and an audit row (who, what, before/after)', async () => {
        const m = await member({ credits: 5 });
        const res = await act(finance, { action: 'grant_credits', user_id: m.userId, amount: 20, reason: 'Apology for downtime' });
        expect(res.status).toBe(200);
        expect(await credits(m)).toBe(25);
        const ledger = await t.app.db.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', m.userId).where('reason', '=', 'admin').execute();
        expect(ledger).toMatchObject([{ delta: 20, balance_after: 25 }]);
        const row = (await auditRows()).at(-1)!;
        expect(row).toMatchObject({ action: 'grant_credits', staff_user_id: finance.userId, staff_email: finance.email, staff_role: 'finance', target_id: m.userId, reason: 'Apology for downtime' });
        expect(JSON.parse(row.before!)).toEqual({ credits: 5 });
        expect(JSON.parse(row.after!)).toEqual({ credits: 25 });
        expect((await act(finance, { action: 'take_credits', user_id: m.userId, amount: 10, reason: 'Correction' })).status).toBe(200);
        expect(await credits(m)).toBe(15);
      });

      it("a grant reaches the member's open tabs at once (a credits event, as after a payment)", async () => {
        const m = await member({ credits: 0 });
        const tab = new AbortController();
        const reading = readEvents(await t.request('/api/events.php', as(m.cookie, { signal: tab.signal })), 1, tab, ['credits']);
        await new Promise((r) => setTimeout(r, 50));
        expect((await act(finance, { action: 'grant_credits', user_id: m.userId, amount: 30, reason: 'Welcome gift' })).status).toBe(200);
        const [event] = await reading;
        expect(event.data).toEqual({ type: 'credits', credits: 30 });
      });

      it('refuses bad input with a translated error and changes nothing', async () => {
        const m = await member({ credits: 5 });
        const before = await auditRows();
        const bad: [Record<string, unknown>, number, string][] = [
          [{ action: 'grant_credits', user_id: m.userId, amount: 10 }, 400, 'Give a reason (at least 3 characters).'],
          [{ action: 'grant_credits', user_id: m.userId, amount: 10, reason: '  ' }, 400, 'Give a reason (at least 3 characters).'],
          [{ action: 'grant_credits', user_id: m.userId, amount: 0, reason: 'because' }, 400, 'Enter a whole number of credits between 1 and 100,000.'],
          [{ action: 'grant_credits', user_id: m.userId, amount: 2.5, reason: 'because' }, 400, 'Enter a whole number of credits between 1 and 100,000.'],
          [{ action: 'grant_credits', user_id: m.userId, amount: '10', reason: 'because' }, 400, 'Enter a whole number of credits between 1 and 100,000.'],
          [{ action: 'take_credits', user_id: m.userId, amount: 6, reason: 'because' }, 400, 'The balance cannot go below zero (it is 5).'],
          [{ action: 'suspend', user_id: m.userId, days: 0, reason: 'because' }, 400, 'Enter a number of days between 1 and 365.'],
          [{ action: 'refund', user_id: m.userId, payment_id: 999999, reason: 'because', confirmed: true }, 404, 'Payment not found.'],
          [{ action: 'grant_credits', user_id: 999999, amount: 1, reason: 'because' }, 404, 'Member not found.'],
          [{ action: 'explode', user_id: m.userId, reason: 'because' }, 400, 'Some of the data you sent is not valid.'],
          [{ action: 'grant_credits', user_id: admin.userId, amount: 1, reason: 'because' }, 400, 'You cannot do this to your own account.'],
        ];
        for (const [body, status, message] of bad) {
          const res = await act(admin, body);
          expect(res.status, JSON.stringify(body)).toBe(status);
          expect((await json(res)).message, JSON.stringify(body)).toBe(message);
        }
        expect(await credits(m)).toBe(5);
        expect(await auditRows()).toEqual(before);
        const de = await req('/api/admin/member-action.php', post(admin.cookie.replace('lang=en', 'lang=de'), { action: 'grant_credits', user_id: m.userId, amount: 1 }));
        expect((await json(de)).message).toBe('Gib einen Grund an (mindestens 3 Zeichen).');
      });

      it('suspends, bans and lifts; ends sessions; resets login limits; blocks direct debit; deletes', async () => {
        const m = await member();
        const loginAs = () => req('/api/user.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' }, body: JSON.stringify({ email: `${m.name.toLowerCase()}@example.com`, password: 'correct horse battery' }) });
        expect((await act(moderator, { action: 'suspend', user_id: m.userId, days: 3, reason: 'Rude messages' })).status).toBe(200);
        expect((await req('/api/user.php', as(m.cookie)).then((r) => r.json())).user).toBeNull();
        const suspended = await loginAs();
        expect(suspended.status).toBe(403);
        expect((await json(suspended)).message).toMatch(/suspended until 2026-11-2\d/);
        // A ban needs its confirmation: without it, a translated 400 and nothing changes.
        const unconfirmed = await act(moderator, { action: 'ban', user_id: m.userId, reason: 'Scam' });
        expect(unconfirmed.status).toBe(400);
        expect((await json(unconfirmed)).message).toBe('Confirm this action first.');
        const unconfirmedNl = await req('/api/admin/member-action.php', post(moderator.cookie.replace('lang=en', 'lang=nl'), { action: 'ban', user_id: m.userId, reason: 'Scam', confirmed: false }));
        expect((await json(unconfirmedNl)).message).toBe('Bevestig deze actie eerst.');
        expect((await t.app.db.db.selectFrom('users').select('banned_at').where('id', '=', m.userId).executeTakeFirstOrThrow()).banned_at).toBeNull();
        expect((await act(moderator, { action: 'ban', user_id: m.userId, reason: 'Scam', confirmed: true })).status).toBe(200);
        expect((await act(moderator, { action: 'ban', user_id: m.userId, reason: 'Scam', confirmed: true })).status).toBe(409);
        const banned = await loginAs();
        expect(banned.status).toBe(403);
        expect((await json(banned)).message).toContain('/ban');
        expect((await act(moderator, { action: 'lift_ban', user_id: m.userId, reason: 'Appeal granted' })).status).toBe(200);
        const back = await loginAs();
        expect(back.status).toBe(200);
        expect((await act(moderator, { action: 'end_sessions', user_id: m.userId, reason: 'Account shared' })).status).toBe(200);
        expect(await t.app.db.db.selectFrom('sessions').select('user_id').where('user_id', '=', m.userId).execute()).toEqual([]);
        // Five wrong passwords block the account; staff lift the block.
        for (let i = 0; i < 5; i++) await req('/api/user.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' }, body: JSON.stringify({ email: `${m.name.toLowerCase()}@example.com`, password: 'wrong wrong wrong' }) });
        expect((await loginAs()).status).toBe(429);
        expect((await act(moderator, { action: 'reset_login_limits', user_id: m.userId, reason: 'Forgot password' })).status).toBe(200);
        expect((await loginAs()).status).toBe(200);
        expect((await act(finance, { action: 'block_direct_debit', user_id: m.userId, reason: 'Fraud suspicion' })).status).toBe(200);
        expect(await t.app.db.db.selectFrom('dd_blocks').select('reason').where('user_id', '=', m.userId).executeTakeFirst()).toEqual({ reason: 'staff' });
        // Deleting needs the member's name typed: missing or wrong, a translated 400 and nothing changes.
        const noName = await act(admin, { action: 'delete', user_id: m.userId, reason: 'GDPR request' });
        expect(noName.status).toBe(400);
        expect((await json(noName)).message).toBe("Type the member's name to confirm.");
        const wrongName = await act(admin, { action: 'delete', user_id: m.userId, reason: 'GDPR request', confirm_name: `${m.name}x` });
        expect(wrongName.status).toBe(400);
        expect((await json(wrongName)).message).toBe("Type the member's name to confirm.");
        expect((await t.app.db.db.selectFrom('users').select('deleted_at').where('id', '=', m.userId).executeTakeFirstOrThrow()).deleted_at).toBeNull();
        expect((await act(admin, { action: 'delete', user_id: m.userId, reason: 'GDPR request', confirm_name: ` ${m.name.toUpperCase()} ` })).status).toBe(200);
        expect((await loginAs()).status).toBe(403);
        const actions = (await auditRows()).filter((r) => r.target_id === m.userId).map((r) => r.action);
        expect(actions).toEqual(['suspend', 'ban', 'lift_ban', 'end_sessions', 'reset_login_limits', 'block_direct_debit', 'delete']);
      });

      it('refunds a payment through the provider and takes the credits back', async () => {
        const m = await member();
        await t.app.db.db.updateTable('users').set({ created_at: t.clock.now() - 30 * 86_400_000 }).where('id', '=', m.userId).execute();
        const created = await json<{ payment_id: number; checkout_url: string }>(req('/api/payments.php', post(m.cookie, { bundle: 1, method: 'creditcard', country: 'NL', consent: true })));
        await completeLocalCheckout(created.checkout_url, 'paid');
        expect(await credits(m)).toBe(100);
        expect((await act(finance, { action: 'refund', user_id: m.userId, payment_id: created.payment_id, confirmed: true, amount: 999999, reason: 'too much' })).status).toBe(400);
        expect((await act(moderator, { action: 'refund', user_id: m.userId, payment_id: created.payment_id, confirmed: true, reason: 'not theirs' })).status).toBe(403);
        const done = await act(finance, { action: 'refund', user_id: m.userId, payment_id: created.payment_id, confirmed: true, reason: 'Customer complaint' });
        expect(done.status).toBe(200);
        const payment = await t.app.db.db.selectFrom('payments').selectAll().where('id', '=', created.payment_id).executeTakeFirstOrThrow();
        expect(payment).toMatchObject({ status: 'refunded', refunded_amount: 3495, credits_taken_back: 100 });
        expect(await credits(m)).toBe(0);
        expect((await auditRows()).at(-1)).toMatchObject({ action: 'refund', target_type: 'payment', target_id: created.payment_id, reason: 'Customer complaint' });
        expect((await act(finance, { action: 'refund', user_id: m.userId, payment_id: created.payment_id, confirmed: true, reason: 'again' })).status).toBe(409);
        const listed = await json<{ payments: { id: number }[] }>(req(`/api/admin/payments.php?status=refunded&user_id=${m.userId}`, as(finance.cookie)));
        expect(listed.payments.map((p) => p.id)).toEqual([created.payment_id]);
        expect((await req('/api/admin/payments.php?status=stolen', as(finance.cookie))).status).toBe(400);
      });

      it('a refund the provider refuses answers a translated 409 and is audited as refused; parallel refunds refund once', async () => {
        const m = await member();
        await t.app.db.db.updateTable('users').set({ created_at: t.clock.now() - 30 * 86_400_000 }).where('id', '=', m.userId).execute();
        const created = await json<{ payment_id: number; checkout_url: string }>(req('/api/payments.php', post(m.cookie, { bundle: 1, method: 'creditcard', country: 'NL', consent: true })));
        await completeLocalCheckout(created.checkout_url, 'paid');
        const provider = (await t.app.payments.provider())!;
        const original = provider.refund;
        (provider as { refund: typeof original }).refund = async () => { throw new ProviderError('The payment cannot be refunded', 422); };
        try {
          const refused = await act(finance, { action: 'refund', user_id: m.userId, payment_id: created.payment_id, confirmed: true, reason: 'Complaint' });
          expect(refused.status).toBe(409);
          expect((await json<{ message: string }>(refused)).message).toBe('The payment provider refused this refund. Nothing was refunded.');
        } finally {
          (provider as { refund: typeof original }).refund = original;
        }
        expect((await auditRows()).at(-1)).toMatchObject({ action: 'refund_refused', target_type: 'payment', target_id: created.payment_id });
        const answers = await Promise.all(Array.from({ length: 10 }, () => act(finance, { action: 'refund', user_id: m.userId, payment_id: created.payment_id, confirmed: true, reason: 'Complaint' })));
        expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
        expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
        const payment = await t.app.db.db.selectFrom('payments').selectAll().where('id', '=', created.payment_id).executeTakeFirstOrThrow();
        expect(payment).toMatchObject({ status: 'refunded', refunded_amount: 3495, credits_taken_back: 100 });
        expect((await auditRows()).filter((r) => r.target_type === 'payment' && r.target_id === created.payment_id).map((r) => r.action)).toEqual(['refund_refused', 'refund']);
        // Out of the dashboard's today (its figures are checked below).
        const earlier = t.clock.now() - 3 * 86_400_000;
        await t.app.db.db.updateTable('payments').set({ created_at: earlier, paid_at: earlier, updated_at: earlier }).where('id', '=', created.payment_id).execute();
      });
    });

    describe('audit log', () => {
      it('cannot be changed or deleted, not even with direct SQL', async () => {
        const [first] = await auditRows();
        await expect(t.app.db.db.updateTable('staff_audit_log').set({ reason: 'forged' }).where('id', '=', first.id).execute()).rejects.toThrow(/append-only/);
        await expect(t.app.db.db.deleteFrom('staff_audit_log').where('id', '=', first.id).execute()).rejects.toThrow(/append-only/);
        const listed = await json<{ entries: { id: number; action: string }[] }>(req('/api/admin/audit.php', as(admin.cookie)));
        expect(listed.entries.length).toBeGreaterThan(5);
        expect(listed.entries[0].id).toBeGreaterThan(listed.entries[1].id);
        for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) expect((await req('/api/admin/audit.php', { ...post(admin.cookie, {}), method })).status).toBe(404);
      });
    });

    describe('fictional profiles and the operator inbox', () => {
      it('operators create fictional profiles, answer members as them in waiting order, and never see e-mail or payments', async () => {
        const bad = await req('/api/admin/fictional.php', post(operator.cookie, { name: 'X', gender: 'female', sexuality: 'hetero', birth_date: '2015-01-01', country: 'NL' }));
        expect(bad.status).toBe(400);
        expect((await json(bad)).message).toBe('The name needs 2 to 40 characters.');
        const young = await req('/api/admin/fictional.php', post(operator.cookie, { name: 'Xena', gender: 'female', sexuality: 'hetero', birth_date: '2015-01-01', country: 'NL' }));
        expect((await json(young)).message).toBe('Enter a date of birth of someone aged 18 or over.');
        const made = await json<{ profile: { id: number } }>(req('/api/admin/fictional.php', post(operator.cookie, { name: 'Fiona', gender: 'female', sexuality: 'hetero', birth_date: '1980-03-03', country: 'NL', city: 'Utrecht' })));
        const fiona = made.profile.id;
        expect(await t.app.db.db.selectFrom('profiles').select(['fictional', 'user_id']).where('id', '=', fiona).executeTakeFirstOrThrow()).toEqual({ fictional: 1, user_id: null });
        const edited = await req('/api/admin/fictional.php', post(operator.cookie, { id: fiona, name: 'Fiona B', gender: 'female', sexuality: 'bi', birth_date: '1980-03-03', country: 'NL' }));
        expect(edited.status).toBe(200);
        // The list shows each persona's main photo once it is approved, never one under inspection.
        const listed = async () => (await json<{ profiles: { id: number; thumb: string | null }[] }>(req('/api/admin/fictional.php', as(operator.cookie)))).profiles.find((p) => p.id === fiona);
        expect(await listed()).toMatchObject({ thumb: null });
        const photo = await t.app.db.db.insertInto('photos').values({ profile_id: fiona, filename: 'photos/f.webp', thumb_filename: 'photos/f-thumb.webp', status: 'under inspection', is_main: 1, created_at: t.clock.now() }).returning('id').executeTakeFirstOrThrow();
        expect(await listed()).toMatchObject({ thumb: null });
        await t.app.db.db.updateTable('photos').set({ status: 'active' }).where('id', '=', photo.id).execute();
        expect(await listed()).toMatchObject({ thumb: 'photos/f-thumb.webp' });
        // A real member's profile can never be edited this way.
        const early = await member({ paid: true, credits: 100 });
        expect((await req('/api/admin/fictional.php', post(operator.cookie, { id: early.profileId, name: 'Hijack', gender: 'female', sexuality: 'bi', birth_date: '1980-03-03', country: 'NL' }))).status).toBe(404);
        const late = await member({ paid: true, credits: 100 });
        const send = (m: Member, text: string) => req('/api/messages.php', post(m.cookie, { profile_id: fiona, client_id: `client-${m.userId}-${text.length}`, kind: 'text', text }));
        const first = await send(early, 'Hello Fiona');
        expect(first.status).toBe(201);
        t.clock.advance(60_000);
        expect((await send(late, 'Hi there')).status).toBe(201);
        t.clock.advance(60_000);
        expect((await send(early, 'Are you there?')).status).toBe(201);
        const queue = await json<{ queue: { conversation_id: number; member_name: string; waiting_since: number }[] }>(req('/api/admin/inbox.php', as(operator.cookie)));
        const mine = queue.queue.filter((q) => [early.name, late.name].includes(q.member_name));
        expect(mine.map((q) => q.member_name)).toEqual([early.name, late.name]);
        const conversation = mine[0].conversation_id;
        const view = await req(`/api/admin/inbox-conversation.php?id=${conversation}`, as(operator.cookie));
        const text = await view.text();
        expect(text).not.toContain('@example.com');
        // Credits left (how long the member can write on) but no payments or account.
        expect(text).not.toMatch(/payments|ledger|email/);
        expect(JSON.parse(text).messages.map((m: { body: string }) => m.body)).toEqual(['Hello Fiona', 'Are you there?']);
        expect((await req('/api/admin/inbox-reply.php', post(operator.cookie, { conversation_id: conversation, text: '   ', client_id: 'op-reply-empty' }))).status).toBe(400);
        expect((await req('/api/admin/inbox-claim.php', post(operator.cookie, { conversation_id: conversation }))).status).toBe(200);
        const reply = await req('/api/admin/inbox-reply.php', post(operator.cookie, { conversation_id: conversation, text: 'Yes, hi!', client_id: 'op-reply-1' }));
        expect(reply.status).toBe(200);
        const stored = await t.app.db.db.selectFrom('messages').select(['sender_profile_id', 'operator_user_id', 'credits']).where('body', '=', 'Yes, hi!').executeTakeFirstOrThrow();
        expect(stored).toEqual({ sender_profile_id: fiona, operator_user_id: operator.userId, credits: 0 });
        // The member sees it in the chat, from the fictional profile, marked fictional.
        const chat = await json<{ messages: { text: string }[]; profile: { fictional: boolean } }>(req(`/api/chat.php?conversation=${conversation}`, as(early.cookie)));
        expect(chat.messages.at(-1)!.text).toBe('Yes, hi!');
        expect(chat.profile.fictional).toBe(true);
        // Answered conversations leave the queue; the other member still waits.
        const after = await json<{ queue: { member_name: string }[] }>(req('/api/admin/inbox.php', as(operator.cookie)));
        expect(after.queue.map((q) => q.member_name)).not.toContain(early.name);
        expect(after.queue.map((q) => q.member_name)).toContain(late.name);
        // A member's conversation with a real member is not in the inbox.
        expect((await req(`/api/admin/inbox-conversation.php?id=999999`, as(operator.cookie))).status).toBe(404);
        expect((await auditRows()).map((r) => r.action)).toEqual(expect.arrayContaining(['fictional_create', 'fictional_update', 'inbox_answer']));
      });
    });

    describe('inbox claims', () => {
      it('one operator holds a conversation at a time; the claim runs out; no answer without it; the answer names the next conversation', async () => {
        const other = await staffSession(t, `Opertwo${dialect}`, 'operator', server.host);
        const made = await json<{ profile: { id: number } }>(req('/api/admin/fictional.php', post(operator.cookie, { name: 'Claire', gender: 'female', sexuality: 'hetero', birth_date: '1985-05-05', country: 'NL' })));
        const writerA = await member({ paid: true, credits: 50 });
        const writerB = await member({ paid: true, credits: 50 });
        for (const w of [writerA, writerB]) {
          expect((await req('/api/messages.php', post(w.cookie, { profile_id: made.profile.id, client_id: `claim-${w.userId}`, kind: 'text', text: 'Hi Claire' }))).status).toBe(201);
          t.clock.advance(1_000);
        }
        const queue = await json<{ queue: { conversation_id: number; member_name: string }[]; waiting: number; oldest_minutes: number }>(req('/api/admin/inbox.php', as(operator.cookie)));
        expect(queue.waiting).toBe(queue.queue.length);
        expect(queue.oldest_minutes).toBeGreaterThanOrEqual(1);
        const convA = queue.queue.find((q) => q.member_name === writerA.name)!.conversation_id;
        const convB = queue.queue.find((q) => q.member_name === writerB.name)!.conversation_id;
        const claim = (s: Staff, conversation_id: number, extra = {}) => req('/api/admin/inbox-claim.php', post(s.cookie, { conversation_id, ...extra }));
        const reply = (s: Staff, conversation_id: number, text: string, cookie = s.cookie) =>
          req('/api/admin/inbox-reply.php', post(cookie, { conversation_id, text, client_id: `op-${s.userId}-${conversation_id}-${text.length}` }));

        // Without a claim, an answer is refused with a translated error and nothing is stored.
        const unclaimed = await reply(operator, convA, 'Hello there');
        expect(unclaimed.status).toBe(409);
        expect((await json(unclaimed)).message).toBe('Open this conversation first: it is not reserved for you.');
        const unclaimedFr = await reply(operator, convA, 'Bonjour', operator.cookie.replace('lang=en', 'lang=fr'));
        expect((await json(unclaimedFr)).message).toBe("Ouvrez d'abord cette conversation : elle ne vous est pas réservée.");

        // Two operators claim at once: exactly one gets it; the other is told who holds it.
        const both = await Promise.all([claim(operator, convA), claim(other, convA)]);
        expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
        const [holder, loser] = both[0].status === 200 ? [operator, other] : [other, operator];
        const refused = await json<{ message: string; holder: string }>(both.find((r) => r.status === 409)!);
        expect(refused.message).toBe('Another operator is answering this conversation.');
        expect(refused.holder).toBe(holder.email);
        const stolen = await reply(loser, convA, 'Me first');
        expect(stolen.status).toBe(409);
        expect((await json(stolen)).message).toBe('Another operator is answering this conversation.');
        // The holder renews; the queue shows who holds it.
        expect((await claim(holder, convA)).status).toBe(200);
        const shown = await json<{ queue: { conversation_id: number; claimed_by: number | null }[] }>(req('/api/admin/inbox.php', as(loser.cookie)));
        expect(shown.queue.find((q) => q.conversation_id === convA)!.claimed_by).toBe(holder.userId);

        // The claim runs out after 5 minutes: then the other operator may take it over.
        t.clock.advance(4 * 60_000);
        expect((await claim(loser, convA)).status).toBe(409);
        t.clock.advance(60_000 + 1);
        expect((await claim(loser, convA)).status).toBe(200);
        const late = await reply(holder, convA, 'Too late');
        expect(late.status).toBe(409);
        expect(await t.app.db.db.selectFrom('messages').select('id').where('conversation_id', '=', convA).where('body', 'in', ['Me first', 'Too late', 'Hello there', 'Bonjour']).execute()).toEqual([]);

        // The answer gives the claim back and names the next waiting conversation nobody else holds.
        expect((await claim(holder, convB)).status).toBe(200);
        const sent = await reply(loser, convA, 'Hi, nice to meet you');
        expect(sent.status).toBe(200);
        const body = await json<{ next: number | null }>(sent);
        const remaining = await json<{ queue: { conversation_id: number; claimed_by: number | null }[] }>(req('/api/admin/inbox.php', as(loser.cookie)));
        expect(remaining.queue.map((q) => q.conversation_id)).not.toContain(convA);
        expect(body.next).toBe(remaining.queue.find((q) => q.claimed_by === null || q.claimed_by === loser.userId)?.conversation_id ?? null);
        // A conversation held by the other operator is never offered as next.
        expect(remaining.queue.map((q) => q.conversation_id)).toContain(convB);
        expect(body.next).not.toBe(convB);
        expect(await t.app.db.db.selectFrom('operator_conversations').select(['claimed_by']).where('conversation_id', '=', convA).executeTakeFirstOrThrow()).toEqual({ claimed_by: null });
        // Given back, it is free again.
        expect((await claim(holder, convB, { release: true })).status).toBe(200);
        expect((await claim(loser, convB)).status).toBe(200);

        // Notes are kept per conversation; the view shows the persona's earlier lines and the member's credits, never the e-mail.
        expect((await req('/api/admin/inbox-notes.php', post(holder.cookie, { conversation_id: convA, notes: 'Likes cycling; asked about Utrecht.' }))).status).toBe(200);
        expect((await req('/api/admin/inbox-notes.php', post(holder.cookie, { conversation_id: convA, notes: 'x'.repeat(4001) }))).status).toBe(400);
        const view = await json<{ notes: string; earlier_lines: string[]; member: { credits: number }; fictional: { name: string } }>(req(`/api/admin/inbox-conversation.php?id=${convB}`, as(holder.cookie)));
        expect(view.earlier_lines).toContain('Hi, nice to meet you');
        expect(view.member.credits).toBe(await credits(writerB));
        expect(JSON.stringify(view)).not.toContain('@example.com');
        const viewA = await json<{ notes: string }>(req(`/api/admin/inbox-conversation.php?id=${convA}`, as(loser.cookie)));
        expect(viewA.notes).toBe('Likes cycling; asked about Utrecht.');
      });
    });

    describe('discount codes', () => {
      it('creates, refuses bad codes, disables and counts uses', async () => {
        const create = (body: Record<string, unknown>) => req('/api/admin/discounts.php', post(finance.cookie, { reason: 'Black Friday', ...body }));
        expect((await create({ code: 'BF26', percentage: 20 })).status).toBe(201);
        const dupe = await create({ code: 'bf26', percentage: 20 });
        expect(dupe.status).toBe(409);
        expect((await json(dupe)).message).toBe('This code already exists.');
        expect((await json(await create({ code: 'X!', percentage: 20 }))).message).toBe('Codes are 3 to 32 letters, digits, - or _.');
        expect((await json(await create({ code: 'HUGE', percentage: 95 }))).message).toBe('Enter a percentage between 1 and 90.');
        expect((await json(await create({ code: 'PAST', percentage: 10, expires: '2020-01-01' }))).message).toBe('The end date must be in the future.');
        expect((await create({ code: 'WELCOME26', percentage: 15, welcome: true })).status).toBe(201);
        const list = await json<{ discounts: { id: number; code: string; kind: string; uses: number; status: string }[] }>(req('/api/admin/discounts.php', as(finance.cookie)));
        const bf = list.discounts.find((d) => d.code === 'BF26')!;
        expect(bf).toMatchObject({ kind: 'standard', uses: 0, status: 'active' });
        expect(list.discounts.find((d) => d.code === 'WELCOME26')).toMatchObject({ kind: 'welcome' });
        expect((await req('/api/admin/discounts.php', post(finance.cookie, { id: bf.id, status: 'inactive' }, 'PATCH'))).status).toBe(400);
        expect((await req('/api/admin/discounts.php', post(finance.cookie, { id: bf.id, status: 'inactive', reason: 'Campaign over' }, 'PATCH'))).status).toBe(200);
        const m = await member();
        const code = await req('/api/discount.php?code=BF26', as(m.cookie));
        expect(code.status).toBe(404);
      });
    });

    describe('dashboard', () => {
      it('answers each figure per day as JSON and CSV, and refuses bad ranges', async () => {
        const today = new Date(t.clock.now()).toISOString().slice(0, 10);
        const signups = await json<{ columns: string[]; rows: [string, number][] }>(req(`/api/admin/stats.php?metric=signups&from=2026-11-20&to=${today}`, as(finance.cookie)));
        expect(signups.columns).toEqual(['day', 'signups']);
        expect(signups.rows.at(-1)![0]).toBe(today);
        expect(signups.rows.at(-1)![1]).toBeGreaterThan(5);
        for (const metric of ['activations', 'active_members', 'messages', 'likes', 'matches', 'revenue', 'refunds', 'funnel']) {
          expect((await req(`/api/admin/stats.php?metric=${metric}&from=2026-11-20&to=${today}`, as(finance.cookie))).status, metric).toBe(200);
        }
        const revenue = await json<{ rows: string[][] }>(req(`/api/admin/stats.php?metric=revenue&from=${today}&to=${today}`, as(finance.cookie)));
        expect(revenue.rows).toContainEqual([today, 'creditcard', 'NL', 'EUR', 1, '34.95']);
        const refunds = await json<{ rows: unknown[][] }>(req(`/api/admin/stats.php?metric=refunds&from=${today}&to=${today}`, as(finance.cookie)));
        expect(refunds.rows).toContainEqual([today, 'EUR', 1, '34.95', '0.00']);
        const csv = await req(`/api/admin/stats.php?metric=signups&from=2026-11-21&to=${today}&format=csv`, as(finance.cookie));
        expect(csv.headers.get('content-type')).toContain('text/csv');
        expect(csv.headers.get('content-disposition')).toContain('kindred-signups-2026-11-21');
        expect((await csv.text()).split('\r\n')[0]).toBe('day,signups');
        const bad = await req('/api/admin/stats.php?metric=signups&from=2026-11-22&to=2026-11-01', as(finance.cookie));
        expect(bad.status).toBe(400);
        expect((await json(bad)).message).toBe('Choose a range of at most 366 days, from before to.');
        expect((await req('/api/admin/stats.php?metric=secrets&from=2026-11-01&to=2026-11-02', as(finance.cookie))).status).toBe(400);
        expect((await req('/api/admin/stats.php?metric=signups&from=yesterday&to=2026-11-02', as(finance.cookie))).status).toBe(400);
      });

      it('the tiles show the figures the database holds (compared with plain SQL)', async () => {
        // One member bought yesterday and again today (not a first purchase today); one bought first today, partly refunded.
        const day = 86_400_000;
        const todayStart = Math.floor(t.clock.now() / day) * day;
        const repeat = await member();
        const fresh = await member();
        const pay = async (m: Member) => {
          const created = await json<{ payment_id: number; checkout_url: string }>(req('/api/payments.php', post(m.cookie, { bundle: 1, method: 'creditcard', country: 'NL', consent: true })));
          await completeLocalCheckout(created.checkout_url, 'paid');
          return created.payment_id;
        };
        const older = await pay(repeat);
        await t.app.db.db.updateTable('payments').set({ paid_at: todayStart - day + 1000, created_at: todayStart - day + 1000 }).where('id', '=', older).execute();
        await pay(repeat);
        const partly = await pay(fresh);
        await t.app.db.db.updateTable('payments').set({ refunded_amount: 1000 }).where('id', '=', partly).execute();
        const { tiles } = await json<{ tiles: {
          today: { signups: { now: number; before: number }; activations: { now: number }; first_purchases: { now: number; before: number }; revenue: Record<string, { now: number; before: number }> };
          week: { signups: { now: number }; revenue: Record<string, { now: number }> };
          paying_members: number; inbox_waiting: number; photos_waiting: number; reports_open: number;
        } }>(req('/api/admin/dashboard.php', as(finance.cookie)));
        const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(t.app.db.db)).rows[0] as T;
        const n = async (query: ReturnType<typeof sql<{ n: number }>>) => Number((await one(query)).n);
        const weekStart = todayStart - 6 * day;
        expect(tiles.today.signups.now).toBe(await n(sql`select count(*) as n from users where site_id = 'kindred' and role = 'member' and created_at >= ${todayStart}`));
        expect(tiles.today.signups.before).toBe(await n(sql`select count(*) as n from users where site_id = 'kindred' and role = 'member' and created_at >= ${todayStart - day} and created_at < ${todayStart}`));
        expect(tiles.week.signups.now).toBe(await n(sql`select count(*) as n from users where site_id = 'kindred' and role = 'member' and created_at >= ${weekStart}`));
        expect(tiles.today.activations.now).toBe(await n(sql`select count(*) as n from users where site_id = 'kindred' and role = 'member' and confirmed_at >= ${todayStart}`));
        const firstToday = await n(sql`select count(*) as n from (select user_id, min(paid_at) as first from payments where site_id = 'kindred' and paid_at is not null group by user_id) f where f.first >= ${todayStart}`);
        expect(tiles.today.first_purchases.now).toBe(firstToday);
        expect(firstToday).toBeGreaterThanOrEqual(1);
        const net = await n(sql`select coalesce(sum(amount - refunded_amount - charged_back_amount), 0) as n from payments where site_id = 'kindred' and currency = 'EUR' and paid_at >= ${todayStart}`);
        expect(tiles.today.revenue.EUR.now).toBe(net);
        expect(tiles.today.revenue.EUR.before).toBe(await n(sql`select coalesce(sum(amount - refunded_amount - charged_back_amount), 0) as n from payments where site_id = 'kindred' and currency = 'EUR' and paid_at >= ${todayStart - day} and paid_at < ${todayStart}`));
        expect(tiles.today.revenue.EUR.before).toBeGreaterThan(0);
        expect(tiles.paying_members).toBe(await n(sql`select count(*) as n from users where site_id = 'kindred' and role = 'member' and paid_user = 1 and deleted_at is null`));
        expect(tiles.photos_waiting).toBe(await n(sql`select count(*) as n from photos join profiles on profiles.id = photos.profile_id where profiles.site_id = 'kindred' and photos.status = 'under inspection'`));
        expect(tiles.reports_open).toBe(await n(sql`select count(*) as n from reports join profiles on profiles.id = reports.profile_id where profiles.site_id = 'kindred' and reports.status = 'open'`));
        const queue = await json<{ waiting: number }>(req('/api/admin/inbox.php', as(admin.cookie)));
        expect(tiles.inbox_waiting).toBe(queue.waiting);
        // Operators and moderators have no dashboard.
        expect((await req('/api/admin/dashboard.php', as(operator.cookie))).status).toBe(403);
        expect((await req('/api/admin/dashboard.php', as(moderator.cookie))).status).toBe(403);
      });
    });
  });
}
