import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AccountsDeps, memberForSession } from '../accounts/accounts.service';
import { recordDailyActive } from '../admin/stats.service';
import { cookieValue, type RequestEndpoint } from '../context/request-context';
import { EVENTS_PATH, openEventStream, resumePoint } from '../events/event-stream';
import type { SiteRegistry } from '../sites/site-registry';
import { AUTH_COOKIE } from './session';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-store',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * `GET /api/events.php` straight on node:http: frames go into the node response with `res.write`,
 * not through Hono's web-stream layer, which held about 20 KB of heap per open tab (bench:chat).
 * A request without a valid session, and any failure before the stream starts, goes the normal
 * way (Hono answers 403 authentication_required). The node entry has already set the security
 * headers and checked the host. Returns false when the request is not for the stream.
 */
export function answerEventStream(
  deps: AccountsDeps, sites: SiteRegistry, req: IncomingMessage, res: ServerResponse, endpoint: RequestEndpoint, fallback: () => void,
): boolean {
  const url = req.url ?? '';
  if (req.method !== 'GET' || !url.startsWith(EVENTS_PATH) || (url.length > EVENTS_PATH.length && url[EVENTS_PATH.length] !== '?')) return false;
  const token = cookieValue(req.headers.cookie, AUTH_COOKIE);
  if (!token) {
    fallback();
    return true;
  }
  const site = sites.forHost(endpoint.host);
  memberForSession(deps, site, token).then((member) => {
    if (!member) return fallback();
    if (res.destroyed) return;
    const { app } = deps;
    if (member.user.role === 'member') recordDailyActive(app.db, member.user.site_id, member.user.id, app.clock.now());
    const query = url.indexOf('?');
    const resumeFrom = resumePoint(req.headers['last-event-id'], query === -1 ? null : new URLSearchParams(url.slice(query + 1)).get('last_event_id'));
    res.writeHead(200, SSE_HEADERS);
    // Frames are small and must leave at once.
    req.socket.setNoDelay(true);
    const stream = openEventStream(app, member.user.id, resumeFrom, { write: (chunk) => void res.write(chunk), end: () => void res.end() });
    res.once('close', stream.close);
    stream.ready.catch((err) => {
      app.logger.warn({ err }, 'event stream failed');
      stream.close();
      res.end();
    });
  }, fallback);
  return true;
}
