import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { FREE_PHOTOS, PREMIUM_PHOTOS } from '../../shared/constants';
import type { AppContext } from '../app-context';
import { concurrencyLimit } from '../util/concurrency';
import { RuleError } from '../rule-error';
import type { Expression, Kysely, Transaction } from 'kysely';
import { lockMember } from '../db/locks';
import type { Database, Photo, User } from '../db/schema';
import { wakeJobRunners } from '../jobs/job-runner';
import { queueImageScore } from '../safety/images.service';

import { MAX_PIXELS, PHOTO_MAX_BYTES } from './photo-limits';

export { MAX_PIXELS, PHOTO_MAX_BYTES };
const FORMATS = new Set(['jpeg', 'png', 'webp', 'heif']);

/**
 * Images decoded at once (PHOTO_DECODE_CONCURRENCY): a 40-megapixel decode takes ~160 MB, so a
 * burst of uploads waits in line instead of multiplying the process memory.
 */
const withDecodeSlot = concurrencyLimit(Math.max(1, Number(process.env.PHOTO_DECODE_CONCURRENCY ?? 2)));
/** Photo and chat-image decodes running and waiting for a slot in this process (/metrics). */
export const photoDecodeLoad = () => withDecodeSlot.load();
// libvips' operation cache keeps decoded pixels around; uploads are never decoded twice.
sharp.cache(false);

/** A photo rule said no. */
export class PhotoError extends RuleError {}

/**
 * Re-encodes an uploaded image to WebP (at most 1600 px, and a 320 px square thumbnail) without
 * EXIF, GPS or ICC data; refuses unknown formats, corrupt files and decompression bombs.
 */
export async function encodeImage(body: Buffer): Promise<{ main: Buffer; thumb: Buffer; width: number; height: number }> {
  if (body.length === 0) throw new PhotoError('photo_invalid', 'photos.invalid', 400);
  if (body.length > PHOTO_MAX_BYTES) throw new PhotoError('photo_too_large', 'photos.too_large', 413, { mb: PHOTO_MAX_BYTES / 1024 / 1024 });
  return withDecodeSlot(() => decodeAndEncode(body));
}

async function decodeAndEncode(body: Buffer): Promise<{ main: Buffer; thumb: Buffer; width: number; height: number }> {
  try {
    const image = sharp(body, { limitInputPixels: MAX_PIXELS, failOn: 'error' });
    const meta = await image.metadata();
    if (!meta.format || !FORMATS.has(meta.format)) throw new PhotoError('photo_type', 'photos.type', 415);
    // sharp drops all metadata (EXIF, GPS, ICC) unless asked to keep it; rotate() applies the orientation first.
    const { data: main, info } = await sharp(body, { limitInputPixels: MAX_PIXELS }).rotate().resize(1600, 1600, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 82 }).toBuffer({ resolveWithObject: true });
    const thumb = await sharp(body, { limitInputPixels: MAX_PIXELS }).rotate().resize(320, 320, { fit: 'cover' }).webp({ quality: 75 }).toBuffer();
    return { main, thumb, width: info.width, height: info.height };
  } catch (err) {
    if (err instanceof PhotoError) throw err;
    throw new PhotoError('photo_invalid', 'photos.invalid', 400);
  }
}

/** Photos a profile holds against its limit (rejected ones do not count). */
async function countPhotos(db: Kysely<Database> | Transaction<Database>, profileId: number) {
  const row = await db.selectFrom('photos').select((eb) => eb.fn.countAll<number>().as('n')).where('profile_id', '=', profileId).where('status', '!=', 'rejected').executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Stores a member's photo: re-encoded to WebP (main image and thumbnail) without EXIF or GPS,
 * 'under inspection' until a moderator approves it; the first one becomes the main image.
 */
export async function uploadPhoto(app: AppContext, user: User, body: Buffer) {
  const db = app.db.db;
  const profile = await db.selectFrom('profiles').select(['id']).where('user_id', '=', user.id).executeTakeFirst();
  if (!profile) throw new PhotoError('no_profile', 'error.invalid_input', 400);
  await app.abuse.consume('upload_hour', String(user.id));
  const limit = user.paid_user ? PREMIUM_PHOTOS : FREE_PHOTOS;
  const limitError = () => new PhotoError('photo_limit', user.paid_user ? 'photos.limit_premium' : 'photos.limit_free', 409, { limit });
  // Refused early without decoding; the transaction below decides.
  if ((await countPhotos(db, profile.id)) >= limit) throw limitError();
  const { main, thumb } = await encodeImage(body);

  const name = randomBytes(12).toString('hex');
  const filename = `photos/${profile.id}/${name}.webp`;
  const thumbFilename = `photos/${profile.id}/${name}-thumb.webp`;
  const written: string[] = [];
  try {
    for (const [file, data] of [[filename, main], [thumbFilename, thumb]] as const) {
      written.push(file);
      await app.storage.put(file, data, 'image/webp');
    }
    const stored = await db.transaction().execute(async (trx) => {
      // Counted again under the member's lock: parallel uploads cannot pass the limit.
      await lockMember(trx, app.db.dialect, user.id);
      if ((await countPhotos(trx, profile.id)) >= limit) throw limitError();
      const hasMain = await trx.selectFrom('photos').select('id').where('profile_id', '=', profile.id).where('is_main', '=', 1).executeTakeFirst();
      const photo = await trx
        .insertInto('photos')
        .values({ profile_id: profile.id, filename, thumb_filename: thumbFilename, status: 'under inspection', is_main: hasMain ? 0 : 1, created_at: app.clock.now() })
        .returning(['id', 'filename', 'thumb_filename', 'status', 'is_main'])
        .executeTakeFirstOrThrow();
      // Scored by a job: an explicit photo goes to the front of the moderation queue.
      await queueImageScore(trx, 'photo', photo.id, user.site_id, app.clock.now());
      return photo;
    });
    wakeJobRunners();
    return stored;
  } catch (err) {
    await app.storage.delete(written).catch((cleanup) => app.logger.warn({ err: cleanup, files: written }, 'could not remove the files of a failed upload'));
    throw err;
  }
}

/** Re-derives a profile's has_photo flag (approved main photo) after a photo change. */
async function refreshHasPhoto(app: AppContext, profileId: number) {
  await app.db.db
    .updateTable('profiles')
    .set((eb) => ({
      has_photo: eb
        .case()
        .when(eb.exists(eb.selectFrom('photos').select('photos.id').where('photos.profile_id', '=', profileId).where('photos.is_main', '=', 1).where('photos.status', '=', 'active')))
        .then(1)
        .else(0)
        .end(),
    }))
    .where('id', '=', profileId)
    .execute();
}

async function ownPhoto(app: AppContext, user: User, photoId: number) {
  const photo = await app.db.db
    .selectFrom('photos')
    .innerJoin('profiles', 'profiles.id', 'photos.profile_id')
    .select(['photos.id', 'photos.profile_id', 'photos.filename', 'photos.thumb_filename', 'photos.is_main'])
    .where('photos.id', '=', photoId)
    .where('profiles.user_id', '=', user.id)
    .executeTakeFirst();
  if (!photo) throw new PhotoError('not_found', 'error.not_found', 404);
  return photo;
}

/** Makes one of the member's photos the main image. */
export async function setMainPhoto(app: AppContext, user: User, photoId: number) {
  const photo = await ownPhoto(app, user, photoId);
  await app.db.db.transaction().execute(async (trx) => {
    await trx.updateTable('photos').set({ is_main: 0 }).where('profile_id', '=', photo.profile_id).execute();
    await trx.updateTable('photos').set({ is_main: 1 }).where('id', '=', photo.id).execute();
  });
  await refreshHasPhoto(app, photo.profile_id);
}

/**
 * Deletes one of the member's photos and its objects; the next photo becomes main if needed. The
 * objects go first: when the store cannot be reached the member gets an error and keeps the photo,
 * rather than a deleted photo whose image stays stored.
 */
export async function deletePhoto(app: AppContext, user: User, photoId: number) {
  const photo = await ownPhoto(app, user, photoId);
  await app.storage.delete([...new Set([photo.filename, photo.thumb_filename])]);
  await app.db.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('photos').where('id', '=', photo.id).execute();
    if (photo.is_main) {
      const next = await trx.selectFrom('photos').select('id').where('profile_id', '=', photo.profile_id).where('status', '!=', 'rejected').orderBy('id').executeTakeFirst();
      if (next) await trx.updateTable('photos').set({ is_main: 1 }).where('id', '=', next.id).execute();
    }
  });
  await refreshHasPhoto(app, photo.profile_id);
}

/** The photo row (with its profile's owner and site) that owns a file name under the upload directory. */
export function photoFileOwner(db: AppContext['db']['db'], file: string) {
  return db
    .selectFrom('photos')
    .innerJoin('profiles', 'profiles.id', 'photos.profile_id')
    .select(['photos.status', 'profiles.user_id', 'profiles.site_id'])
    .where((eb) => eb.or([eb('photos.filename', '=', file), eb('photos.thumb_filename', '=', file)]))
    .executeTakeFirst();
}

/** Removes a photo's main and thumbnail objects (a missing one is fine; the row is gone already, so a failure is logged). */
async function deletePhotoFiles(app: AppContext, photo: { filename: string; thumb_filename: string }) {
  const keys = [...new Set([photo.filename, photo.thumb_filename])];
  await app.storage.delete(keys).catch((err) => app.logger.error({ err, keys }, 'could not delete the objects of a deleted photo'));
}

/** The member's own photos in every state. */
export function listOwnPhotos(app: AppContext, profileId: number): Promise<OwnPhoto[]> {
  return ownPhotosQuery(app.db.db, profileId).execute();
}
/** A member's photos as their editor lists them, main first (a profile id, or a reference to one in an outer query). */
export function ownPhotosQuery(db: Kysely<Database>, profileId: number | Expression<number>) {
  return db.selectFrom('photos').select(['id', 'filename', 'thumb_filename', 'status', 'is_main']).where('profile_id', '=', profileId).orderBy('is_main', 'desc').orderBy('id');
}
export interface OwnPhoto { id: number; filename: string; thumb_filename: string; status: Photo['status']; is_main: number }

/** Moderation: approve ('active', public) or reject a photo of this site waiting for inspection. */
export async function moderatePhoto(
  app: AppContext, siteId: string, photoId: number, decision: 'approve' | 'reject', record: (trx: Transaction<Database>) => Promise<void> = async () => undefined,
) {
  // The decision and its record (the staff audit) are one transaction; files go once it is committed.
  const updated = await app.db.db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('photos')
      .set({ status: decision === 'approve' ? 'active' : 'rejected', ...(decision === 'reject' ? { is_main: 0 } : {}) })
      .where('id', '=', photoId)
      .where('status', '=', 'under inspection')
      // Staff rights are per site: a photo of another site is unknown here.
      .where('profile_id', 'in', (eb) => eb.selectFrom('profiles').select('id').where('site_id', '=', siteId))
      .returning(['id', 'profile_id', 'filename', 'thumb_filename'])
      .executeTakeFirst();
    if (!row) return null;
    if (decision === 'reject') {
      const hasMain = await trx.selectFrom('photos').select('id').where('profile_id', '=', row.profile_id).where('is_main', '=', 1).executeTakeFirst();
      if (!hasMain) {
        const next = await trx.selectFrom('photos').select('id').where('profile_id', '=', row.profile_id).where('status', '!=', 'rejected').orderBy('id').executeTakeFirst();
        if (next) await trx.updateTable('photos').set({ is_main: 1 }).where('id', '=', next.id).execute();
      }
    }
    await record(trx);
    return row;
  });
  if (!updated) throw new PhotoError('not_found', 'error.not_found', 404);
  // A rejected photo is never shown to anyone again: its files go at once.
  if (decision === 'reject') await deletePhotoFiles(app, updated);
  await refreshHasPhoto(app, updated.profile_id);
}
