import { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import * as v from 'valibot';
import { LOCALES } from '../../../shared/locales';
import type { AppContext } from '../../app-context';
import { authenticationRequired, jsonError } from '../http-errors';
import type { ApiEnv } from '../types';

const LanguageSchema = v.object({ language: v.picklist(LOCALES) });
export const AUTH_COOKIE = 'kd_session';

/** user.php and logout.php. Sessions arrive with the accounts work; until then nobody is logged in. */
export function userRoutes(_app: AppContext) {
  const routes = new Hono<ApiEnv>();

  routes.get('/user.php', (c) => c.json({ user: null }));

  routes.put('/user.php', async (c) => {
    const body = await c.req.json().catch(() => undefined);
    const parsed = v.safeParse(LanguageSchema, body);
    if (!parsed.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    // Saving the language needs a member; visitors keep it in the lang cookie only.
    return authenticationRequired(c);
  });

  routes.get('/logout.php', (c) => {
    deleteCookie(c, AUTH_COOKIE, { path: '/' });
    return c.json({ user: null });
  });

  return routes;
}
