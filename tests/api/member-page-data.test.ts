import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberPageLoader } from '../../src/server/pages/member-page-data';
import { listOwnPhotos } from '../../src/server/photos/photos.service';
import { profileForViewer } from '../../src/server/profiles/profiles.service';
import { activeMember } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// The /profile editor's loader reads the profile with its interests and photos in one query (JSON arrays
// of the database's dialect): it must give exactly what the three separate reads give, types and order included.
/** Interests and photos (file name, status, main) of a profile, inserted in this order. */
async function addInterestsAndPhotos(t: TestApp, profileId: number, interests: string[], photos: [string, 'active' | 'under inspection', 0 | 1][]) {
  const db = t.app.db.db;
  const now = t.clock.now();
  await db.insertInto('profile_interests').values(interests.map((interest) => ({ profile_id: profileId, interest }))).execute();
  await db.insertInto('photos').values(photos.map(([filename, status, main]) => ({
    profile_id: profileId, filename, thumb_filename: filename.replace(/\.webp$/, '-t.webp'), status, is_main: main, created_at: now,
  }))).execute();
}

describe.each(DIALECTS)('member page loaders (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(dialect); });
  afterAll(() => t.close());

  it('/profile: the profile, its interests and its photos (main first, then by id), as read one by one', async () => {
    const ann = await activeMember(t, 'Annika');
    const db = t.app.db.db;
    await addInterestsAndPhotos(t, ann.profileId, ['music', 'travel'], [['a.webp', 'active', 0], ['b "quoted" ünï.webp', 'under inspection', 1], ['c.webp', 'active', 0]]);
    const loader = memberPageLoader('/profile')!;
    const locals = { user: { id: ann.userId, profile: { id: ann.profileId } }, services: { app: t.app } } as unknown as App.Locals;
    const loaded = await loader.load(locals, new URL('http://page/profile'));
    const profile = await db.selectFrom('profiles').selectAll().where('user_id', '=', ann.userId).executeTakeFirstOrThrow();
    const interests = (await db.selectFrom('profile_interests').select('interest').where('profile_id', '=', ann.profileId).execute()).map((i) => i.interest);
    const photos = await listOwnPhotos(t.app, ann.profileId);
    expect(photos.map((p) => p.filename)).toEqual(['b "quoted" ünï.webp', 'a.webp', 'c.webp']);
    expect(loaded).toStrictEqual({ profile, interests, photos });
  });

  it('/profile: a profile without interests or photos gets empty lists', async () => {
    const bo = await activeMember(t, 'Bodhild');
    const locals = { user: { id: bo.userId, profile: { id: bo.profileId } }, services: { app: t.app } } as unknown as App.Locals;
    const loaded = (await memberPageLoader('/profile')!.load(locals, new URL('http://page/profile'))) as { interests: unknown[]; photos: unknown[] };
    expect(loaded.interests).toEqual([]);
    expect(loaded.photos).toEqual([]);
  });

  it('/members/{id}: interests alphabetical, active photos main first; the owner sees every photo; a visitor sees no relations', async () => {
    const cleo = await activeMember(t, 'Cleoline');
    const dag = await activeMember(t, 'Dagmara', { gender: 'male', paid: true });
    const db = t.app.db.db;
    await addInterestsAndPhotos(t, cleo.profileId, ['travel', 'art'], [['x.webp', 'active', 0], ['y.webp', 'under inspection', 0], ['z.webp', 'active', 1]]);
    const site = t.app.sites.forHost('localhost:4321');
    const viewer = await db.selectFrom('users').selectAll().where('id', '=', dag.userId).executeTakeFirstOrThrow();
    const owner = await db.selectFrom('users').selectAll().where('id', '=', cleo.userId).executeTakeFirstOrThrow();
    const seen = (await profileForViewer(t.app, site, cleo.profileId, viewer))!;
    expect(seen.interests).toEqual(['art', 'travel']);
    expect(seen.photos.map((p) => [p.filename, p.is_main])).toEqual([['z.webp', true], ['x.webp', false]]);
    expect([seen.own, seen.liked, seen.blockedByMe]).toEqual([false, false, false]);
    expect((await profileForViewer(t.app, site, cleo.profileId, owner))!.photos.map((p) => p.filename)).toEqual(['z.webp', 'x.webp', 'y.webp']);
    expect((await profileForViewer(t.app, site, cleo.profileId, null))!).toMatchObject({ own: false, liked: false, blockedByMe: false, interests: ['art', 'travel'] });
    expect(await profileForViewer(t.app, site, 999_999, viewer)).toBeNull();
  });
});
