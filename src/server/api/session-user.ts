import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AccountsDeps, memberForSession, sessionUserBody } from '../accounts/accounts.service';
import type { RequestEndpoint } from '../context/request-context';
import { cookieValue } from '../context/request-context';
import type { SiteRegistry } from '../sites/site-registry';
import { AUTH_COOKIE } from './session';

const NO_USER = '{"user":null}';

/**
 * `GET /api/user.php` (no query string) straight on node:http: every open tab asks it, so it skips
 * the Hono pipeline. The answer is byte for byte the route's (account.routes.ts) — same session
 * lookup through the session cache, same body, same headers; the node entry has already set the
 * security headers and checked the host. A query string (tracking parameters) or an error goes the
 * normal way. Returns false when it did not answer.
 */
export function answerSessionUser(
  deps: AccountsDeps, sites: SiteRegistry, req: IncomingMessage, res: ServerResponse, endpoint: RequestEndpoint, fallback: () => void,
): boolean {
  if (req.method !== 'GET' || req.url !== '/api/user.php') return false;
  const site = sites.forHost(endpoint.host);
  const token = cookieValue(req.headers.cookie, AUTH_COOKIE);
  const send = (body: string) => {
    // Below the 1 KB compression threshold in practice; a longer answer goes through the compressing path.
    if (body.length > 1000) return fallback();
    res.writeHead(200, { 'cache-control': 'no-store', 'content-type': 'application/json', 'Content-Length': Buffer.byteLength(body), Vary: 'Accept-Encoding' });
    res.end(body);
  };
  if (!token) {
    send(NO_USER);
    return true;
  }
  memberForSession(deps, site, token)
    .then((member) => (member ? sessionUserBody(deps, site, member) : NO_USER))
    .then(send, fallback);
  return true;
}
