import { Hono } from 'hono';
import type { AppContext } from '../../app-context';
import { PhotoError, uploadPhoto } from '../../photos/photos.service';
import { requireUser, sessionMiddleware } from '../session';
import type { ApiEnv } from '../types';

/** POST /api/photos.php — the image itself is the body (image/jpeg, png, webp or heic). */
export function photoRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  routes.use('/photos.php', sessionMiddleware({ app, mailer: app.mailer, limits: app.limits }));
  routes.post('/photos.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    try {
      const photo = await uploadPhoto(app, c.var.user!, Buffer.from(await c.req.arrayBuffer()));
      return c.json({ photo }, 201);
    } catch (err) {
      if (!(err instanceof PhotoError)) throw err;
      return c.json({ error: err.code, message: c.var.t(err.key, err.params) }, err.status);
    }
  });
  return routes;
}
