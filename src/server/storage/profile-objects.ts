import type { AppContext } from '../app-context';

/**
 * Deletes every stored object of these profiles, before an erasure removes their rows: their photos
 * and thumbnails (and anything left under `photos/<id>/`), and the chat images of their
 * conversations, which go with the profile (the partner's copy of those conversations too).
 * Throws when the store cannot be reached, so the erasure waits for the next run. Returns how many keys were asked to go.
 */
export async function deleteProfileObjects(app: AppContext, profileIds: readonly number[]): Promise<number> {
  if (profileIds.length === 0) return 0;
  const db = app.db.db;
  const photos = await db.selectFrom('photos').select(['filename', 'thumb_filename']).where('profile_id', 'in', profileIds).execute();
  const images = await db
    .selectFrom('messages')
    .select('image')
    .where('kind', '=', 'image')
    .where('conversation_id', 'in', (eb) =>
      eb.selectFrom('conversations').select('id').where((w) => w.or([w('profile_low_id', 'in', profileIds), w('profile_high_id', 'in', profileIds)])))
    .execute();
  const keys = new Set<string>();
  for (const p of photos) {
    keys.add(p.filename);
    keys.add(p.thumb_filename);
  }
  for (const { image } of images) {
    if (!image) continue;
    const parsed = JSON.parse(image) as { file?: string; thumb?: string };
    if (parsed.file) keys.add(parsed.file);
    if (parsed.thumb) keys.add(parsed.thumb);
  }
  await app.storage.delete([...keys]);
  let leftovers = 0;
  for (const id of profileIds) leftovers += await app.storage.deletePrefix(`photos/${id}/`);
  return keys.size + leftovers;
}
