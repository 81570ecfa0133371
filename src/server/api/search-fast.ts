import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AroundHono } from './node-listener';
import * as v from 'valibot';
import { type SearchQuery, SearchQuerySchema } from '../../shared/profiles.contract';
import { decodeTracking, TRACKING_COOKIE } from '../../shared/tracking';
import { type AccountsDeps, memberForSession } from '../accounts/accounts.service';
import { recordDailyActive } from '../admin/stats.service';
import type { RequestEndpoint } from '../context/request-context';
import { parseCookies } from '../context/request-context';
import { type SharedBody, searchProfiles, visitorSearchBody } from '../profiles/profiles.service';
import type { SiteRegistry } from '../sites/site-registry';
import { COMPRESS_THRESHOLD, compressOnce, plainEncoding } from './compression';
import { AUTH_COOKIE } from './session';

const PATH = '/api/search.php';
const FILTER_KEYS = new Set(['gender', 'country', 'countryregion', 'min_age', 'max_age', 'page']);
/** Values that read the same however a query string is decoded (no %, no +). */
const PLAIN_VALUE = /^[A-Za-z0-9-]{0,64}$/;
/** Parsed filters per query string (false: not plain, or not valid — the Hono route answers those). */
const parsed = new Map<string, SearchQuery | false>();

/**
 * The filters of a plain search query string: every key a filter, once, every value plain, valid for
 * SearchQuerySchema. Anything else (tracking parameters, escapes, repeats, invalid input) is false
 * and goes through Hono, which parses it, keeps the tracking and answers errors translated.
 */
export function plainSearchFilters(query: string): SearchQuery | false {
  const hit = parsed.get(query);
  if (hit !== undefined) return hit;
  let result: SearchQuery | false = false;
  const input: Record<string, string> = {};
  let plain = true;
  for (const part of query === '' ? [] : query.split('&')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (eq < 1 || !FILTER_KEYS.has(key) || key in input || !PLAIN_VALUE.test(value)) {
      plain = false;
      break;
    }
    input[key] = value;
  }
  if (plain) {
    const filters = v.safeParse(SearchQuerySchema, input);
    if (filters.success) result = Object.freeze(filters.output);
  }
  if (parsed.size > 10_000) parsed.clear();
  parsed.set(query, result);
  return result;
}

/**
 * `GET /api/search.php` straight on node:http: the member list asks it on every filter change and
 * page, and a visitor's answer is one cached string (profiles.service.ts visitorSearchBody), so the
 * Hono pipeline was most of its cost. The answer is byte for byte the route's (profile.routes.ts):
 * same session lookup through the session cache, same daily-active record, same rule for logged-out
 * search, same body and headers (the node entry has already set the security headers and checked
 * the host). Tracking parameters, any other query, a refusal or an error go the normal way.
 * Returns false when it did not answer.
 */
export function answerSearch(
  deps: AccountsDeps,
  sites: SiteRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: RequestEndpoint,
  wrap: AroundHono,
  fallback: () => void,
): boolean {
  const url = req.url ?? '';
  if (req.method !== 'GET' || !url.startsWith(PATH) || (url.length > PATH.length && url[PATH.length] !== '?')) return false;
  const filters = plainSearchFilters(url.slice(PATH.length + 1));
  // An unknown host gets Hono's 421 (the server entry refuses it before, other listeners may not).
  if (!filters || !sites.knowsHost(endpoint.host)) return false;
  const { app } = deps;
  const site = sites.forHost(endpoint.host);
  const cookies = parseCookies(req.headers.cookie);
  const token = cookies[AUTH_COOKIE];
  const send = (body: string | SharedBody) => {
    const json = typeof body === 'string' ? body : body.json;
    const length = Buffer.byteLength(json);
    const write = () => {
      res.writeHead(200, { 'cache-control': 'no-store', 'content-type': 'application/json', 'Content-Length': length, Vary: 'Accept-Encoding' });
      res.end(json);
    };
    // What the API's compression does: only a body above its threshold, for a client that asks.
    // Without createCompression around (tests, benches), the answer goes through `around` as Hono's would.
    const encoding = !wrap.encodes ? undefined : length < COMPRESS_THRESHOLD ? null : plainEncoding(req.headers['accept-encoding']);
    if (encoding === null) return write();
    if (encoding === undefined || typeof body === 'string') return wrap.around(req, res, write);
    // A visitor's answer is shared: compressed once, then sent as it is.
    body.encoded[encoding] ??= compressOnce(json, encoding);
    const bytes = body.encoded[encoding];
    res.writeHead(200, { 'cache-control': 'no-store', 'content-type': 'application/json', 'Content-Encoding': encoding, 'Content-Length': bytes.length, Vary: 'Accept-Encoding' });
    res.end(bytes);
  };
  const answer = async () => {
    const member = token ? await memberForSession(deps, site, token) : undefined;
    const user = member?.user ?? null;
    if (user && user.role === 'member') recordDailyActive(app.db, user.site_id, user.id, app.clock.now());
    if (member && user) return JSON.stringify(await searchProfiles(app, site, user, filters, member.extras.profile?.id ?? null));
    const network = decodeTracking(cookies[TRACKING_COOKIE]).network;
    // Logged-out search only where the site allows it: the route answers the refusal, translated.
    if (!site.logged_out_search && !(network && site.logged_out_search_trafficsource)) return null;
    return visitorSearchBody(app, site, filters);
  };
  (async () => {
    const body = await answer();
    // As every API answer (app.ts): it leaves once every write made before it is on disk.
    if (body !== null) await app.db.durable();
    return body;
  })().then(
    (body) => (body === null ? fallback() : send(body)),
    (err) => {
      if (res.headersSent) return void res.end();
      app.logger.warn({ err }, 'search fast path failed; answering through the API');
      fallback();
    },
  );
  return true;
}
