import { expect, test } from '@playwright/test';
import { onHost } from './fixtures';

const DEMO = { email: 'premium@kindred.example', password: 'kindred-demo-2026' };
// Decoded by the query string into backslashes, tabs, CR/LF and encoded slashes.
const PAYLOADS = ['/\\evil.example', '/%09/evil.example', '/\\/evil.example', '//evil.example', '/%0d%0a/evil.example', '/%5C%5Cevil.example', '/..//evil.example', 'https://evil.example', '/%00/evil.example'];

/** Where a redirect goes, resolved against the page it came from. */
const target = (location: string | undefined, from: string) => new URL(location ?? '', from);

test.describe('login redirects stay on the site', () => {
  test('on the form POST and on GET when logged in', async ({ playwright }) => {
    const request = await playwright.request.newContext({ baseURL: onHost('localhost') });
    for (const payload of PAYLOADS) {
      const url = `/login?next=${payload.replace(/\\/g, '%5C')}`;
      const posted = await request.post(url, {
        form: { email: DEMO.email, password: DEMO.password }, maxRedirects: 0, headers: { origin: onHost('localhost').replace(/\/$/, '') },
      });
      expect(posted.status(), payload).toBeLessThan(400);
      const landed = target(posted.headers().location, posted.url());
      expect(landed.host, `POST ${payload} → ${posted.headers().location}`).toBe(new URL(onHost('localhost')).host);
      expect(landed.pathname).not.toMatch(/^\/\/|\\/);
      const again = await request.get(url, { maxRedirects: 0 });
      expect(again.status(), payload).toBe(302);
      const next = target(again.headers().location, again.url());
      expect(next.host, `GET ${payload} → ${again.headers().location}`).toBe(new URL(onHost('localhost')).host);
    }
    const fine = await request.get('/login?next=/chats', { maxRedirects: 0 });
    expect(fine.headers().location).toBe('/chats');
    await request.dispose();
  });

  test('a cross-site navigation to the logout address keeps the member logged in', async ({ playwright }) => {
    const request = await playwright.request.newContext({ baseURL: onHost('localhost') });
    const login = await request.post('/login', { form: { email: DEMO.email, password: DEMO.password }, maxRedirects: 0, headers: { origin: onHost('localhost').replace(/\/$/, '') } });
    expect(login.status()).toBe(303);
    // An image or link on another site sends the cookie (SameSite=Lax on navigation) but Sec-Fetch-Site says cross-site.
    const viaOtherSite = await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, maxRedirects: 0 });
    expect(viaOtherSite.status()).toBe(303);
    expect((await (await request.get('/api/user.php')).json()).user?.email).toBe(DEMO.email);
    const own = await request.get('/api/logout.php', { headers: { 'sec-fetch-site': 'same-origin' } });
    expect(own.status()).toBe(200);
    expect((await (await request.get('/api/user.php')).json()).user).toBeNull();
    await request.dispose();
  });
});
