import { randomBytes } from 'node:crypto';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { FREE_PHOTOS, PREMIUM_PHOTOS } from '../../shared/constants';
import type { AppContext } from '../app-context';
import { RuleError } from '../rule-error';
import type { User } from '../db/schema';

export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
/** Larger images are refused before decoding: guards against decompression bombs. */
const MAX_PIXELS = 40_000_000;
const FORMATS = new Set(['jpeg', 'png', 'webp', 'heif']);

/** A photo rule said no. */
export class PhotoError extends RuleError {}

/**
 * Stores a member's photo: re-encoded to WebP (main image and thumbnail) without EXIF or GPS,
 * 'under inspection' until a moderator approves it; the first one becomes the main image.
 */
export async function uploadPhoto(app: AppContext, user: User, body: Buffer) {
  const db = app.db.db;
  const profile = await db.selectFrom('profiles').select(['id']).where('user_id', '=', user.id).executeTakeFirst();
  if (!profile) throw new PhotoError('no_profile', 'error.invalid_input', 400);
  const limit = user.paid_user ? PREMIUM_PHOTOS : FREE_PHOTOS;
  const count = await db.selectFrom('photos').select((eb) => eb.fn.countAll<number>().as('n')).where('profile_id', '=', profile.id).where('status', '!=', 'rejected').executeTakeFirstOrThrow();
  if (Number(count.n) >= limit) throw new PhotoError('photo_limit', user.paid_user ? 'photos.limit_premium' : 'photos.limit_free', 409, { limit });
  if (body.length === 0) throw new PhotoError('photo_invalid', 'photos.invalid', 400);
  if (body.length > PHOTO_MAX_BYTES) throw new PhotoError('photo_too_large', 'photos.too_large', 413, { mb: PHOTO_MAX_BYTES / 1024 / 1024 });

  let main: Buffer;
  let thumb: Buffer;
  try {
    const image = sharp(body, { limitInputPixels: MAX_PIXELS, failOn: 'error' });
    const meta = await image.metadata();
    if (!meta.format || !FORMATS.has(meta.format)) throw new PhotoError('photo_type', 'photos.type', 415);
    // sharp drops all metadata (EXIF, GPS, ICC) unless asked to keep it; rotate() applies the orientation first.
    main = await sharp(body, { limitInputPixels: MAX_PIXELS }).rotate().resize(1600, 1600, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 82 }).toBuffer();
    thumb = await sharp(body, { limitInputPixels: MAX_PIXELS }).rotate().resize(320, 320, { fit: 'cover' }).webp({ quality: 75 }).toBuffer();
  } catch (err) {
    if (err instanceof PhotoError) throw err;
    throw new PhotoError('photo_invalid', 'photos.invalid', 400);
  }

  const dir = path.join(app.config.uploadDir, 'photos', String(profile.id));
  const name = randomBytes(12).toString('hex');
  const filename = `photos/${profile.id}/${name}.webp`;
  const thumbFilename = `photos/${profile.id}/${name}-thumb.webp`;
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  try {
    for (const [file, data] of [[filename, main], [thumbFilename, thumb]] as const) {
      await writeFile(path.join(app.config.uploadDir, file), data);
      written.push(file);
    }
    return await db.transaction().execute(async (trx) => {
      const hasMain = await trx.selectFrom('photos').select('id').where('profile_id', '=', profile.id).where('is_main', '=', 1).executeTakeFirst();
      return trx
        .insertInto('photos')
        .values({ profile_id: profile.id, filename, thumb_filename: thumbFilename, status: 'under inspection', is_main: hasMain ? 0 : 1, created_at: app.clock.now() })
        .returning(['id', 'filename', 'thumb_filename', 'status', 'is_main'])
        .executeTakeFirstOrThrow();
    });
  } catch (err) {
    await Promise.all(written.map((file) => unlink(path.join(app.config.uploadDir, file)).catch(() => undefined)));
    throw err;
  }
}
