import type { APIRequestContext } from '@playwright/test';
import fc from 'fast-check';
import { expect, PORT, test, tr } from './fixtures';

// Every page route of SPEC §2 (and the app's own), with placeholders for their parameters.
const ROUTES = [
  '/', '/members', '/members/{id}', '/members/{id}/chat', '/members/{id}/signup', '/members/{id}/landing', '/members/{id}/landing2/{slug}',
  '/members/{id}/landing3/{slug}', '/likes', '/likes/{slug}', '/likes/m/{id}', '/chats', '/chats/{id}', '/login', '/signup', '/signup-matches',
  '/complete-signup', '/reset-password', '/reset-password/do', '/activate/done', '/activate/error', '/mail-change/do', '/account-deleted',
  '/credits', '/credits/{id}/{slug}', '/credits/repeat-order', '/transactions/{id}', '/directdebit', '/premium', '/pricing', '/profile',
  '/notifications', '/unsubscribe', '/match-finder', '/swipe-game', '/lang-config', '/complaints', '/settings', '/moderation', '/terms', '/privacy',
  '/cookies', '/ban', '/faq', '/service', '/return-policy', '/{slug}', '/{slug}/{slug}', '/landers/tinderswipe', '/landers/{slug}/{slug}',
  '/dev/mailbox', '/dev/mailbox/{id}', '/request-error', '/404', '/500',
  '/admin', '/admin/login', '/admin/members', '/admin/members/{id}', '/admin/moderation', '/admin/inbox', '/admin/inbox/{id}', '/admin/fictional',
  '/admin/payments', '/admin/discounts', '/admin/audit', '/admin/forbidden',
];
/** Pages whose forms post without script (the others render as on GET). */
const FORM_POSTS = ['/login', '/signup', '/reset-password', '/reset-password/do', '/settings', '/profile', '/members/{id}', '/members/{id}/signup', '/match-finder', '/chats/{id}', '/unsubscribe'];
const FIELDS = ['email', 'password', 'next', 'token', 'name', 'date_of_birth', 'network', 'gender', 'min_age', 'max_age', 'page', 'country', 'countryregion', 't', 'lb', 'api_signup_complete', 'conversation', 'q', 'status', 'method', 'from', 'to', 'user_id', 'edit', 'before'];

/** Raw pieces of a URL: valid, percent-encoded, malformed encodings, control characters, traversal, unicode. */
const rawPiece = fc.oneof(
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constantFrom('%E0%A4%A', '%', '%zz', '%00', '%0d%0a', '%0D%0ASet-Cookie:x=1', '%2F', '%5C', '..', '%2e%2e', '%C0%AF', '%FF', '%u0041', '%09', '\u00e9', '%F0%9F%98%80', '-1', '0', '99999999999999999999', '1e5', '1', '2', 'null', '[]', '%5B%5D'),
  fc.integer({ min: -5, max: 3000 }).map(String),
  fc.string({ unit: 'binary', maxLength: 6 }).map((s) => [...s].map((ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')),
);
const rawValue = fc.array(rawPiece, { minLength: 0, maxLength: 3 }).map((parts) => parts.join(''));
const path = fc.tuple(fc.constantFrom(...ROUTES), fc.array(rawValue.filter((v) => v.length > 0), { minLength: 3, maxLength: 3 }))
  .map(([route, values]) => { let i = 0; return route.replace(/\{(id|slug)\}/g, () => values[i++ % values.length]); });
const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS), rawValue), rawValue), { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));
const formBody = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...FIELDS), rawValue), rawValue), { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
const body = fc.oneof(
  formBody.map((b) => ({ type: 'application/x-www-form-urlencoded', data: b })),
  fc.anything().map((v) => ({ type: 'application/json', data: JSON.stringify(v) ?? 'null' })),
  fc.string({ maxLength: 200 }).map((s) => ({ type: 'text/plain', data: s })),
  fc.string({ maxLength: 200 }).map((s) => ({ type: 'multipart/form-data; boundary=xyz', data: s })),
  formBody.map((b) => ({ type: 'multipart/form-data; boundary=xyz', data: `--xyz\r\nContent-Disposition: form-data; name="email"\r\n\r\n${b}\r\n--xyz--\r\n` })),
  fc.constantFrom('multipart/form-data', 'application/x-www-form-urlencoded; charset=utf-16', 'image/png', '', 'garbage/x;;="').map((type) => ({ type, data: 'email=a%40b.c&password=x' })),
  fc.constant({ type: 'application/x-www-form-urlencoded', data: `email=${'x'.repeat(200_000)}` }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ type: 'application/octet-stream', data: Buffer.from(bytes) })),
);
const request = fc.record({
  method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
  path: fc.oneof(path, fc.constantFrom(...FORM_POSTS).map((p) => p.replace(/\{id\}/g, '1'))),
  query,
  body,
  sameOrigin: fc.boolean(),
  member: fc.boolean(),
  cookie: fc.constantFrom('', 'lang=de', 'lang=%E0%A4%A', 'kd_session=forged', 'kd_session=%00%0d', 'lang=xx; kd_session='),
});

/** The development-only page that fails on purpose (src/pages/dev/error.astro). */
const deliberateFailure = (p: string) => {
  try {
    return decodeURIComponent(p.split('?')[0]).toLowerCase().replace(/\/+$/, '').startsWith('/dev/error');
  } catch {
    return false;
  }
};

async function memberCookie(api: APIRequestContext) {
  const email = `fuzz-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  const res = await api.post('/api/signup.php', { data: { email, name: 'Fuzzer', password: 'a long passphrase 42', date_of_birth: '1990-01-01' } });
  expect(res.status()).toBe(200);
  return res.headers()['set-cookie']?.split(';')[0] ?? '';
}

test.describe('bad input to pages', () => {
  test('no page route or form post answers malformed paths, queries, methods, content types or bodies with a 5xx', async ({ playwright }) => {
    test.setTimeout(120_000);
    // A context without stored cookies: each request carries exactly the cookie the case chose.
    const api = await playwright.request.newContext({ baseURL: `http://localhost:${PORT}` });
    const member = await memberCookie(api);
    const failures: string[] = [];
    try {
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const url = `${r.path}${r.query}`;
          if (deliberateFailure(url)) return;
          const headers: Record<string, string> = {};
          const cookies = [r.cookie, r.member ? member : ''].filter(Boolean).join('; ');
          if (cookies) headers.cookie = cookies;
          if (r.sameOrigin) headers.origin = `http://localhost:${PORT}`;
          const withBody = !['GET', 'HEAD'].includes(r.method);
          if (withBody && r.body.type) headers['content-type'] = r.body.type;
          const res = await api.fetch(url, { method: r.method, headers, data: withBody ? r.body.data : undefined, maxRedirects: 0, failOnStatusCode: false });
          if (res.status() >= 500) failures.push(`${r.method} ${url} [${headers['content-type'] ?? ''}] → ${res.status()}`);
          expect(res.status(), `${r.method} ${url} ${JSON.stringify(headers)}`).toBeLessThan(500);
        }),
        { numRuns: 400, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
      );
    } finally {
      await api.dispose();
    }
    expect(failures).toEqual([]);
  });

  test('the cases from the report show the normal error page with a 4xx', async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: `http://localhost:${PORT}` });
    const origin = `http://localhost:${PORT}`;
    const cases: [string, string, { headers?: Record<string, string>; data?: string }, number][] = [
      ['POST', '/login', { headers: { origin, 'content-type': 'application/json' }, data: '{"email":"a@b.c","password":"x"}' }, 415],
      ['POST', '/login', { headers: { origin, 'content-type': 'text/plain' }, data: 'email=a@b.c' }, 415],
      ['POST', '/login', { headers: { origin, 'content-type': 'multipart/form-data; boundary=x' }, data: 'not multipart' }, 400],
      ['GET', '/members/%E0%A4%A', {}, 400],
      ['GET', '/members/%0d%0aSet-Cookie:%20x=1', {}, 400],
      ['PUT', '/login', { headers: { origin } }, 405],
    ];
    try {
      // CR/LF in `next` never reaches a header: safeNextPath drops it and the form shows as usual.
      const crlf = await api.get('/login?next=%0d%0aSet-Cookie:%20x=1', { headers: { cookie: 'lang=en' }, maxRedirects: 0 });
      expect(crlf.status()).toBe(200);
      expect(crlf.headers()['set-cookie'] ?? '').not.toContain('x=1');
      for (const [method, url, init, status] of cases) {
        const res = await api.fetch(url, { method, ...init, headers: { cookie: 'lang=en', ...init.headers }, maxRedirects: 0 });
        expect(res.status(), `${method} ${url}`).toBe(status);
        expect(res.headers()['content-type']).toMatch(/^text\/html/);
        expect(res.headers()['set-cookie'] ?? '').not.toContain('x=1');
        const html = await res.text();
        expect(html).toContain(`data-status="${status}"`);
        expect(html).toContain(tr('en', status === 405 ? 'error.method_not_allowed' : 'error.bad_request'));
      }
    } finally {
      await api.dispose();
    }
  });

  test('the login form answers a blocked account with 429, Retry-After and the account text', async ({ playwright }) => {
    const api = await playwright.request.newContext({ baseURL: `http://localhost:${PORT}` });
    const origin = `http://localhost:${PORT}`;
    const email = `blocked-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
    const post = () => api.post('/login', { headers: { origin, cookie: 'lang=en' }, form: { email, password: 'not the password' }, maxRedirects: 0 });
    try {
      let res = await post();
      for (let i = 0; i < 10 && res.status() === 401; i++) res = await post();
      expect(res.status()).toBe(429);
      expect(Number(res.headers()['retry-after'])).toBeGreaterThan(0);
      expect(await res.text()).toMatch(/Too many incorrect attempts, account blocked for \d+ min\./);
    } finally {
      await api.dispose();
    }
  });
});
