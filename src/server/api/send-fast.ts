import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AroundHono } from './node-listener';
import * as v from 'valibot';
import { SendMessageSchema } from '../../shared/chat.contract';
import { type AccountsDeps, memberForSession } from '../accounts/accounts.service';
import { recordDailyActive } from '../admin/stats.service';
import { sendMessageFast } from '../chat/send-fast';
import type { RequestEndpoint } from '../context/request-context';
import { cookieValue } from '../context/request-context';
import type { SiteRegistry } from '../sites/site-registry';
import { COMPRESS_THRESHOLD } from './compression';
import { AUTH_COOKIE } from './session';

const PATH = '/api/messages.php';
const JSON_TYPE = /^application\/json\s*(;|$)/i;
const LENGTH = /^\d{1,10}$/;

/**
 * `POST /api/messages.php` (a text or gift) straight on node:http, on SQLite: the send itself runs a
 * few prepared statements (src/server/chat/send-fast.ts) instead of the Hono pipeline and about 22
 * Kysely-built queries. The answer is the route's (chat.routes.ts): 201 with the same JSON, after the
 * same session lookup (session cache), daily-active record, rules, charge, events, notices, the
 * session-cache invalidation every member's write makes (session.ts) and `durable()` (app.ts).
 *
 * Everything unusual goes to Hono, which answers it translated: PostgreSQL, a query string, an
 * unknown host, a cross-site or not-plainly-same-site request, a body that is not JSON or is above
 * the limit or chunked, invalid input, no session, a staff account, every refusal of a rule (no
 * credits, blocks, limits, unknown or other members' conversations, …) and any error before the
 * commit. A body already read is handed on as `rawBody`. Returns false when it did not take the request.
 */
export function answerSend(
  deps: AccountsDeps,
  sites: SiteRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: RequestEndpoint,
  wrap: AroundHono,
  fallback: () => void,
): boolean {
  if (req.method !== 'POST' || req.url !== PATH) return false;
  const { app } = deps;
  const h = req.headers;
  if (app.db.dialect !== 'sqlite' || !sites.knowsHost(endpoint.host)) return false;
  // security.ts requireSameOriginJson, the plain cases only: Sec-Fetch-Site same-origin/none, or neither
  // it nor Origin (not a browser). An Origin to compare, or a cross-site request, goes to Hono.
  const fetchSite = h['sec-fetch-site'];
  if (fetchSite !== undefined ? fetchSite !== 'same-origin' && fetchSite !== 'none' : h.origin !== undefined) return false;
  if (!JSON_TYPE.test(h['content-type'] ?? '') || h['transfer-encoding'] !== undefined) return false;
  const length = h['content-length'];
  if (length === undefined || !LENGTH.test(length) || Number(length) === 0 || Number(length) > app.config.bodyLimitBytes) return false;
  const token = cookieValue(h.cookie, AUTH_COOKIE);
  if (!token) return false;

  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', () => undefined);
  req.on('end', () => {
    const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    /** To Hono with the body already read (@hono/node-server reads `rawBody`). */
    const toHono = () => {
      (req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
      fallback();
    };
    let input: v.InferOutput<typeof SendMessageSchema>;
    try {
      const parsed = v.safeParse(SendMessageSchema, JSON.parse(raw.toString('utf8')));
      if (!parsed.success) return toHono();
      input = parsed.output;
    } catch {
      return toHono();
    }
    const site = sites.forHost(endpoint.host);
    let committed = false;
    (async () => {
      const member = await memberForSession(deps, site, token);
      const user = member?.user;
      if (!member || !user || user.role !== 'member') return null;
      // As app.ts: every member's call counts the day's activity.
      recordDailyActive(app.db, user.site_id, user.id, app.clock.now());
      const sent = await sendMessageFast(app, site, user, input);
      if (!sent) return null;
      committed = true;
      // session.ts invalidates a member's cached session after each write: here the send patched it in
      // this process, and its publish made every other process drop it. As app.ts: the answer leaves
      // once it is on disk.
      await app.db.durable();
      return JSON.stringify(sent);
    })().then(
      (json) => {
        if (json === null) return toHono();
        const bytes = Buffer.byteLength(json);
        const send = () => {
          res.writeHead(201, {
            'cache-control': 'no-store', 'content-type': 'application/json', 'Content-Length': bytes, ...(wrap.encodes ? { Vary: 'Accept-Encoding' } : {}),
          });
          res.end(json);
        };
        // A long text makes an answer the compression middleware would compress: it goes through it.
        if (bytes >= COMPRESS_THRESHOLD) wrap.around(req, res, send);
        else send();
      },
      (err) => {
        if (res.headersSent) return void res.end();
        // Stored or not, the route answers it: a repeated client_id is answered from the stored message, charged once.
        app.logger.warn({ err, committed }, 'send fast path failed; answering through the API');
        toHono();
      },
    );
  });
  return true;
}
