import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { AccountsDeps } from '../accounts/accounts.service';
import type { AppContext } from '../app-context';
import { requestEndpoint, type RequestEndpoint } from '../context/request-context';
import { createApi } from './app';
import { answerEventStream } from './event-stream-route';
import { answerSearch } from './search-fast';
import { answerSend } from './send-fast';
import { answerSessionUser } from './session-user';

/** Wraps the Hono call, e.g. in compression (main.ts); the fast paths never pass through it. */
export type Around = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
/** What a fast path does with an answer it hands on: `around` wraps it as Hono's; `encodes`: `around` is createCompression(). */
export interface AroundHono {
  around: Around;
  encodes: boolean;
}

/**
 * The API as a node:http listener: the calls every open tab keeps making — `GET /api/user.php`,
 * the `/api/events.php` stream, `GET /api/search.php` and `POST /api/messages.php` — answered on node:http, everything else by
 * Hono. Used by the server entry, the multi-process test and bench:chat, so all three run the same paths.
 * `encodesLikeAround`: `around` is createCompression(), so the search fast path may send a shared
 * answer in the brotli/gzip form it would have made (compressed once, not per request).
 */
export function createApiNodeListener(app: AppContext, around: Around = (_req, _res, next) => next(), options: { encodesLikeAround?: boolean } = {}) {
  const hono = getRequestListener(createApi(app).fetch);
  const accounts: AccountsDeps = { app, mailer: app.mailer, limits: app.limits };
  return (req: IncomingMessage, res: ServerResponse, endpoint?: RequestEndpoint) => {
    const at = endpoint ?? requestEndpoint({ headers: req.headers, remoteAddress: req.socket.remoteAddress, encrypted: Boolean((req.socket as { encrypted?: boolean }).encrypted) }, app.config);
    const toHono = () => around(req, res, () => void hono(req, res));
    if (answerSessionUser(accounts, app.sites, req, res, at, toHono)) return;
    if (answerEventStream(accounts, app.sites, req, res, at, toHono)) return;
    const wrap: AroundHono = { around, encodes: options.encodesLikeAround ?? false };
    if (answerSearch(accounts, app.sites, req, res, at, wrap, toHono)) return;
    if (answerSend(accounts, app.sites, req, res, at, wrap, toHono)) return;
    toHono();
  };
}
