import { Hono } from 'hono';
import type { AppContext } from '../../app-context';
import { uploadPhoto } from '../../photos/photos.service';
import { requireUser, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';

/** POST /api/photos.php — the image itself is the body (image/jpeg, png, webp or heic). */
export function photoRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  routes.post('/photos.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    try {
      const photo = await uploadPhoto(app, c.var.user!, Buffer.from(await c.req.arrayBuffer()));
      return c.json({ photo }, 201);
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });
  return routes;
}
