import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

for (const dialect of DIALECTS) {
  describe(`settings endpoint (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect); });
    afterAll(async () => { await t.close(); });

    it('answers the full Settings object for the request host', async () => {
      const res = await t.request('/api/settings.php', { host: 'gay.localhost:4321' });
      expect(res.status).toBe(200);
      const s = await res.json();
      expect(s.name).toBe('Männerhafen');
      expect(s.niche).toBe(7);
      expect(s.domain).toBe('gay.localhost');
      for (const key of [
        'countries', 'name', 'index_title', 'description', 'visible_profile_fields', 'visible_profile_notes', 'geoip_country',
        'geoip_selected_country', 'cdn_prefix', 'message_credits', 'signup_credits', 'photo_credits', 'gift_credits',
        'message_length', 'minimum_message_costs', 'support_email', 'support_phone', 'enable_site_entry_popup',
        'push_public_key', 'search_fields', 'domain', 'domain_language', 'fictional_warning', 'fictional_singular',
        'fictional_plural', 'refund_days', 'signups', 'logged_out_search', 'logged_out_search_trafficsource',
        'member_resell', 'niche', 'company_id', 'mail_name', 'interests', 'region_data', 'fictional_icon',
      ]) expect(s, key).toHaveProperty(key);
      expect(s.support_phone).toBe('+494012345678');
      expect(s.interests).toHaveLength(50);
      expect(s.region_data.DE.length).toBe(16);
      expect(s.region_data.CH.length).toBe(26);
    });

    it('takes the site from the host, never from a domain query parameter', async () => {
      const s = await (await t.request('/api/settings.php?domain=gay.localhost', { host: 'rijpe.localhost' })).json();
      expect(s.name).toBe('Rijpe Dates');
      expect(s.domain).toBe('rijpe.localhost');
    });

    it('falls back to the default site for unknown hosts', async () => {
      const s = await (await t.request('/api/settings.php', { host: 'unknown.example' })).json();
      expect(s.name).toBe('Kindred');
    });

    it('applies the tracking network to signups and logged-out search', async () => {
      const plain = await (await t.request('/api/settings.php', { host: 'rijpe.localhost' })).json();
      expect(plain.signups).toBe('with_trafficsource');
      expect(plain.signups_open).toBe(false);
      expect(plain.logged_out_search_allowed).toBe(false);
      const tracked = await (await t.request('/api/settings.php?network=adnet&sub1=x', { host: 'rijpe.localhost' })).json();
      expect(tracked.signups_open).toBe(true);
      expect(tracked.logged_out_search_allowed).toBe(true);
      const gay = await (await t.request('/api/settings.php?network=adnet', { host: 'gay.localhost' })).json();
      expect(gay.logged_out_search_allowed).toBe(false);
    });

    it('selects a country from the query when the site serves it', async () => {
      const be = await (await t.request('/api/settings.php?country=BE', { host: 'rijpe.localhost' })).json();
      expect(be.geoip_selected_country).toBe('BE');
      const us = await (await t.request('/api/settings.php?country=US', { host: 'rijpe.localhost' })).json();
      expect(us.geoip_selected_country).toBe('NL');
    });

    it('reads the country from a trusted CDN header when configured', async () => {
      const cdn = await createTestApp(dialect, { GEOIP_COUNTRY_HEADER: 'cf-ipcountry' });
      try {
        const s = await (await cdn.request('/api/settings.php', { host: 'rijpe.localhost', headers: { 'cf-ipcountry': 'be' } })).json();
        expect(s.geoip_country).toBe('BE');
        expect(s.geoip_selected_country).toBe('BE');
      } finally {
        await cdn.close();
      }
    });

    it('sets the lang cookie from domain_language when none is set', async () => {
      const res = await t.request('/api/settings.php', { host: 'rijpe.localhost' });
      expect(res.headers.get('set-cookie')).toMatch(/^lang=nl; Max-Age=31536000; Path=\/; SameSite=Lax/);
      const again = await t.request('/api/settings.php', { host: 'rijpe.localhost', headers: { cookie: 'lang=fr' } });
      expect(again.headers.get('set-cookie')).toBeNull();
    });

    it('localises texts by the lang cookie, then the site language, then Accept-Language', async () => {
      const nl = await (await t.request('/api/settings.php', { host: 'rijpe.localhost' })).json();
      expect(nl.locale).toBe('nl');
      expect(nl.fictional_plural).toBe('fantasieprofielen');
      const fr = await (await t.request('/api/settings.php', { host: 'rijpe.localhost', headers: { cookie: 'lang=fr' } })).json();
      expect(fr.locale).toBe('fr');
      expect(fr.region_data.BE.find((r: { code: string }) => r.code.includes('west'))?.name).toMatch(/Flandre/);
      const header = await (await t.request('/api/settings.php', { host: 'unknown.example', headers: { 'accept-language': 'sv-SE' } })).json();
      expect(header.locale).toBe('en'); // Kindred's own domain_language (en-GB) comes before the header
    });

    it('rejects over-long query values', async () => {
      const res = await t.request(`/api/settings.php?network=${'x'.repeat(500)}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_input');
    });
  });
}
