import { expect } from 'vitest';
import type { TestApp } from './test-app';

export const JSON_HEADERS = { 'content-type': 'application/json', cookie: 'lang=en' };

/** Signs a new member up through the API; returns the session cookie (with lang=en) and ids. */
export async function signupMember(t: TestApp, name: string, extra: { gender?: 'male' | 'female'; birth?: string; host?: string } = {}) {
  const res = await t.request('/api/signup.php', {
    method: 'POST', headers: JSON_HEADERS, ...(extra.host ? { host: extra.host } : {}),
    body: JSON.stringify({ email: `${name.toLowerCase()}@example.com`, name, password: 'correct horse battery', date_of_birth: extra.birth ?? '1990-05-01', gender: extra.gender ?? 'female' }),
  });
  expect(res.status).toBe(200);
  const { user } = await res.json();
  return { cookie: `${res.headers.get('set-cookie')!.split(';')[0]}; lang=en`, userId: user.id as number, profileId: user.profile.id as number };
}

/** A member as after activation: confirmed, active profile in NL, optionally premium, with credits. */
export async function activeMember(t: TestApp, name: string, extra: { paid?: boolean; birth?: string; gender?: 'male' | 'female'; region?: string; credits?: number } = {}) {
  const signed = await signupMember(t, name, extra);
  const db = t.app.db.db;
  await db.updateTable('users').set({ status: 'confirmed', paid_user: extra.paid ? 1 : 0, credits: extra.credits ?? 0 }).where('id', '=', signed.userId).execute();
  await db.updateTable('profiles').set({ status: 'active', country: 'NL', region: extra.region ?? 'utrecht' }).where('user_id', '=', signed.userId).execute();
  return { ...signed, name };
}

/** Request init for a member: JSON headers with their session cookie. */
export const as = (cookie: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...JSON_HEADERS, cookie, ...((init.headers as Record<string, string>) ?? {}) } });
/** POST with a JSON body as a member. */
export const post = (cookie: string, body: unknown, method = 'POST'): RequestInit => as(cookie, { method, body: JSON.stringify(body) });
