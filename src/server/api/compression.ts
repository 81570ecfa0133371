import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlibConstants } from 'node:zlib';
import compression from 'compression';

/** Answers below this many bytes are sent as they are. */
export const COMPRESS_THRESHOLD = 1024;
const GZIP = { level: 4 };
// Brotli 1: a 21 KB page in 60 µs, every time. Quality 2 makes 8–10 % fewer bytes (a 30 KB member page:
// 6.9 KB instead of 7.6 KB) but sets up about a megabyte of tables per call, and what that costs
// depends on the allocator's state: 80–780 µs for the same page in one process, 0.43 ms a page on
// average in a busy server (docs/performance-history.md). Quality 4 took 2.5 times as long as 2 for 6 % fewer.
const BROTLI = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1, [zlibConstants.BROTLI_PARAM_LGWIN]: 18 } };

/**
 * Pages and API answers above 1 KB go out compressed at a cheap level (static files are
 * precompressed at build time; event streams never are, or their frames would wait in a buffer).
 */
export function createCompression() {
  return compression({
    threshold: COMPRESS_THRESHOLD,
    ...GZIP,
    brotli: BROTLI,
    filter: (_req, res) => {
      const type = String(res.getHeader('Content-Type') ?? '');
      return /^(text\/html|application\/json|text\/plain)/.test(type);
    },
  });
}

/**
 * The encoding `createCompression` picks for this Accept-Encoding header when the choice is plain:
 * no q-values (all equal), so brotli if listed, else gzip if listed, else none. Undefined when the
 * header needs the full negotiation (q-values, wildcards, only deflate): let the middleware decide.
 */
export function plainEncoding(header: string | undefined): 'br' | 'gzip' | null | undefined {
  if (!header) return null;
  if (header.includes(';') || header.includes('*')) return undefined;
  const listed = header.split(',').map((e) => e.trim().toLowerCase());
  if (listed.includes('br')) return 'br';
  if (listed.includes('gzip')) return 'gzip';
  return listed.includes('deflate') ? undefined : null;
}

const brotliOnce = promisify(brotliCompress);
const gzipOnce = promisify(gzip);

/** Cache-Control of a page rendered on request (Astro's, src/middleware.ts, and framed member pages). */
export const PAGE_CACHE_CONTROL = 'private, no-cache';

/**
 * A whole HTML page as it goes out: compressed in one call with the client's plain choice of encoding when
 * it is long enough, else as it is (`encoding` null). Astro's pages (src/middleware.ts) and framed member pages
 * (src/server/pages/framed-page.ts) both send pages this way. The compression runs on libuv's thread pool, not
 * on the event loop: it was a sixth of a member page's first view there (docs/performance.md, "First views").
 */
export async function compressedPage(html: string, encoding: 'br' | 'gzip' | null | undefined): Promise<{ body: string | Buffer; encoding: 'br' | 'gzip' | null }> {
  if (encoding && Buffer.byteLength(html) >= COMPRESS_THRESHOLD) return { body: await (encoding === 'br' ? brotliOnce(html, BROTLI) : gzipOnce(html, GZIP)), encoding };
  return { body: html, encoding: null };
}
