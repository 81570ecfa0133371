import { expect } from 'vitest';
import type { TestApp } from './test-app';

export const JSON_HEADERS = { 'content-type': 'application/json', cookie: 'lang=en' };

/** Signs a new member up through the API; returns the session cookie (with lang=en) and ids. */
export async function signupMember(t: TestApp, name: string, extra: { gender?: 'male' | 'female'; birth?: string } = {}) {
  const res = await t.request('/api/signup.php', {
    method: 'POST', headers: JSON_HEADERS,
    body: JSON.stringify({ email: `${name.toLowerCase()}@example.com`, name, password: 'correct horse battery', date_of_birth: extra.birth ?? '1990-05-01', gender: extra.gender ?? 'female' }),
  });
  expect(res.status).toBe(200);
  const { user } = await res.json();
  return { cookie: `${res.headers.get('set-cookie')!.split(';')[0]}; lang=en`, userId: user.id as number, profileId: user.profile.id as number };
}
