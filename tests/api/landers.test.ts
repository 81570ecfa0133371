import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewProfile } from '../../src/server/db/schema';
import { TRACKING_COOKIE } from '../../src/shared/tracking';
import { activeMember, as, JSON_HEADERS } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

const NOW = Date.parse('2026-11-22T12:00:00Z');

async function addProfile(t: TestApp, name: string, extra: Partial<NewProfile> = {}): Promise<number> {
  const row = await t.app.db.db.insertInto('profiles').values({
    site_id: 'kindred', user_id: null, name, gender: 'female', sexuality: 'hetero', birth_date: '1980-01-01', country: 'NL', region: 'utrecht',
    city: 'Utrecht', hair_color: null, eye_color: null, body_type: null, relationship_status: null, tattoos: null, about: null,
    fictional: 0, invisible: 0, status: 'active', last_active_at: NOW, created_at: NOW, ...extra,
  }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** The kd_track cookie a response set, as a Cookie header value. */
function trackingCookieOf(res: Response): string | null {
  const all = res.headers.getSetCookie?.() ?? [res.headers.get('set-cookie') ?? ''];
  const c = all.find((v) => v.startsWith(`${TRACKING_COOKIE}=`));
  return c ? c.split(';')[0] : null;
}

function funnel(t: TestApp, siteId: string) {
  return t.app.db.db.selectFrom('lander_funnel').selectAll().where('site_id', '=', siteId).orderBy('lander').orderBy('network').execute();
}

for (const dialect of DIALECTS) {
  describe(`lander teasers (${dialect})`, () => {
    let t: TestApp;
    const ids: Record<string, number> = {};
    beforeAll(async () => {
      t = await createTestApp(dialect);
      ids.visible = await addProfile(t, 'Visible');
      ids.fictional = await addProfile(t, 'Operator', { fictional: 1 });
      ids.invisible = await addProfile(t, 'Hidden', { invisible: 1 });
      ids.disabled = await addProfile(t, 'Disabled', { status: 'disabled' });
      ids.deleted = await addProfile(t, 'Deleted', { status: 'deleted' });
      ids.otherSite = await addProfile(t, 'Elsewhere', { site_id: 'rijpe-dates' });
      ids.male = await addProfile(t, 'Man', { gender: 'male' });
      ids.old = await addProfile(t, 'Older', { birth_date: '1940-01-01', region: 'noord-holland' });
    });
    afterAll(async () => { await t.close(); });

    it('shows only active, visible profiles of the site matching the filter, fictional ones flagged', async () => {
      const res = await t.request('/api/lander-profiles.php?gender=female&max_age=70&limit=24');
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, max-age=60');
      const body = await res.json();
      const shown = body.profiles.map((p: { id: number }) => p.id);
      expect(shown.sort()).toEqual([ids.visible, ids.fictional].sort());
      expect(body.total).toBe(2);
      expect(body.profiles.find((p: { id: number }) => p.id === ids.fictional).fictional).toBe(true);
      expect(body.profiles.find((p: { id: number }) => p.id === ids.visible).fictional).toBe(false);
      for (const hidden of ['invisible', 'disabled', 'deleted', 'otherSite', 'male', 'old']) expect(shown).not.toContain(ids[hidden]);
    });

    it('never shows a member the profiles blocking them or blocked by them', async () => {
      const viewer = await activeMember(t, 'Viewer', { gender: 'male' });
      const blocker = await addProfile(t, 'Blocker');
      await t.app.db.db.insertInto('blocks').values([
        { blocker_profile_id: blocker, blocked_profile_id: viewer.profileId, created_at: NOW },
        { blocker_profile_id: viewer.profileId, blocked_profile_id: ids.visible, created_at: NOW },
      ]).execute();
      const body = await (await t.request('/api/lander-profiles.php?gender=female&limit=24', as(viewer.cookie))).json();
      const shown = body.profiles.map((p: { id: number }) => p.id);
      expect(shown).not.toContain(blocker);
      expect(shown).not.toContain(ids.visible);
      expect(shown).toContain(ids.fictional);
    });

    it('caches visitors\' answers for a minute', async () => {
      const first = await (await t.request('/api/lander-profiles.php?gender=female&limit=3')).json();
      const added = await addProfile(t, 'Newcomer', { last_active_at: NOW + 1 });
      const cached = await (await t.request('/api/lander-profiles.php?gender=female&limit=3')).json();
      expect(cached).toEqual(first);
      t.clock.advance(61_000);
      const fresh = await (await t.request('/api/lander-profiles.php?gender=female&limit=3')).json();
      expect(fresh.profiles.map((p: { id: number }) => p.id)).toContain(added);
      t.clock.set(NOW);
    });

    it('counts members online and per region of the visitor\'s country', async () => {
      const body = await (await t.request('/api/lander-profiles.php?near=1&regions=1&country=NL&limit=5')).json();
      expect(body.country).toBe('NL');
      expect(body.regions.utrecht).toBeGreaterThanOrEqual(2);
      expect(body.regions['noord-holland']).toBe(1);
      expect(body.online).toBeGreaterThanOrEqual(2);
      // A country the site does not serve falls back to one it does.
      expect((await (await t.request('/api/lander-profiles.php?near=1&country=JP')).json()).country).toBe('NL');
    });

    it('refuses bad queries with a translated 400', async () => {
      for (const q of ['limit=0', 'limit=99', 'min_age=50&max_age=30', 'gender=robot', 'min_age=17', 'country=nl', 'unknown=1', 'near=yes']) {
        const res = await t.request(`/api/lander-profiles.php?${q}`, { headers: { cookie: 'lang=de' } });
        expect(res.status, q).toBe(400);
        expect((await res.json()).message).toBe('Einige der gesendeten Daten sind ungültig.');
      }
      await fc.assert(fc.asyncProperty(fc.dictionary(fc.constantFrom('gender', 'min_age', 'max_age', 'limit', 'near', 'regions', 'x'), fc.string({ maxLength: 12 })), async (query) => {
        const res = await t.request(`/api/lander-profiles.php?${new URLSearchParams(query)}`);
        expect([200, 400]).toContain(res.status);
      }), { numRuns: 40 });
    });
  });

  describe(`visit tracking and the lander funnel (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect); });
    afterAll(async () => { await t.close(); });

    it('keeps network, ref and sub1–3 for 30 days in a first-party cookie', async () => {
      const res = await t.request('/api/settings.php?network=adnet&ref=r1&sub1=s1&sub2=s2&sub3=s3', { host: 'rijpe.localhost' });
      const header = (res.headers.getSetCookie?.() ?? []).find((c) => c.startsWith(`${TRACKING_COOKIE}=`)) ?? '';
      expect(header).toMatch(/Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax/);
      const cookie = trackingCookieOf(res) as string;
      expect(decodeURIComponent(cookie)).toContain('network=adnet&ref=r1&sub1=s1&sub2=s2&sub3=s3');
      expect((await res.json()).signups_open).toBe(true);
      // Later requests carry only the cookie: signups and logged-out search stay open.
      const later = await (await t.request('/api/settings.php', { host: 'rijpe.localhost', headers: { cookie } })).json();
      expect(later.signups_open).toBe(true);
      expect(later.logged_out_search_allowed).toBe(true);
      expect((await t.request('/api/search.php', { host: 'rijpe.localhost', headers: { cookie } })).status).toBe(200);
      expect((await t.request('/api/search.php', { host: 'rijpe.localhost' })).status).toBe(403);
      const form = await (await t.request('/api/signup-form.php', { host: 'rijpe.localhost', headers: { cookie } })).json();
      expect(form.signupsOpen).toBe(true);
      expect(form.tracking).toEqual({ network: 'adnet', ref: 'r1', sub1: 's1', sub2: 's2', sub3: 's3' });
    });

    it('ignores unsafe tracking values and forged cookies', async () => {
      const res = await t.request(`/api/settings.php?network=${encodeURIComponent('<script>')}`, { host: 'rijpe.localhost' });
      expect(trackingCookieOf(res)).toBeNull();
      expect((await res.json()).signups_open).toBe(false);
      const forged = `${TRACKING_COOKIE}=${encodeURIComponent('network=a b&lander=nope&slug=../../x')}`;
      const s = await (await t.request('/api/settings.php', { host: 'rijpe.localhost', headers: { cookie: forged } })).json();
      expect(s.signups_open).toBe(false);
      await fc.assert(fc.asyncProperty(fc.string({ maxLength: 80 }), async (value) => {
        const r = await t.request('/api/settings.php', { host: 'rijpe.localhost', headers: { cookie: `${TRACKING_COOKIE}=${encodeURIComponent(value)}` } });
        expect(r.status).toBe(200);
      }), { numRuns: 30 });
    });

    it('counts views, signups started, accounts and activations per site × lander × slug × network', async () => {
      const cookie = `${TRACKING_COOKIE}=${encodeURIComponent('network=adnet&sub1=s1&lander=gallery&slug=mature')}`;
      const host = 'rijpe.localhost';
      expect((await t.request('/api/lander-view.php', { method: 'POST', host, headers: { ...JSON_HEADERS, cookie }, body: JSON.stringify({ lander: 'gallery', slug: 'mature' }) })).status).toBe(204);
      expect((await t.request('/api/lander-view.php?network=other', { method: 'POST', host, headers: JSON_HEADERS, body: JSON.stringify({ lander: 'gallery', slug: 'mature' }) })).status).toBe(204);
      expect((await t.request('/api/signup-form.php', { host, headers: { cookie } })).status).toBe(200);
      // The wizard sends no tracking here: the cookie alone makes signup on this with_trafficsource site possible.
      const signup = await t.request('/api/signup.php', {
        method: 'POST', host, headers: { ...JSON_HEADERS, cookie },
        body: JSON.stringify({ email: 'lander@example.com', name: 'Lander', password: 'correct horse battery', date_of_birth: '1970-05-01', gender: 'male' }),
      });
      expect(signup.status).toBe(200);
      const user = await t.app.db.db.selectFrom('users').selectAll().where('email_normalized', '=', 'lander@example.com').executeTakeFirstOrThrow();
      expect(JSON.parse(user.tracking as string)).toEqual({ network: 'adnet', sub1: 's1', lander: 'gallery', slug: 'mature' });
      const mail = await t.app.db.db.selectFrom('mails').select('text').where('to_address', '=', 'lander@example.com').executeTakeFirstOrThrow();
      const token = /activate\.php\?token=([\w-]+)/.exec(mail.text)?.[1];
      expect((await t.request(`/api/activate.php?token=${token}`, { host })).status).toBe(303);
      // Activating twice counts once.
      await t.request(`/api/activate.php?token=${token}`, { host });
      const rows = await funnel(t, 'rijpe-dates');
      expect(rows.map((r) => ({ ...r, views: Number(r.views), signups_started: Number(r.signups_started), accounts_created: Number(r.accounts_created), activated: Number(r.activated), first_purchases: Number(r.first_purchases), bounces: Number(r.bounces) }))).toEqual([
        { site_id: 'rijpe-dates', lander: 'gallery', slug: 'mature', network: 'adnet', views: 1, signups_started: 1, accounts_created: 1, activated: 1, first_purchases: 0, bounces: 0 },
        { site_id: 'rijpe-dates', lander: 'gallery', slug: 'mature', network: 'other', views: 1, signups_started: 0, accounts_created: 0, activated: 0, first_purchases: 0, bounces: 0 },
      ]);
      expect(await funnel(t, 'kindred')).toEqual([]);
    });

    it('refuses bad lander views, counting nothing', async () => {
      const before = (await funnel(t, 'kindred')).length;
      for (const body of [{}, { lander: 'nope', slug: 'default' }, { lander: 'gallery', slug: '../x' }, { lander: 'gallery', slug: 'default', extra: 1 }, 'x', [1]]) {
        const res = await t.request('/api/lander-view.php', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
        expect(res.status).toBe(400);
      }
      await fc.assert(fc.asyncProperty(fc.anything(), async (body) => {
        const res = await t.request('/api/lander-view.php', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) ?? 'null' });
        expect(res.status).toBe(400);
      }), { numRuns: 30 });
      expect((await funnel(t, 'kindred')).length).toBe(before);
    });

    it('records a bounce from a lander page when ?lb is set', async () => {
      const headers = { ...JSON_HEADERS, referer: 'http://localhost:4321/landers/video?lb=1&network=n1' };
      expect((await t.request('/api/page-hidden.php', { method: 'POST', headers, body: '{}' })).status).toBe(204);
      expect((await t.request('/api/page-hidden.php?lb=1&network=n1', { method: 'POST', headers, body: '{}' })).status).toBe(204);
      expect((await t.request('/api/page-hidden.php?lb=1', { method: 'POST', headers: { ...JSON_HEADERS, referer: 'http://localhost:4321/terms' }, body: '{}' })).status).toBe(204);
      const rows = await funnel(t, 'kindred');
      expect(rows.map((r) => [r.lander, r.slug, r.network, Number(r.bounces)])).toEqual([['video', 'default', 'n1', 1]]);
    });
  });
}
