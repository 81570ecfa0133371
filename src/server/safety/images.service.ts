import type { Kysely, Transaction } from 'kysely';
import type { ImageSafety } from '../../shared/chat.contract';
import type { AppContext } from '../app-context';
import type { Database } from '../db/schema';
import { recordEvents } from '../events/events.service';
import { enqueueJob } from '../jobs/job-queue';
import { type ImageVerdict, scoreImage } from './images';

type Q = Kysely<Database> | Transaction<Database>;
export type ImageSubject = 'chat' | 'photo';

/** The job that scores one image. */
export const SCORE_IMAGE_JOB = 'score_image';
/** Scores (and the rows of images never scored) are kept this long, then pruned (issue 26 "Privacy"). */
export const IMAGE_SCORE_RETENTION_MS = 90 * 24 * 3600_000;

/**
 * Queues the scoring of a stored chat image or profile photo, in the transaction that stores it:
 * a 'pending' row and its job (one per image: the job's unique key). Wake the job runners after
 * the commit (wakeJobRunners) so the recipient waits a moment, not a poll interval.
 */
export async function queueImageScore(trx: Q, subject: ImageSubject, subjectId: number, siteId: string, now: number): Promise<void> {
  await trx.insertInto('image_safety_scores').values({ subject, subject_id: subjectId, site_id: siteId, status: 'pending', created_at: now })
    .onConflict((oc) => oc.columns(['subject', 'subject_id']).doNothing()).execute();
  await enqueueJob(trx, { name: SCORE_IMAGE_JOB, uniqueKey: `${SCORE_IMAGE_JOB}:${subject}:${subjectId}`, payload: { subject, id: subjectId }, runAt: now }, now);
}

/** The stored file (under the upload directory) of a chat image or profile photo, if it still exists. */
async function subjectFile(db: Q, subject: ImageSubject, id: number): Promise<{ file: string; conversationId?: number; image?: string } | null> {
  if (subject === 'photo') {
    const photo = await db.selectFrom('photos').select('filename').where('id', '=', id).executeTakeFirst();
    return photo ? { file: photo.filename } : null;
  }
  const message = await db.selectFrom('messages').select(['image', 'conversation_id']).where('id', '=', id).where('kind', '=', 'image').executeTakeFirst();
  if (!message?.image) return null;
  return { file: (JSON.parse(message.image) as { file: string }).file, conversationId: message.conversation_id, image: message.image };
}

/** A chat image's state for the members, from its verdict. */
export const chatImageSafety = (verdict: ImageVerdict): ImageSafety =>
  verdict.status === 'failed' ? 'unchecked' : verdict.explicit ? 'explicit' : 'ok';

/**
 * The `score_image` job: reads the stored image, scores it, keeps the scores and, for a chat image,
 * sets its state on the message and tells both members' open tabs. An image that cannot be read is
 * 'failed' (done, not retried); a model that fails throws, so the runner retries with backoff.
 */
export async function runImageScoreJob(app: AppContext, payload: Record<string, unknown>): Promise<void> {
  const subject = payload.subject === 'photo' ? 'photo' : 'chat';
  const id = Number(payload.id);
  const db = app.db.db;
  const target = await subjectFile(db, subject, id);
  if (!target) {
    // Deleted before it was scored: nothing to keep.
    await db.deleteFrom('image_safety_scores').where('subject', '=', subject).where('subject_id', '=', id).execute();
    return;
  }
  // A missing object is 'failed'; a store that cannot be reached throws, so the runner retries.
  const body = await app.storage.read(target.file);
  const verdict: ImageVerdict = body ? await scoreImage(app.images, body) : { status: 'failed', error: 'file missing' };
  const now = app.clock.now();
  const events = await db.transaction().execute(async (trx) => {
    await trx.updateTable('image_safety_scores')
      .set(verdict.status === 'scored'
        ? { status: 'scored', ...verdict.scores, explicit: verdict.explicit ? 1 : 0, error: null, scored_at: now }
        : { status: 'failed', error: verdict.error.slice(0, 200), scored_at: now })
      .where('subject', '=', subject).where('subject_id', '=', id).execute();
    if (subject !== 'chat' || target.conversationId === undefined || target.image === undefined) return [];
    const safety = chatImageSafety(verdict);
    await trx.updateTable('messages').set({ image: JSON.stringify({ ...JSON.parse(target.image), safety }) }).where('id', '=', id).execute();
    const members = await trx.selectFrom('chat_participants').innerJoin('profiles', 'profiles.id', 'chat_participants.profile_id')
      .select('profiles.user_id').where('chat_participants.conversation_id', '=', target.conversationId).execute();
    return recordEvents(trx, members.flatMap((m) => (m.user_id === null ? [] : [{
      userId: m.user_id, event: { type: 'image_safety' as const, conversation_id: target.conversationId as number, message_id: id, safety },
    }])), now);
  });
  await app.bus.publish(events);
  if (verdict.status === 'failed') app.logger.warn({ subject, id, error: verdict.error }, 'image could not be scored');
}

/** Drops scores past the retention window (run by the hourly prune job). */
export async function pruneImageScores(db: Q, now: number): Promise<void> {
  await db.deleteFrom('image_safety_scores').where('created_at', '<', now - IMAGE_SCORE_RETENTION_MS).execute();
}

/**
 * The moderation queue's photos of one site: explicit ones first, each group oldest first, each with
 * its explicit score (porn + hentai; null until scored). Staff of another site see none of them.
 */
export async function moderationPhotos(db: Q, siteId: string, limit = 100) {
  const rows = await db.selectFrom('photos').innerJoin('profiles', 'profiles.id', 'photos.profile_id')
    .leftJoin('image_safety_scores as s', (join) => join.onRef('s.subject_id', '=', 'photos.id').on('s.subject', '=', 'photo'))
    .select(['photos.id', 'photos.thumb_filename', 'profiles.name', 'profiles.id as profile_id', 's.explicit', 's.porn', 's.hentai'])
    .select((eb) => eb.fn.coalesce('s.explicit', eb.lit(0)).as('explicit_first'))
    .where('profiles.site_id', '=', siteId).where('photos.status', '=', 'under inspection')
    .orderBy('explicit_first', 'desc').orderBy('photos.id')
    .limit(limit).execute();
  return rows.map(({ explicit, porn, hentai, explicit_first: _, ...photo }) => ({
    ...photo,
    explicit: explicit === 1,
    explicit_score: porn === null || hentai === null ? null : Math.min(1, Number(porn) + Number(hentai)),
  }));
}
