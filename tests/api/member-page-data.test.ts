import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberPageLoader } from '../../src/server/pages/member-page-data';
import { listOwnPhotos } from '../../src/server/photos/photos.service';
import { activeMember } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// The /profile editor's loader reads the profile with its interests and photos in one query (JSON arrays
// of the database's dialect): it must give exactly what the three separate reads give, types and order included.
describe.each(DIALECTS)('member page loaders (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(dialect); });
  afterAll(() => t.close());

  it('/profile: the profile, its interests and its photos (main first, then by id), as read one by one', async () => {
    const ann = await activeMember(t, 'Annika');
    const db = t.app.db.db;
    const now = t.clock.now();
    await db.insertInto('profile_interests').values([{ profile_id: ann.profileId, interest: 'music' }, { profile_id: ann.profileId, interest: 'travel' }]).execute();
    await db.insertInto('photos').values([
      { profile_id: ann.profileId, filename: 'a.webp', thumb_filename: 'a-t.webp', status: 'active', is_main: 0, created_at: now },
      { profile_id: ann.profileId, filename: 'b "quoted" ünï.webp', thumb_filename: 'b-t.webp', status: 'under inspection', is_main: 1, created_at: now },
      { profile_id: ann.profileId, filename: 'c.webp', thumb_filename: 'c-t.webp', status: 'active', is_main: 0, created_at: now },
    ]).execute();
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
});
