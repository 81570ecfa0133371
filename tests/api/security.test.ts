import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'PUT',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

for (const dialect of DIALECTS) {
  describe(`API safety baseline (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect, { BODY_LIMIT_BYTES: '2048' }); });
    afterAll(async () => { await t.close(); });

    it('answers unknown API routes with a translated JSON 404', async () => {
      const res = await t.request('/api/nope.php', { headers: { cookie: 'lang=de' } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      const body = await res.json();
      expect(body.error).toBe('not_found');
      expect(body.message).not.toBe('This API endpoint does not exist.');
    });

    it('refuses cross-site writes', async () => {
      const bySecFetch = await t.request('/api/user.php', json({ language: 'de' }, { 'sec-fetch-site': 'cross-site' }));
      expect(bySecFetch.status).toBe(403);
      expect((await bySecFetch.json()).error).toBe('cross_site');
      const byOrigin = await t.request('/api/user.php', json({ language: 'de' }, { origin: 'https://evil.example' }));
      expect(byOrigin.status).toBe(403);
      const sameOrigin = await t.request('/api/user.php', json({ language: 'de' }, { origin: 'http://localhost:4321' }));
      expect((await sameOrigin.json()).error).toBe('authentication_required');
    });

    it('requires a JSON content type for request bodies', async () => {
      const res = await t.request('/api/user.php', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'language=de' });
      expect(res.status).toBe(415);
      const form = await t.request('/api/user.php', { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
      expect(form.status).toBe(415);
    });

    it('limits the size of request bodies', async () => {
      const res = await t.request('/api/user.php', json({ language: 'de', pad: 'x'.repeat(10_000) }));
      expect(res.status).toBe(413);
      expect((await res.json()).error).toBe('payload_too_large');
    });

    it('reports a logged-out visitor with authentication_required on PUT user.php', async () => {
      const res = await t.request('/api/user.php', json({ language: 'de' }));
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(body.authentication_required).toBe(true);
    });

    it('answers GET user.php with user null when logged out', async () => {
      expect(await (await t.request('/api/user.php')).json()).toEqual({ user: null });
    });

    it('refuses a logged-out visitor whatever the body, changing nothing', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.anything(), fc.record({ language: fc.string() }).filter((b) => !['nl', 'en', 'de', 'it', 'fr', 'es', 'pl', 'da', 'fi', 'nb', 'sv'].includes(b.language))),
          async (body) => {
            const res = await t.request('/api/user.php', json(body));
            expect(res.status).toBe(403);
          },
        ),
        { numRuns: 40 },
      );
    });

    it('never caches API answers', async () => {
      const res = await t.request('/api/settings.php');
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('accepts the page-hidden beacon', async () => {
      const res = await t.request('/api/page-hidden.php?lb=1', { method: 'POST', headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' }, body: '{}' });
      expect(res.status).toBe(204);
    });

    it('serves company info, regions and interests', async () => {
      const company = await (await t.request('/api/company.php', { host: 'rijpe.localhost' })).json();
      expect(company.company).toMatchObject({ name: 'Rijpe Media B.V.', kvk: '87654321', support_phone: '0307654321', delete_discount: 40 });
      const regions = await (await t.request('/api/regions.php?country=NL')).json();
      expect(regions.regions.NL).toHaveLength(12);
      expect((await t.request('/api/regions.php?country=nl')).status).toBe(400);
      const interests = await (await t.request('/api/interests.php', { headers: { cookie: 'lang=nl' } })).json();
      expect(interests.interests).toHaveLength(50);
    });
  });
}
