import { Worker } from 'node:worker_threads';
import { constants as zlibConstants } from 'node:zlib';
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

// The page compressor: one worker thread per process, compressing whole pages with the settings above. On the
// event loop a page cost about 115 µs compressed in place and 80 µs handed to libuv's thread pool (the zlib
// stream's own JavaScript); handed to this worker, about 30 µs (docs/performance.md). Plain CommonJS, evaluated as is.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const zlib = require('node:zlib');
parentPort.on('message', ({ id, html, encoding, exit }) => {
  // Asked to end: between two pages, never inside one (see terminate()).
  if (exit) process.exit(0);
  try {
    const out = encoding === 'br' ? zlib.brotliCompressSync(html, workerData.brotli) : zlib.gzipSync(html, workerData.gzip);
    // Its own exact ArrayBuffer, moved rather than copied (zlib's result may share a pooled one).
    const body = new Uint8Array(out.length);
    body.set(out);
    parentPort.postMessage({ id, body }, [body.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

interface Compressor {
  compress(html: string, encoding: 'br' | 'gzip'): Promise<Buffer>;
  /** Ends the worker now, failing the pages it holds; the next page starts another. */
  terminate(): Promise<void>;
}

/**
 * Starts the page compressor. A worker that fails or exits fails the pages it holds and is replaced at the next
 * page; it never keeps the process alive.
 */
export function startCompressor(): Compressor {
  let worker: Worker | null = null;
  const waiting = new Map<number, { resolve: (body: Buffer) => void; reject: (err: Error) => void }>();
  let next = 0;
  const failAll = (err: Error) => {
    for (const page of waiting.values()) page.reject(err);
    waiting.clear();
    worker = null;
  };
  const started = () => {
    if (worker) return worker;
    const w = new Worker(WORKER, { eval: true, workerData: { brotli: BROTLI, gzip: GZIP } });
    w.unref();
    w.on('message', ({ id, body, error }: { id: number; body?: Uint8Array; error?: string }) => {
      const page = waiting.get(id);
      if (!page) return;
      waiting.delete(id);
      if (body) page.resolve(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
      else page.reject(new Error(`compression failed: ${error}`));
    });
    w.on('error', (err) => {
      if (worker === w) failAll(err);
    });
    w.on('exit', (code) => {
      if (worker === w) failAll(new Error(`the compression worker exited (${code})`));
    });
    worker = w;
    return w;
  };
  return {
    compress(html, encoding) {
      const w = started();
      const id = next++;
      return new Promise<Buffer>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        try {
          w.postMessage({ id, html, encoding });
        } catch (err) {
          waiting.delete(id);
          reject(err as Error);
        }
      });
    },
    async terminate() {
      const w = worker;
      if (!w) return;
      failAll(new Error('the compression worker was ended'));
      // The worker ends itself after the page it is on: Node 20 aborts the whole process ("close before init" in
      // node_zlib.cc) when a thread is torn down inside brotliCompressSync. Forced only if it does not end in a second.
      await new Promise<void>((resolve) => {
        const forced = setTimeout(() => void w.terminate().finally(resolve), 1000);
        w.once('exit', () => {
          clearTimeout(forced);
          resolve();
        });
        w.postMessage({ exit: true });
      });
    },
  };
}

// One compressor per process: the node entry's bundle and Astro's both load this module.
const COMPRESSOR = Symbol.for('kindred.pageCompressor');
const shared = globalThis as { [COMPRESSOR]?: Compressor };
const compressor = () => (shared[COMPRESSOR] ??= startCompressor());

/** Cache-Control of a page rendered on request (Astro's, src/middleware.ts, and framed member pages). */
export const PAGE_CACHE_CONTROL = 'private, no-cache';

/**
 * A whole HTML page as it goes out: compressed in one call with the client's plain choice of encoding when
 * it is long enough, else as it is (`encoding` null). Astro's pages (src/middleware.ts) and framed member pages
 * (src/server/pages/framed-page.ts) both send pages this way. The compression runs on the page compressor's
 * thread, not on the event loop: it was a sixth of a member page's first view there (docs/performance.md).
 */
export async function compressedPage(html: string, encoding: 'br' | 'gzip' | null | undefined): Promise<{ body: string | Buffer; encoding: 'br' | 'gzip' | null }> {
  if (encoding && (html.length >= COMPRESS_THRESHOLD || Buffer.byteLength(html) >= COMPRESS_THRESHOLD)) return { body: await compressor().compress(html, encoding), encoding };
  return { body: html, encoding: null };
}
