import { expect, test } from '@playwright/test';

test('pages and API answers are compressed for clients that accept it; event streams never are', async ({ playwright, baseURL }) => {
  const request = await playwright.request.newContext({ baseURL });
  const page = await request.get('/members', { headers: { 'accept-encoding': 'br, gzip' } });
  expect(page.status()).toBe(200);
  expect(page.headers()['content-encoding']).toBe('br');
  expect(page.headers().vary).toMatch(/Accept-Encoding/i);
  const gzip = await request.get('/api/search.php', { headers: { 'accept-encoding': 'gzip' } });
  expect(gzip.headers()['content-encoding']).toBe('gzip');
  expect((await gzip.json()).results.length).toBeGreaterThan(0);
  const plain = await request.get('/members', { headers: { 'accept-encoding': 'identity' } });
  expect(plain.headers()['content-encoding']).toBeUndefined();

  const login = await request.post('/api/user.php', {
    data: { email: 'free@kindred.example', password: 'kindred-demo-2026' }, headers: { 'sec-fetch-site': 'same-origin' },
  });
  expect(login.status()).toBe(200);
  // Read only the head of the stream: it never ends by itself.
  const url = new URL('/api/events.php', baseURL);
  const cookie = (await request.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const head = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
    import('node:http').then(({ get }) => {
      const req = get(url, { headers: { cookie, 'accept-encoding': 'br, gzip', accept: 'text/event-stream' } }, (res) => {
        resolve(res.headers);
        req.destroy();
      });
      req.on('error', reject);
    }, reject);
  });
  expect(head['content-type']).toMatch(/text\/event-stream/);
  expect(head['content-encoding']).toBeUndefined();
  await request.dispose();
});
