import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Db } from '../db/database';

/**
 * Member pages answered again without rendering, when nothing they could show has changed.
 *
 * A member page is a function of the request (site, host, URL, cookies — the session among them —,
 * language, country, encoding), of the database and of the clock. This cache keeps the bytes a render
 * sent (compressed as they went out, with their headers) and sends them again for the same request
 * only while the database provably has not changed since the render began, and for at most `maxAgeMs`
 * of the app clock (what a page derives from the time — "online", "2 minutes ago" — is then as old as a
 * page the member loaded that long ago).
 *
 * "Not changed" is SQLite's own bookkeeping, not ours: `total_changes()` counts every row this
 * connection inserted, updated or deleted (whatever code path wrote it: Kysely, prepared statements,
 * jobs), and `data_version` moves when any other connection (another process, a CLI) commits. The
 * pair is read before the render starts, and an answer is sent again only while it still reads the
 * same: any write during the render moves it too, so such an answer never matches by it. Nothing is read
 * while a transaction is open on the shared connection (a render could see rows it later rolls back):
 * such a render is kept by its digest only (below). On PostgreSQL the signal is the server's
 * WAL insert position (`pg_current_wal_insert_lsn()`) with the current snapshot (`pg_current_snapshot()`):
 * every row written and every commit, by any process, moves the position, and a commit not yet visible
 * is still listed in the snapshot — so a page rendered after version V is exact for as long as the
 * version is still V (other databases, vacuum and checkpoints move it too: they only cost a render). One query per repeated view instead of a render; where the function is not
 * available (a read replica), the cache stays off.
 *
 * On a busy site something is written somewhere many times a second, so that signal alone rarely
 * holds. Each member page therefore also has a loader (src/server/pages/member-page-data.ts): the entry
 * reads the page's data first, and the page renders from that value, the member and the request only.
 * A stored answer carries the digest of those inputs, and is sent again whenever a fresh load gives the
 * same digest — however much else was written meanwhile. The reads run on every view; only the
 * rendering is saved.
 *
 * Only GET requests of signed-in members to the member routes below are kept; an answer is stored
 * only when it is a 200 HTML page that sets no cookie. `PAGE_CACHE_MS=0` turns the cache off.
 */
export const CACHED_PAGE_PATH = /^\/(?:members|members\/\d{1,12}|chats|likes|likes\/[a-z]{1,20}|profile)$/;

/** `unchanged` or `same-inputs` on an answer sent again, `rendered` on a render the cache may keep. */
export const PAGE_CACHE_HEADER = 'x-page-cache';

interface Entry {
  /** The database version the render began at (null: not read, or it has moved since: match by digest only). */
  version: string | null;
  /** Digest of the page's inputs (member and loaded data), when the page has a loader. */
  digest: string | null;
  at: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface PageCache {
  /** The cache key of a request, or null when its answer must always be rendered. */
  keyOf(req: IncomingMessage, parts: { siteId: string; secure: boolean; locale: string; country: string | null; token: string | undefined }): string | null;
  /** The database's version now, before anything of a view is read (null: nothing can be trusted to stay). */
  version(): Promise<string | null>;
  /**
   * False when the stored answer for `key` can only be matched by its inputs (the database changed since
   * it rendered, as it does all the time on a busy site): reading the version would be a wasted query.
   */
  versionUseful(key: string): boolean;
  /**
   * Sends the stored answer when it is still exact: rendered at database version `check.version` (nothing
   * written since), or from inputs with digest `check.digest`. False when the page must be rendered.
   */
  serve(key: string, res: ServerResponse, check: { version?: string | null; digest?: string | null }): boolean;
  /**
   * Records what the render sends through `res` (call before anything wraps `res`): `started` is the
   * version read before the view read anything, `digest` the digest of the inputs the page renders from.
   */
  record(key: string, res: ServerResponse, inputs: { started: string | null; digest: string | null }): void;
  readonly size: number;
}

const MAX_BODY = 512 * 1024;
/** Bytes kept at most (bodies as sent, mostly 5–8 KB compressed), whatever the number of entries. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * PostgreSQL: the WAL insert position moves with every row written and every commit, by any process.
 * A commit's record is in the WAL a moment before other sessions see it: the snapshot lists it as still
 * running until then, so a render that missed it carries a version that will not match once it shows.
 */
const PG_VERSION = "select pg_current_wal_insert_lsn()::text || ' ' || pg_current_snapshot()::text as v";

/** Null while nothing can be trusted to stay (an open SQLite transaction, a failed read). */
type VersionReader = () => Promise<string | null>;

function versionReader(db: Db): VersionReader | null {
  const sqlite = db.raw.sqlite;
  if (sqlite) {
    // Two plain statements: the pragma_data_version table function prepares a PRAGMA on every call
    // (half the cost of a version read in a busy server).
    const changes = sqlite.prepare('select total_changes()').pluck();
    const others = sqlite.prepare('pragma data_version').pluck();
    return () => {
      if (sqlite.inTransaction) return Promise.resolve(null);
      return Promise.resolve(`${changes.get() as number}:${others.get() as number}`);
    };
  }
  const pool = db.raw.pool;
  if (!pool) return null;
  return () =>
    pool.query<{ v: string }>(PG_VERSION).then(
      (result) => result.rows[0]?.v ?? null,
      () => null,
    );
}

export function createPageCache(db: Db, clock: { now(): number }, maxAgeMs: number, maxEntries = 2000): PageCache | null {
  const version = versionReader(db);
  if (!version || maxAgeMs <= 0) return null;
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
    version,
    versionUseful(key) {
      const entry = entries.get(key);
      return entry === undefined || entry.version !== null;
    },
    serve(key, res, check) {
      const entry = entries.get(key);
      if (!entry) return false;
      const age = clock.now() - entry.at;
      if (age < 0 || age >= maxAgeMs) {
        drop(key);
        return false;
      }
      const unchanged = entry.version !== null && check.version === entry.version;
      // Versions only move forward: one that moved since the render never comes back, so the entry's later
      // views (while it lasts) skip the read and match by inputs only.
      if (!unchanged && typeof check.version === 'string') entry.version = null;
      if (!unchanged && !(entry.digest !== null && check.digest === entry.digest)) return false;
      // Least recently used goes first when the map is full.
      entries.delete(key);
      entries.set(key, entry);
      // Says how the answer was made (for operators and the tests): unchanged database, or same inputs.
      res.writeHead(200, { ...entry.headers, 'content-length': entry.body.length, [PAGE_CACHE_HEADER]: unchanged ? 'unchanged' : 'same-inputs' });
      res.end(entry.body);
      return true;
    },
    record(key, res, { started, digest }) {
      if (started === null && digest === null) return;
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
        // Kept with the version its render began at: any write since, during the render too, moves the
        // version, so such an entry never matches by it (no second read after the render is needed); and
        // with its digest, whatever else changed.
        if (storable) {
          const body = Buffer.concat(chunks);
          const { 'content-length': _length, 'transfer-encoding': _chunked, [PAGE_CACHE_HEADER]: _how, ...kept } = headers;
          drop(key);
          while (entries.size > 0 && (entries.size >= maxEntries || bytes + body.length > MAX_BYTES)) drop(entries.keys().next().value as string);
          entries.set(key, { version: started, digest, at, headers: kept, body });
          bytes += body.length;
        }
        return end(chunk, ...rest);
      }) as typeof res.end;
    },
  };
}
