import { randomBytes } from 'node:crypto';
import { eachLimited } from '../storage/storage';
import {
  type Faker, fakerDA, fakerDE, fakerDE_AT, fakerDE_CH, fakerEN_AU, fakerEN_CA, fakerEN_GB, fakerEN_IE, fakerEN_US,
  fakerES, fakerFI, fakerFR, fakerIT, fakerNB_NO, fakerNL, fakerNL_BE, fakerPL, fakerSV,
} from '@faker-js/faker';
import { type Kysely, sql, type Transaction } from 'kysely';
import { ageOn } from '../../shared/accounts.contract';
import type { StaffRole } from '../../shared/admin.contract';
import { nicheName } from '../../shared/constants';
import { REGIONS } from '../../shared/geo/regions';
import {
  BODY_TYPES, EYE_COLORS, HAIR_COLORS, INTERESTS, lookingFor, RELATIONSHIP_STATUSES, TATTOO_OPTIONS,
} from '../../shared/profile-options';
import type { Site } from '../../shared/site.schema';
import { hashPassword } from '../accounts/password';
import type { AppContext } from '../app-context';
import { findUserById } from '../accounts/accounts.repository';
import { answerAsFictional, claimConversation } from '../admin/inbox.service';
import type { StaffCaller } from '../admin/staff.service';
import { ChatRuleError, sendMessage } from '../chat/chat.service';
import { applyCredits } from '../credits/ledger';
import { avatarSvg, demoPhotoCount, extraPhotoSvg, OLDER_AGE } from './demo-avatars';
import { demoAbout } from './demo-about';
import { DEMO_NAMES } from './demo-names';
import type { Database, NewProfile } from './schema';

const FAKERS: Record<string, Faker> = {
  NL: fakerNL, BE: fakerNL_BE, DE: fakerDE, AT: fakerDE_AT, CH: fakerDE_CH, GB: fakerEN_GB, IE: fakerEN_IE,
  US: fakerEN_US, CA: fakerEN_CA, AU: fakerEN_AU, NZ: fakerEN_AU, FR: fakerFR, IT: fakerIT, ES: fakerES,
  PL: fakerPL, DK: fakerDA, FI: fakerFI, NO: fakerNB_NO, SE: fakerSV,
};

/** Share of the demo population per site, in file order; the rest goes to the last site. */
const DEFAULT_TOTAL = 2000;
/** Of the demo members with a picture, this share has more photos (2 to 6 in all): about half of everyone. */
const MORE_PHOTOS_SHARE = 0.6;
const DAY_MS = 86_400_000;
/** Share of the demo population active in the last minutes (online now), as on a busy evening. */
const ONLINE_SHARE = 0.06;

/** A small deterministic hash, for choices that must not move the seed's random stream. */
function seedHash(seed: string): number {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A region weighted by its size (its listed cities): big regions get more members, as in life. */
function weightedRegion<T extends { cities: string[] }>(regions: readonly T[], seed: string): T {
  const total = regions.reduce((sum, r) => sum + r.cities.length, 0);
  let n = seedHash(seed) % total;
  for (const r of regions) {
    if (n < r.cities.length) return r;
    n -= r.cities.length;
  }
  return regions[0];
}

interface NichePlan {
  female: number;
  minAge: number;
  maxAge: number;
  sexuality: (gender: 'male' | 'female', rnd: () => number) => NewProfile['sexuality'];
  bodies?: readonly string[];
}

function nichePlan(niche: number): NichePlan {
  const straightMostly = (_g: 'male' | 'female', rnd: () => number) => (rnd() < 0.85 ? 'hetero' : 'bi');
  switch (nicheName(niche)) {
    case 'she': return { female: 1, minAge: 18, maxAge: 60, sexuality: (_g, r) => (r() < 0.7 ? 'lesbian' : 'bi') };
    case 'gay': return { female: 0, minAge: 18, maxAge: 70, sexuality: (_g, r) => (r() < 0.8 ? 'gay' : 'bi') };
    case 'milf': return { female: 0.85, minAge: 35, maxAge: 62, sexuality: straightMostly };
    case 'gilf': return { female: 0.9, minAge: 58, maxAge: 80, sexuality: straightMostly };
    case 'bbw': return { female: 0.85, minAge: 21, maxAge: 65, sexuality: straightMostly, bodies: ['curvy', 'fullfigured'] };
    case 'bdsm': return { female: 0.5, minAge: 21, maxAge: 65, sexuality: (_g, r) => (r() < 0.6 ? 'hetero' : 'bi') };
    default: return { female: 0.55, minAge: 18, maxAge: 70, sexuality: (g, r) => (r() < 0.85 ? 'hetero' : r() < 0.5 ? 'bi' : g === 'male' ? 'gay' : 'lesbian') };
  }
}

/** Splits a total over the sites: the generic site gets the largest share. */
export function shareProfiles(sites: Site[], total: number): number[] {
  const weights = sites.map((s) => (s.niche === 1 ? 2 : 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const counts = weights.map((w) => Math.floor((total * w) / sum));
  counts[0] += total - counts.reduce((a, b) => a + b, 0);
  return counts;
}

/**
 * Creates a deterministic demo population: profiles across each site's countries and regions,
 * with locale-appropriate names, every field and interests filled, and a generated avatar that
 * fits gender and age; about a quarter have 2 to 6 photos (generated pictures, never real people).
 * With `avatars: false` (benchmarks) no files are written and nobody gets extra photos.
 */
export async function seedDemoData(app: AppContext, total = DEFAULT_TOTAL, options: { avatars?: boolean } = {}): Promise<number> {
  const avatars = options.avatars ?? true;
  const { db } = app.db;
  const now = app.clock.now();
  const counts = shareProfiles(app.sites.sites, total);
  let created = 0;

  for (const [siteIndex, site] of app.sites.sites.entries()) {
    const plan = nichePlan(site.niche);
    for (const f of Object.values(FAKERS)) f.seed(1000 + siteIndex);
    const rng = fakerNL; // drives the choices that do not depend on the country
    const rnd = () => rng.number.float({ min: 0, max: 1 });
    const rows: { profile: NewProfile; interests: string[]; avatarSeed: string; photos: number }[] = [];
    for (let i = 0; i < counts[siteIndex]; i++) {
      const country = rng.helpers.arrayElement(site.countries);
      const faker = FAKERS[country] ?? fakerEN_GB;
      const gender = rnd() < plan.female ? 'female' : 'male';
      const age = rng.number.int({ min: plan.minAge, max: plan.maxAge });
      const birth = new Date(now - age * 365.25 * DAY_MS - rng.number.int({ min: 0, max: 364 }) * DAY_MS);
      const regions = REGIONS[country] ?? [];
      // The stream's draw is kept (the rest of the demo data stays as it was); the region is chosen by weight.
      const drawn = regions.length ? rng.helpers.arrayElement(regions) : null;
      const region = drawn ? weightedRegion(regions, `${site.id}:${i}:region`) : null;
      const firstName = faker.person.firstName(gender);
      const name = rnd() < 0.5 ? firstName : `${firstName}${rng.number.int({ min: 18, max: 99 })}`;
      const avatarSeed = `${site.id}:${name.slice(0, 64)}:${birth.toISOString().slice(0, 10)}`;
      rows.push({
        profile: {
          site_id: site.id,
          user_id: null,
          name: name.slice(0, 64),
          gender,
          sexuality: plan.sexuality(gender, rnd),
          birth_date: birth.toISOString().slice(0, 10),
          country,
          region: region?.code ?? null,
          city: region ? rng.helpers.arrayElement(region.cities) : faker.location.city(),
          hair_color: age >= OLDER_AGE
            ? rng.helpers.weightedArrayElement([
              { weight: 5, value: 'grey' }, { weight: 3, value: 'white' }, { weight: 1, value: gender === 'male' ? 'bald' : 'blond' }, { weight: 1, value: 'brown' },
            ])
            : rng.helpers.arrayElement(HAIR_COLORS.filter((h) => h !== 'white' && h !== 'grey' && (h !== 'bald' || gender === 'male'))),
          eye_color: rng.helpers.arrayElement(EYE_COLORS),
          body_type: rng.helpers.arrayElement(plan.bodies ?? BODY_TYPES),
          relationship_status: rng.helpers.arrayElement(RELATIONSHIP_STATUSES),
          tattoos: rng.helpers.weightedArrayElement([
            { weight: 6, value: TATTOO_OPTIONS[0] }, { weight: 3, value: TATTOO_OPTIONS[1] }, { weight: 1, value: TATTOO_OPTIONS[2] },
          ]),
          about: demoAbout(country, seedHash(`${site.id}:${i}:about`)),
          fictional: rnd() < 0.15 ? 1 : 0,
          invisible: 0,
          status: 'active',
          last_active_at: now - rng.number.int({ min: 0, max: 30 * DAY_MS }) % (seedHash(`${site.id}:${i}:online`) % 1000 < ONLINE_SHARE * 1000 ? 10 * 60_000 : Number.MAX_SAFE_INTEGER),
          created_at: now - rng.number.int({ min: 30 * DAY_MS, max: 900 * DAY_MS }),
        },
        interests: rng.helpers.arrayElements(INTERESTS, { min: 3, max: 8 }),
        avatarSeed,
        // Some demo members have no public photo yet, as in real life; some have several.
        photos: i % 7 === 3 ? 0 : demoPhotoCount(avatarSeed, MORE_PHOTOS_SHARE),
      });
    }

    // The avatars and photos, stored once their rows are committed (16 at a time: an S3 bucket answers each in a round trip).
    const files: [string, string][] = [];
    await db.transaction().execute(async (trx) => {
      for (let start = 0; start < rows.length; start += 100) {
        const chunk = rows.slice(start, start + 100);
        const ids = await trx.insertInto('profiles').values(chunk.map((r) => r.profile)).returning('id').execute();
        const interests = chunk.flatMap((r, k) => r.interests.map((interest) => ({ profile_id: ids[k].id, interest })));
        await trx.insertInto('profile_interests').values(interests).execute();
        // Extra photos are generated only with avatars: bulk seeding (benchmarks) stays fast.
        const photos = chunk.flatMap((r, k) => {
          const id = ids[k].id;
          const count = avatars ? r.photos : Math.min(r.photos, 1);
          return Array.from({ length: count }, (_x, n) => {
            // Extra photos get unguessable names, as uploads do: the premium photo rule holds for them too.
            const filename = n === 0 ? `avatars/${id}.svg` : `photos/${id}/demo-${randomBytes(8).toString('hex')}.svg`;
            if (avatars) {
              const subject = { gender: r.profile.gender as 'male' | 'female', age: ageOn(r.profile.birth_date, now), hair_color: r.profile.hair_color ?? null };
              files.push([filename, n === 0 ? avatarSvg(subject, r.avatarSeed) : extraPhotoSvg(subject, r.avatarSeed, n)]);
            }
            return { profile_id: id, filename, thumb_filename: filename, status: 'active' as const, is_main: n === 0 ? 1 : 0, created_at: now };
          });
        });
        if (photos.length) await trx.insertInto('photos').values(photos).execute();
        const withPhoto = photos.filter((p) => p.is_main === 1).map((p) => p.profile_id);
        if (withPhoto.length) await trx.updateTable('profiles').set({ has_photo: 1 }).where('id', 'in', withPhoto).execute();
      }
    });
    await eachLimited(files, 16, ([key, svg]) => app.storage.put(key, svg, 'image/svg+xml'));
    created += rows.length;
  }
  return created;
}

export const DEMO_PASSWORD = 'kindred-demo-2026';
/** Birth date of the demo logins' profiles. */
const DEMO_BIRTH_DATE = '1985-06-15';
/** The demo logins' gender: men on the generic and the gay sites (niches 1 and 7), women on the niche sites. */
const demoGender = (site: Site): 'male' | 'female' => (site.niche !== 1 && site.niche !== 7 ? 'female' : 'male');
/** The demo members of a site: a confirmed free member, a premium member and one staff account per role. */
export function demoMembers(site: Site) {
  const domain = site.domains[0];
  const sex = demoGender(site);
  return [
    { email: `free@${domain}`, name: DEMO_NAMES.free[sex], paid: false, credits: site.signup_credits, staff: null },
    { email: `premium@${domain}`, name: DEMO_NAMES.premium[sex], paid: true, credits: 500, staff: null },
    { email: `moderator@${domain}`, name: 'Moderator', paid: false, credits: 0, staff: 'moderator' },
    { email: `admin@${domain}`, name: 'Admin', paid: false, credits: 0, staff: 'admin' },
    { email: `operator@${domain}`, name: 'Operator', paid: false, credits: 0, staff: 'operator' },
    { email: `finance@${domain}`, name: 'Finance', paid: false, credits: 0, staff: 'finance' },
  ];
}

/** Creates each site's demo members with known logins (see README). */
export async function seedDemoMembers(app: AppContext): Promise<void> {
  if (app.config.production) throw new Error('demo logins are never created in production');
  const { db } = app.db;
  const now = app.clock.now();
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const site of app.sites.sites) {
    const gender = demoGender(site);
    const sexuality = site.niche === 7 ? 'gay' : 'hetero';
    const wanted = lookingFor(gender, sexuality);
    const created: { userId: number; email: string; staff: string | null }[] = [];
    for (const member of demoMembers(site)) {
      const exists = await db.selectFrom('users').select('id').where('site_id', '=', site.id).where('email_normalized', '=', member.email).executeTakeFirst();
      if (exists) continue;
      const userId = await db.transaction().execute(async (trx) => {
        const user = await trx
          .insertInto('users')
          .values({
            site_id: site.id, email: member.email, email_normalized: member.email, password_hash: passwordHash, status: 'confirmed', role: member.staff ? 'staff' : 'member',
            credits: 0, paid_user: member.paid ? 1 : 0, language: site.domain_language.slice(0, 2), email_prefs: '{}', push_prefs: '{}',
            tracking: null, signup_message: null, target_profile_id: null, api_signup: 0, created_at: now, confirmed_at: now, deleted_at: null, erased_at: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const profile = await trx
          .insertInto('profiles')
          .values({
            site_id: site.id, user_id: user.id, name: member.name, gender, sexuality,
            birth_date: DEMO_BIRTH_DATE, country: site.countries[0], region: REGIONS[site.countries[0]]?.[0]?.code ?? null, city: REGIONS[site.countries[0]]?.[0]?.cities[0] ?? null,
            hair_color: 'brown', eye_color: 'blue', body_type: 'average', relationship_status: 'single', tattoos: 'none', about: null,
            fictional: 0, invisible: member.staff ? 1 : 0, status: 'active', last_active_at: now, created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        // The demo logins have photos too (a main one and two more), so their own pages look like a member's.
        if (!member.staff) {
          const subject = { gender, age: ageOn(DEMO_BIRTH_DATE, now), hair_color: 'brown' };
          const seed = `${site.id}:${member.email}`;
          const files = [`avatars/${profile.id}.svg`, `photos/${profile.id}/demo-${randomBytes(8).toString('hex')}.svg`, `photos/${profile.id}/demo-${randomBytes(8).toString('hex')}.svg`];
          await Promise.all(files.map((file, n) => app.storage.put(file, n === 0 ? avatarSvg(subject, seed) : extraPhotoSvg(subject, seed, n), 'image/svg+xml')));
          await trx.insertInto('photos').values(files.map((file, n) => ({
            profile_id: profile.id, filename: file, thumb_filename: file, status: 'active' as const, is_main: n === 0 ? 1 : 0, created_at: now,
          }))).execute();
          await trx.updateTable('profiles').set({ has_photo: 1 }).where('id', '=', profile.id).execute();
        }
        if (member.staff) {
          await trx.insertInto('staff_accounts').values({
            user_id: user.id, site_id: site.id, role: member.staff as StaffRole, totp_secret: null, totp_pending_secret: null, totp_enabled_at: null, totp_last_step: null, created_at: now,
          }).execute();
        }
        if (!member.staff) await seedDemoLikes(trx, site.id, profile.id, wanted, member.paid, now);
        if (member.credits > 0) await applyCredits(trx, { userId: user.id, delta: member.credits, reason: member.paid ? 'purchase' : 'signup_bonus', key: 'demo_seed', now });
        return user.id;
      });
      created.push({ userId, email: member.email, staff: member.staff });
    }
    const operator = created.find((c) => c.staff === 'operator');
    if (operator) {
      for (const member of created.filter((c) => c.staff === null)) await seedDemoConversation(app, site, member.userId, operator, wanted);
    }
  }
}

/** The first lines of a demo login's conversation, in the site's language: the member's and the profile's answer. */
const DEMO_CHAT: Record<string, { greeting: (name: string) => string; answer: string }> = {
  en: {
    greeting: (name) => `Hi ${name}, your profile made me smile. How is your week going?`,
    answer: 'Hi! Thank you, that is sweet of you 😊 My week is good, and better now. What do you like to do at the weekend?',
  },
  de: {
    greeting: (name) => `Hallo ${name}, dein Profil hat mich zum Lächeln gebracht. Wie läuft deine Woche?`,
    answer: 'Hallo! Danke, das ist lieb von dir 😊 Meine Woche ist gut, und jetzt noch besser. Was machst du am liebsten am Wochenende?',
  },
  nl: {
    greeting: (name) => `Hoi ${name}, je profiel maakte me aan het lachen. Hoe gaat je week?`,
    answer: 'Hoi! Dank je, wat lief van je 😊 Mijn week gaat goed, en nu nog beter. Wat doe je het liefst in het weekend?',
  },
};

/**
 * A demo login's Messages are not empty: it wrote to a fictional profile of the kind it looks for (sent, charged and
 * booked as any message) and the site's demo operator answered as that profile, through the console's own service,
 * so one unread answer waits. Fictional profiles are the ones staff write for (marked with the site's icon); no real
 * member is made to say anything.
 */
async function seedDemoConversation(app: AppContext, site: Site, userId: number, operator: { userId: number; email: string }, gender: 'male' | 'female' | undefined) {
  if (!gender) return;
  const db = app.db.db;
  const [profile] = await profilesNearestInAge(db, site.id, gender, { fictional: true });
  const user = await findUserById(db, userId);
  if (!profile || !user) return;
  const texts = DEMO_CHAT[site.domain_language.slice(0, 2)] ?? DEMO_CHAT.en!;
  let sent: Awaited<ReturnType<typeof sendMessage>>;
  try {
    sent = await sendMessage(app, site, user, { kind: 'text', text: texts.greeting(profile.name), profile_id: profile.id, client_id: `demo-seed-${userId}` });
  } catch (err) {
    // A site whose free members cannot write (no signup credits, no free conversation): that login has no chat.
    if (err instanceof ChatRuleError) return;
    throw err;
  }
  const staff: StaffCaller = { userId: operator.userId, email: operator.email, siteId: site.id, role: 'operator', enrolled: true, verified: true, ip: null };
  await claimConversation(app, staff, sent.conversation_id);
  await answerAsFictional(app, staff, { conversation_id: sent.conversation_id, text: texts.answer, client_id: `demo-seed-answer-${userId}` });
}

/**
 * Active, visible profiles with a photo of one gender on a site, nearest the demo logins' age first (equals by id):
 * fictional ones (staff write for them) or real members without a login (the demo population).
 */
async function profilesNearestInAge(db: Kysely<Database>, siteId: string, gender: 'male' | 'female', { fictional }: { fictional: boolean }) {
  let query = db.selectFrom('profiles').select(['id', 'name', 'birth_date'])
    .where('site_id', '=', siteId).where('status', '=', 'active').where('gender', '=', gender)
    .where('has_photo', '=', 1).where('invisible', '=', 0).where('fictional', '=', fictional ? 1 : 0);
  if (!fictional) query = query.where('user_id', 'is', null);
  const profiles = await query.orderBy('id').execute();
  const distance = (p: { birth_date: string }) => Math.abs(Date.parse(p.birth_date) - Date.parse(DEMO_BIRTH_DATE));
  return profiles.sort((a, b) => distance(a) - distance(b) || a.id - b.id);
}

/** Likes the demo logins have received: the free member 2, the premium member 4, one of them liked back (a match). */
const DEMO_LIKES = { free: 2, premium: 4 } as const;

/**
 * A demo login's first look at Likes is not empty: a few members of the kind it looks for (real, with a photo) liked
 * it in the last hours, still new (the nav's badge counts them) but already shown, so no like-back prompt opens at
 * login; the premium member has liked one of them back.
 */
async function seedDemoLikes(trx: Transaction<Database>, siteId: string, profileId: number, gender: 'male' | 'female' | undefined, paid: boolean, now: number) {
  if (!gender) return;
  const likers = (await profilesNearestInAge(trx, siteId, gender, { fictional: false })).slice(0, paid ? DEMO_LIKES.premium : DEMO_LIKES.free);
  if (likers.length === 0) return;
  const HOUR = 60 * 60 * 1000;
  const matched = paid ? likers[0]?.id : undefined;
  await trx.insertInto('likes').values(likers.map(({ id }, n) => {
    const at = now - (n + 1) * 3 * HOUR;
    return { liker_profile_id: id, liked_profile_id: profileId, source: 'search', is_new: id === matched ? 0 : 1, shown_at: at, created_at: at };
  })).execute();
  if (matched !== undefined) {
    await trx.insertInto('likes').values({ liker_profile_id: profileId, liked_profile_id: matched, source: 'likes', is_new: 1, shown_at: null, created_at: now - HOUR }).execute();
  }
}

/**
 * After a bulk load on PostgreSQL: table statistics, so the planner knows the tables' sizes at once.
 * Without them (autovacuum analyzes a minute or more later) it took 1,006 active profiles for one and
 * answered a member's likes by probing the likes index once per profile (1.4 ms instead of 0.04 ms).
 * SQLite plans without statistics, as every test and bench measured it, and is left so.
 */
export async function refreshPlannerStatistics(app: AppContext) {
  if (app.db.dialect !== 'postgres') return;
  // This schema's tables only (a bare ANALYZE would walk every schema of the database).
  const { rows } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(app.db.db);
  if (rows.length) await sql.raw(`analyze ${rows.map((r) => `"${r.name.replaceAll('"', '""')}"`).join(', ')}`).execute(app.db.db);
}

/** The demo population, the demo logins outside production, then planner statistics; answers the profiles made. */
export async function seedDemo(app: AppContext, total: number): Promise<number> {
  const created = await seedDemoData(app, total);
  // The demo logins' password is in the README: a production deployment never gets them.
  if (!app.config.production) await seedDemoMembers(app);
  await refreshPlannerStatistics(app);
  return created;
}

/** Seeds on first start, when there are no profiles yet. */
export async function seedIfEmpty(app: AppContext): Promise<number> {
  const row = await app.db.db.selectFrom('profiles').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  if (Number(row.n) > 0) return 0;
  const started = Date.now();
  const created = await seedDemo(app, app.config.seedProfiles);
  app.logger.info({ profiles: created, ms: Date.now() - started }, 'seeded demo data');
  return created;
}
