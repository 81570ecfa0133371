// Bench members written straight into the database: confirmed, active, premium, with credits to
// spare, each with a session (a login through the API would hash a password per member).
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../src/server/app-context';
import { hashToken, randomToken } from '../src/server/accounts/tokens';

export interface BenchMember {
  userId: number;
  profileId: number;
  /** `kd_session=…; lang=en` */
  cookie: string;
}

export async function insertBenchMembers(app: AppContext, count: number): Promise<BenchMember[]> {
  const site = app.sites.defaultSite;
  const run = randomBytes(4).toString('hex');
  const now = Date.now();
  const members: BenchMember[] = [];
  await app.db.db.transaction().execute(async (trx) => {
    for (let start = 0; start < count; start += 500) {
      const n = Math.min(500, count - start);
      const emails = Array.from({ length: n }, (_, k) => `bench-${run}-${start + k}@bench.example`);
      const users = await trx.insertInto('users').values(emails.map((email) => ({
        site_id: site.id, email, email_normalized: email, password_hash: null, status: 'confirmed' as const, role: 'member' as const,
        credits: 1_000_000_000, paid_user: 1, language: 'en', email_prefs: '{}', push_prefs: '{}', tracking: null, signup_message: null,
        target_profile_id: null, api_signup: 0, created_at: now, confirmed_at: now, deleted_at: null, erased_at: null,
      }))).returning(['id', 'email']).execute();
      const userIds = new Map(users.map((u) => [u.email, u.id]));
      const ordered = emails.map((e) => userIds.get(e) as number);
      const profiles = await trx.insertInto('profiles').values(ordered.map((userId, k) => ({
        site_id: site.id, user_id: userId, name: `Bench${start + k}`, gender: k % 2 ? ('male' as const) : ('female' as const), sexuality: 'hetero' as const,
        birth_date: '1990-05-01', country: site.countries[0] ?? 'NL', region: null, city: null, hair_color: null, eye_color: null, body_type: null,
        relationship_status: null, tattoos: null, about: null, fictional: 0, invisible: 0, status: 'active' as const, last_active_at: now, created_at: now,
      }))).returning(['id', 'user_id']).execute();
      const profileOf = new Map(profiles.map((p) => [p.user_id, p.id]));
      const tokens = ordered.map(() => randomToken());
      await trx.insertInto('sessions').values(ordered.map((userId, k) => ({
        token_hash: hashToken(tokens[k]), user_id: userId, created_at: now, expires_at: now + 86_400_000, user_agent: 'bench',
      }))).execute();
      for (const [k, userId] of ordered.entries()) members.push({ userId, profileId: profileOf.get(userId) as number, cookie: `kd_session=${tokens[k]}; lang=en` });
    }
  });
  return members;
}
