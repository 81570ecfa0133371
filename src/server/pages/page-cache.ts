import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Member pages answered again without rendering, when a fresh load of what they show is the same.
 *
 * A member page renders from the request (site, host, URL, cookies — the session among them —,
 * language, country, encoding: the cache key), the signed-in member, the value its loader reads
 * (src/server/pages/member-page-data.ts) and the clock. The loaders run on every view anyway; this
 * cache keeps the bytes a render sent (compressed as they went out, with their headers) with a digest of
 * the member and loaded value, and sends them again for the same key when a fresh load gives the same
 * digest — however much else was written meanwhile — for at most `maxAgeMs` of the app clock (what a
 * page derives from the time, "online" or "2 minutes ago", is then as old as a page loaded that long
 * ago). Only the render (React and compression) is saved: every rule the loaders apply holds on the
 * very next view.
 *
 * It once also sent pages again while a database version (SQLite's change counters, PostgreSQL's WAL
 * position and snapshot) had not moved since the render began. That cost two round trips on every
 * first view on PostgreSQL and, under load, the version always moved: it is gone.
 *
 * Only GET requests of signed-in members to the member routes below are kept; an answer is stored
 * only when it is a 200 HTML page that sets no cookie. `PAGE_CACHE_MS=0` turns the cache off.
 */
export const CACHED_PAGE_PATH = /^\/(?:members|members\/\d{1,12}|chats|likes|likes\/[a-z]{1,20}|profile)$/;

/** `same-inputs` on an answer sent again, `rendered` on a render the cache may keep. */
export const PAGE_CACHE_HEADER = 'x-page-cache';

interface Entry {
  /** Digest of the page's inputs (member and loaded data) the render was made from. */
  digest: string;
  at: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface PageCache {
  /** The cache key of a request, or null when its answer must always be rendered. */
  keyOf(req: IncomingMessage, parts: { siteId: string; secure: boolean; locale: string; country: string | null; token: string | undefined }): string | null;
  /**
   * Sends the stored answer when it was rendered from inputs with this `digest` (and is young enough).
   * False when the page must be rendered.
   */
  serve(key: string, res: ServerResponse, digest: string | null): boolean;
  /**
   * Records what the render sends through `res` (call before anything wraps `res`) under `digest`, the
   * digest of the inputs the page renders from; a null digest records nothing.
   */
  record(key: string, res: ServerResponse, digest: string | null): void;
  readonly size: number;
}

const MAX_BODY = 512 * 1024;
/** Bytes kept at most (bodies as sent, mostly 5–8 KB compressed), whatever the number of entries. */
const MAX_BYTES = 64 * 1024 * 1024;

export function createPageCache(clock: { now(): number }, maxAgeMs: number, maxEntries = 2000): PageCache | null {
  if (maxAgeMs <= 0) return null;
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.body.length;
    entries.delete(key);
  };

  return {
    get size() {
      return entries.size;
    },
    keyOf(req, { siteId, secure, locale, country, token }) {
      if (req.method !== 'GET' || !token) return null;
      const url = req.url ?? '/';
      const query = url.indexOf('?');
      if (!CACHED_PAGE_PATH.test(query === -1 ? url : url.slice(0, query))) return null;
      const h = req.headers;
      return [siteId, h.host ?? '', secure ? 's' : '', locale, country ?? '', url, h.cookie ?? '', h['accept-encoding'] ?? '', h['accept-language'] ?? ''].join('\n');
    },
    serve(key, res, digest) {
      const entry = entries.get(key);
      if (!entry) return false;
      const age = clock.now() - entry.at;
      if (age < 0 || age >= maxAgeMs) {
        drop(key);
        return false;
      }
      if (digest === null || digest !== entry.digest) return false;
      // Least recently used goes first when the map is full.
      entries.delete(key);
      entries.set(key, entry);
      // Says how the answer was made (for operators and the tests).
      res.writeHead(200, { ...entry.headers, 'content-length': entry.body.length, [PAGE_CACHE_HEADER]: 'same-inputs' });
      res.end(entry.body);
      return true;
    },
    record(key, res, digest) {
      if (digest === null) return;
      const at = clock.now();
      res.setHeader(PAGE_CACHE_HEADER, 'rendered');
      const chunks: Buffer[] = [];
      let size = 0;
      const take = (chunk: unknown, encoding?: unknown) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > MAX_BODY) return;
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
        size += buffer.length;
        chunks.push(buffer);
      };
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        take(chunk, rest[0]);
        return write(chunk, ...rest);
      }) as typeof res.write;
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        take(chunk, rest[0]);
        const headers = res.getHeaders();
        const storable = res.statusCode === 200 && size <= MAX_BODY && headers['set-cookie'] === undefined
          && String(headers['content-type'] ?? '').startsWith('text/html');
        // Kept under the digest of the inputs it was rendered from, whatever changed since they were read.
        if (storable) {
          const body = Buffer.concat(chunks);
          const { 'content-length': _length, 'transfer-encoding': _chunked, [PAGE_CACHE_HEADER]: _how, ...kept } = headers;
          drop(key);
          while (entries.size > 0 && (entries.size >= maxEntries || bytes + body.length > MAX_BYTES)) drop(entries.keys().next().value as string);
          entries.set(key, { digest, at, headers: kept, body });
          bytes += body.length;
        }
        return end(chunk, ...rest);
      }) as typeof res.end;
    },
  };
}
