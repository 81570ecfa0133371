import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COMPRESS_THRESHOLD, compressedPage, startCompressor } from '../../src/server/api/compression';

const page = (n: number) => `<!doctype html><html lang="nl"><body>${'<p>Hallo wereld, één keer — 🌷</p>'.repeat(n)}</body></html>`;

describe('page compression (on the compressor thread)', () => {
  it('gives back the page whole in brotli and gzip, many pages at once, each its own', async () => {
    const pages = Array.from({ length: 40 }, (_, i) => page(50 + i));
    const sent = await Promise.all(pages.map((html, i) => compressedPage(html, i % 2 ? 'gzip' : 'br')));
    sent.forEach((out, i) => {
      expect(out.encoding).toBe(i % 2 ? 'gzip' : 'br');
      const body = out.body as Buffer;
      expect(Buffer.isBuffer(body)).toBe(true);
      expect((i % 2 ? gunzipSync(body) : brotliDecompressSync(body)).toString()).toBe(pages[i]);
      expect(body.length).toBeLessThan(Buffer.byteLength(pages[i] as string) / 4);
    });
  });

  it('sends short pages and clients without a plain encoding as they are', async () => {
    expect(await compressedPage('<p>kort</p>', 'br')).toEqual({ body: '<p>kort</p>', encoding: null });
    const long = page(100);
    expect(await compressedPage(long, null)).toEqual({ body: long, encoding: null });
    // The threshold is in bytes: 450 characters, 1,200 bytes, are compressed.
    const wide = 'é€€'.repeat(150);
    expect(wide.length).toBeLessThan(COMPRESS_THRESHOLD);
    expect((await compressedPage(wide, 'br')).encoding).toBe('br');
  });

  it('fails the pages a dead worker held and starts a new one for the next', async () => {
    const compressor = startCompressor();
    expect(brotliDecompressSync(await compressor.compress(page(60), 'br')).toString()).toBe(page(60));
    // A page the worker cannot take (a symbol cannot be posted) fails alone; the worker goes on.
    await expect(compressor.compress(Symbol('x') as unknown as string, 'br')).rejects.toThrow();
    expect(gunzipSync(await compressor.compress(page(61), 'gzip')).toString()).toBe(page(61));
    // The worker ends with pages in it: they fail, and the next page gets a new worker.
    const held = Promise.allSettled([compressor.compress(page(62), 'br'), compressor.compress(page(63), 'br')]);
    await compressor.terminate();
    for (const outcome of await held) {
      expect(outcome.status).toBe('rejected');
      expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/ended/);
    }
    expect(brotliDecompressSync(await compressor.compress(page(64), 'br')).toString()).toBe(page(64));
    await compressor.terminate();
  });
});
