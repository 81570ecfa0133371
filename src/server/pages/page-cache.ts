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
 * pair is read before the render starts and again when it ends: an answer is stored only if neither
 * moved meanwhile and no transaction was open at either moment (on one shared connection, a render
 * could otherwise see rows a transaction later rolls back). On PostgreSQL the signal is the server's
 * WAL insert position (`pg_current_wal_insert_lsn()`) with the current snapshot (`pg_current_snapshot()`):
 * every row written and every commit, by any process, moves the position, and a commit not yet visible
 * is still listed in the snapshot — so a page rendered after version V is exact for as long as the
 * version is still V (other databases, vacuum and checkpoints move it too: they only cost a render). One query per repeated view instead of a render; where the function is not
 * available (a read replica), the cache stays off.
 *
 * Only GET requests of signed-in members to the member routes below are kept; an answer is stored
 * only when it is a 200 HTML page that sets no cookie. `PAGE_CACHE_MS=0` turns the cache off.
 */
export const CACHED_PAGE_PATH = /^\/(?:members|members\/\d{1,12}|chats|likes|likes\/[a-z]{1,20}|profile)$/;

interface Entry {
  version: string;
  at: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface PageCache {
  /** The cache key of a request, or null when its answer must always be rendered. */
  keyOf(req: IncomingMessage, parts: { siteId: string; secure: boolean; locale: string; country: string | null; token: string | undefined }): string | null;
  /** Sends the stored answer when it is still exact; false when the page must be rendered. */
  serve(key: string, res: ServerResponse): Promise<boolean>;
  /** Records what the render sends through `res` (call before anything wraps `res`), stored when exact. */
  record(key: string, res: ServerResponse): Promise<void>;
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
    const statement = sqlite.prepare('select total_changes(), data_version from pragma_data_version').raw();
    return () => {
      if (sqlite.inTransaction) return Promise.resolve(null);
      const [changes, others] = statement.get() as [number, number];
      return Promise.resolve(`${changes}:${others}`);
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
    async serve(key, res) {
      const entry = entries.get(key);
      if (!entry) return false;
      const age = clock.now() - entry.at;
      if (age < 0 || age >= maxAgeMs || (await version()) !== entry.version) {
        if (entries.get(key) === entry) drop(key);
        return false;
      }
      // Least recently used goes first when the map is full.
      entries.delete(key);
      entries.set(key, entry);
      res.writeHead(200, { ...entry.headers, 'content-length': entry.body.length });
      res.end(entry.body);
      return true;
    },
    async record(key, res) {
      const started = await version();
      if (started === null) return;
      const at = clock.now();
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
        // Stored only if nothing changed while it rendered (checked after the answer is on its way).
        if (storable) {
          const body = Buffer.concat(chunks);
          const { 'content-length': _length, 'transfer-encoding': _chunked, ...kept } = headers;
          void version().then((ended) => {
            if (ended !== started) return;
            drop(key);
            while (entries.size > 0 && (entries.size >= maxEntries || bytes + body.length > MAX_BYTES)) drop(entries.keys().next().value as string);
            entries.set(key, { version: started, at, headers: kept, body });
            bytes += body.length;
          });
        }
        return end(chunk, ...rest);
      }) as typeof res.end;
    },
  };
}
