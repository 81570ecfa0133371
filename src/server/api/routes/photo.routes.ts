import { Hono } from 'hono';
import * as v from 'valibot';
import { INTERESTS } from '../../../shared/profile-options';
import type { AppContext } from '../../app-context';
import { deletePhoto, listOwnPhotos, moderatePhoto, setMainPhoto, uploadPhoto } from '../../photos/photos.service';
import { profileIdOf } from '../../profiles/profiles.service';
import { jsonError } from '../http-errors';
import { audit, findStaff, requirePermission } from '../../admin/staff.service';
import { handler, requireUser, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';
import { IdSchema } from '../../../shared/ids';

const PhotoId = v.object({ photo_id: IdSchema });
const Interests = v.object({ interests: v.pipe(v.array(v.picklist(INTERESTS)), v.maxLength(INTERESTS.length)) });
const Moderation = v.union([
  v.object({ photo_id: IdSchema, decision: v.picklist(['approve', 'reject']) }),
  v.object({ report_id: IdSchema, decision: v.literal('resolve') }),
]);

/** Photos (upload, main, delete), interests, the member's own profile, and moderation for staff. */
export function photoRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  const db = app.db.db;

  // POST /api/photos.php — the image itself is the body (image/jpeg, png, webp or heic).
  routes.post('/photos.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    try {
      return c.json({ photo: await uploadPhoto(app, c.var.user!, Buffer.from(await c.req.arrayBuffer())) }, 201);
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });
  routes.delete('/photos.php', handler({ member: true, schema: PhotoId }, async (c, body, user) => {
    await deletePhoto(app, user, body.photo_id);
    return c.json({ deleted: true });
  }));
  routes.put('/photo-main.php', handler({ member: true, schema: PhotoId }, async (c, body, user) => {
    await setMainPhoto(app, user, body.photo_id);
    return c.json({ main: body.photo_id });
  }));

  routes.get('/my-profile.php', handler({ member: true }, async (c, _body, user) => {
    const profile = await db.selectFrom('profiles').selectAll().where('user_id', '=', user.id).executeTakeFirst();
    if (!profile) return jsonError(c, 404, 'not_found', 'error.not_found');
    const interests = await db.selectFrom('profile_interests').select('interest').where('profile_id', '=', profile.id).execute();
    return c.json({ profile, interests: interests.map((i) => i.interest), photos: await listOwnPhotos(app, profile.id) });
  }));

  routes.put('/interests.php', handler({ member: true, schema: Interests }, async (c, body, user) => {
    const profileId = await profileIdOf(db, user);
    if (profileId === null) return jsonError(c, 404, 'not_found', 'error.not_found');
    const unique = [...new Set(body.interests)];
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('profile_interests').where('profile_id', '=', profileId).execute();
      if (unique.length) await trx.insertInto('profile_interests').values(unique.map((interest) => ({ profile_id: profileId, interest }))).execute();
    });
    return c.json({ interests: unique });
  }));

  // Staff with the moderation right (second factor passed): approve or reject photos, resolve reports. Audited.
  routes.post('/moderation.php', handler({ member: true, schema: Moderation }, async (c, body) => {
    const staff = requirePermission(await findStaff(app, c.var.ctx.site, c.var.user, c.var.sessionToken, c.var.ip), 'moderation');
    const siteId = c.var.ctx.site.id;
    const now = app.clock.now();
    if ('photo_id' in body) {
      await moderatePhoto(app, siteId, body.photo_id, body.decision, (trx) =>
        audit(trx, staff, now, { action: `photo_${body.decision}`, targetType: 'photo', targetId: body.photo_id, before: { status: 'under inspection' }, after: { status: body.decision === 'approve' ? 'active' : 'rejected' } }));
    } else {
      const done = await db.transaction().execute(async (trx) => {
        const resolved = await trx
          .updateTable('reports')
          .set({ status: 'resolved' })
          .where('id', '=', body.report_id)
          .where('status', '=', 'open')
          .where('profile_id', 'in', (eb) => eb.selectFrom('profiles').select('id').where('site_id', '=', siteId))
          .returning('id')
          .executeTakeFirst();
        if (resolved) await audit(trx, staff, now, { action: 'report_resolve', targetType: 'report', targetId: body.report_id, before: { status: 'open' }, after: { status: 'resolved' } });
        return resolved;
      });
      if (!done) return jsonError(c, 404, 'not_found', 'error.not_found');
    }
    return c.json({ done: true });
  }));

  return routes;
}
