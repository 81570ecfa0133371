import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { AccountsDeps } from '../accounts/accounts.service';
import type { AppContext } from '../app-context';
import { requestEndpoint, type RequestEndpoint } from '../context/request-context';
import { createApi } from './app';
import { answerEventStream } from './event-stream-route';
import { answerSessionUser } from './session-user';

/** Wraps the Hono call, e.g. in compression (main.ts). */
export type Around = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * The API as a node:http listener: every call is answered by the Hono app (src/server/api/app.ts), but
 * for the two that hold no rule of their own — `GET /api/user.php` (the session's member, as the
 * session middleware describes it) and the `/api/events.php` stream, which stays open for the tab's
 * life and so is written on node:http directly. Used by the server entry, the multi-process test and
 * bench:chat, so all three run the same paths.
 */
export function createApiNodeListener(app: AppContext, around: Around = (_req, _res, next) => next()) {
  const hono = getRequestListener(createApi(app).fetch);
  const accounts: AccountsDeps = { app, mailer: app.mailer, limits: app.limits };
  return (req: IncomingMessage, res: ServerResponse, endpoint?: RequestEndpoint) => {
    const at = endpoint ?? requestEndpoint({ headers: req.headers, remoteAddress: req.socket.remoteAddress, encrypted: Boolean((req.socket as { encrypted?: boolean }).encrypted) }, app.config);
    const toHono = () => around(req, res, () => void hono(req, res));
    if (answerSessionUser(accounts, app.sites, req, res, at, toHono)) return;
    if (answerEventStream(accounts, app.sites, req, res, at, toHono)) return;
    toHono();
  };
}
