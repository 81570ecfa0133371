import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/server/api/app';
import { createCompression, plainEncoding } from '../../src/server/api/compression';
import { answerSearch, plainSearchFilters } from '../../src/server/api/search-fast';
import { requestEndpoint } from '../../src/server/context/request-context';
import type { Db } from '../../src/server/db/database';
import { coalescedCheck } from '../../src/server/profiles/profiles.service';
import { activeMember, post } from '../helpers/members';
import { createTestApp, DIALECTS, openSecondHandle, type TestApp } from '../helpers/test-app';

// GET /api/search.php is answered on node:http before Hono (src/server/api/search-fast.ts), a
// visitor's answer from one cached string. It must be the route's answer byte for byte, and hold
// every rule: blocks both ways, invisible members, the viewer's own profile, site isolation and
// logged-out search only where the site allows it.

type Raw = { status: number; headers: IncomingHttpHeaders; body: Buffer };

function get(server: Server, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host: 'localhost', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decoded = (r: Raw) =>
  r.headers['content-encoding'] === 'br' ? brotliDecompressSync(r.body) : r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body;
/**
 * What a client sees of an answer: status, body and every header but the date and, for a compressed
 * body, its framing (the middleware streams it chunked; a cached compressed answer has its length).
 */
const seen = (r: Raw) => {
  const { date: _date, connection: _c, 'keep-alive': _k, ...headers } = r.headers;
  if (headers['content-encoding']) {
    if (headers['content-length'] !== undefined) expect(Number(headers['content-length'])).toBe(r.body.length);
    delete headers['content-length'];
    delete headers['transfer-encoding'];
  }
  return { status: r.status, headers, body: decoded(r).toString() };
};
const listed = (r: Raw) => {
  const json = JSON.parse(decoded(r).toString()) as { results: { id: number }[]; similar: { id: number }[] };
  return [...json.results, ...json.similar].map((c) => c.id);
};

describe('plain search query strings', () => {
  it('takes only filter keys, once each, with plain values that pass the schema', () => {
    expect(plainSearchFilters('')).toEqual({});
    expect(plainSearchFilters('gender=female&country=NL&min_age=30&max_age=45&page=2')).toEqual({ gender: 'female', country: 'NL', min_age: 30, max_age: 45, page: 2 });
    for (const query of ['network=adnet', 'gender=female&gender=male', 'countryregion=noord%2Dholland', 'countryregion=a+b', 'min_age=50&max_age=30', 'gender=robot', 'x=1', 'gender', '&', 'page=0']) {
      expect(plainSearchFilters(query)).toBe(false);
    }
  });

  it('picks the encoding the compression middleware would, or leaves the choice to it', () => {
    expect(plainEncoding(undefined)).toBe(null);
    expect(plainEncoding('identity')).toBe(null);
    expect(plainEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(plainEncoding('gzip, deflate')).toBe('gzip');
    expect(plainEncoding('deflate')).toBe(undefined);
    expect(plainEncoding('br;q=0.1, gzip')).toBe(undefined);
    expect(plainEncoding('*')).toBe(undefined);
  });

  it('shares a check between concurrent requests, but never one that started before a request came', async () => {
    const slot = {};
    const started: (() => void)[] = [];
    const check = () => new Promise<boolean>((resolve) => started.push(() => resolve(true)));
    const first = coalescedCheck(slot, check);
    const second = coalescedCheck(slot, check);
    const third = coalescedCheck(slot, check);
    expect(started).toHaveLength(1);
    started[0]();
    await first;
    // The two that came while the first check ran wait for one new check.
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toHaveLength(2);
    started[1]();
    expect(await second).toBe(true);
    expect(await third).toBe(true);
    expect(started).toHaveLength(2);
  });
});

for (const dialect of DIALECTS) {
  describe(`search on node:http before Hono (${dialect})`, () => {
    let t: TestApp;
    /** Another handle on the same database: writes through it are what another process would do. */
    let other: Db;
    /** Every request through Hono, as before. */
    let viaHono: Server;
    /** The node entry's order: the fast path first, Hono when it does not answer. */
    let fast: Server;
    /** Requests the fast server handed to Hono. */
    let handedOn = 0;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      const { db: handle } = t.app;
      other = openSecondHandle(handle);
      const api = getRequestListener(createApi(t.app).fetch);
      const compress = createCompression();
      const deps = { app: t.app, mailer: t.app.mailer, limits: t.app.limits };
      viaHono = createServer((req, res) => void compress(req as never, res as never, () => void api(req, res)));
      fast = createServer((req, res) => {
        const endpoint = requestEndpoint({ headers: req.headers, remoteAddress: req.socket.remoteAddress }, t.app.config);
        const toApi = () => {
          handedOn++;
          void compress(req as never, res as never, () => void api(req, res));
        };
        const around = (q: IncomingMessage, r: ServerResponse, next: () => void) => void compress(q as never, r as never, next);
        // As createApiNodeListener(app, compression, { encodesLikeAround: true }) in the server entry.
        if (!answerSearch(deps, t.app.sites, req, res, endpoint, { around, encodes: true }, toApi)) toApi();
      });
      await Promise.all([viaHono, fast].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    });
    afterAll(async () => {
      await Promise.all([viaHono, fast].map((s) => new Promise((r) => s.close(r))));
      await other.db.destroy();
      await t.close();
    });

    it('answers exactly what the Hono route answers: visitors, members, compressed, refused, invalid', async () => {
      const ann = await activeMember(t, 'Annabella', { gender: 'female', region: 'drenthe' });
      await activeMember(t, 'Bartholomew', { gender: 'male', region: 'drenthe' });
      const cookie = { cookie: ann.cookie };
      const cases: [string, Record<string, string>][] = [
        ['', {}],
        ['gender=female&country=NL&countryregion=drenthe', {}],
        ['country=NL&countryregion=drenthe&page=2', {}],
        ['country=NL&min_age=18&max_age=99', cookie],
        ['gender=male&country=NL', { ...cookie, 'accept-encoding': 'gzip' }],
        ['', { 'accept-encoding': 'br, gzip' }],
        ['', { 'accept-encoding': 'gzip, deflate' }],
        ['', { 'accept-encoding': 'gzip;q=1, br;q=0.5' }],
        ['', { 'accept-encoding': 'deflate' }],
        ['', { 'accept-encoding': 'identity' }],
        ['min_age=50&max_age=30', {}],
        ['gender=female&network=adnet', {}],
      ];
      for (const [query, headers] of cases) {
        const path = `/api/search.php${query ? `?${query}` : ''}`;
        const before = handedOn;
        // Twice each: the second visitor answer comes from the cached string.
        for (let i = 0; i < 2; i++) expect(seen(await get(fast, path, headers)), path).toEqual(seen(await get(viaHono, path, headers)));
        // Plain valid queries never reach Hono; the invalid one and the tracking one do.
        expect(handedOn - before, path).toBe(query.includes('network') || query.includes('min_age=50') ? 2 : 0);
      }
      const refused = ['rijpe.localhost', 'gay.localhost'];
      for (const host of refused) {
        const a = await get(fast, '/api/search.php?gender=female', { host });
        expect(a.status).toBe(403);
        expect(a.headers['content-type']).toBe('application/json');
        expect(seen(a)).toEqual(seen(await get(viaHono, '/api/search.php?gender=female', { host })));
      }
      // Rijpe allows visitors who came through a traffic source (its cookie), Männerhafen never.
      const tracked = { host: 'rijpe.localhost', cookie: 'kd_track=network%3Dadnet' };
      expect((await get(fast, '/api/search.php?gender=female', tracked)).status).toBe(200);
      expect(seen(await get(fast, '/api/search.php?gender=female', tracked))).toEqual(seen(await get(viaHono, '/api/search.php?gender=female', tracked)));
      expect((await get(fast, '/api/search.php?gender=female', { ...tracked, host: 'gay.localhost' })).status).toBe(403);
      // A host no site lists: whatever Hono answers (421 in production, the default site in a demo).
      const unknown = await get(fast, '/api/search.php?gender=female', { host: 'elsewhere.example' });
      expect(seen(unknown)).toEqual(seen(await get(viaHono, '/api/search.php?gender=female', { host: 'elsewhere.example' })));
    });

    it('never lists the viewer, blocked members either way, or a profile hidden by another process', async () => {
      const query = '/api/search.php?country=NL&countryregion=overijssel';
      const cleo = await activeMember(t, 'Cleopatra', { gender: 'female', region: 'overijssel' });
      const dirk = await activeMember(t, 'Dirkjan', { gender: 'male', region: 'overijssel' });
      const emma = await activeMember(t, 'Emmanuelle', { gender: 'female', region: 'overijssel' });
      // The visitor answer is cached with all three.
      expect(listed(await get(fast, query))).toEqual(expect.arrayContaining([cleo.profileId, dirk.profileId, emma.profileId]));
      expect(listed(await get(fast, query))).toEqual(expect.arrayContaining([cleo.profileId, dirk.profileId, emma.profileId]));
      expect(listed(await get(fast, query, { cookie: cleo.cookie }))).not.toContain(cleo.profileId);
      // Dirk blocks Cleo: neither sees the other.
      expect((await t.request('/api/block.php', post(dirk.cookie, { profile_id: cleo.profileId }))).status).toBe(200);
      expect(listed(await get(fast, query, { cookie: cleo.cookie }))).not.toContain(dirk.profileId);
      expect(listed(await get(fast, query, { cookie: dirk.cookie }))).not.toContain(cleo.profileId);
      expect(listed(await get(fast, query, { cookie: emma.cookie }))).toEqual(expect.arrayContaining([cleo.profileId, dirk.profileId]));
      // Emma turns invisible through another handle (this process's write watch does not see it):
      // the cached visitor answer is checked again and built afresh without her.
      expect(listed(await get(fast, query))).toContain(emma.profileId);
      await other.db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', emma.profileId).execute();
      expect(listed(await get(fast, query))).not.toContain(emma.profileId);
      expect(listed(await get(fast, query, { cookie: cleo.cookie }))).not.toContain(emma.profileId);
      // Disabled elsewhere: gone as well; and a local write drops the cached answer at once.
      await other.db.updateTable('profiles').set({ status: 'disabled' }).where('id', '=', dirk.profileId).execute();
      expect(listed(await get(fast, query))).not.toContain(dirk.profileId);
      await t.app.db.db.updateTable('profiles').set({ invisible: 0 }).where('id', '=', emma.profileId).execute();
      expect(listed(await get(fast, query))).toContain(emma.profileId);
      // Hidden through this process: the cached answer is dropped at once (the shared count may lag 15 s, the listing never).
      await t.app.db.db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', cleo.profileId).execute();
      expect(listed(await get(fast, query))).not.toContain(cleo.profileId);
      expect(listed(await get(fast, query, { cookie: emma.cookie }))).not.toContain(cleo.profileId);
      expect(seen(await get(fast, query))).toEqual(seen(await get(viaHono, query)));
    });

    it('answers only once every write made before it is on disk, as every API answer', async () => {
      const db = t.app.db as { durable(): Promise<void> };
      const durable = db.durable;
      let release: () => void = () => {};
      db.durable = () => new Promise<void>((resolve) => { release = resolve; });
      try {
        let answered = false;
        const pending = get(fast, '/api/search.php?gender=female').then((r) => { answered = true; return r; });
        await new Promise((r) => setTimeout(r, 100));
        expect(answered).toBe(false);
        release();
        expect((await pending).status).toBe(200);
      } finally {
        db.durable = durable;
      }
    });

    it('keeps sites apart: another site never gets this site\'s cached answer', async () => {
      const fay = await activeMember(t, 'Fayette', { gender: 'female', region: 'gelderland' });
      const query = '/api/search.php?gender=female&country=NL&countryregion=gelderland';
      expect(listed(await get(fast, query))).toContain(fay.profileId);
      const elsewhere = await get(fast, query, { host: 'rijpe.localhost', cookie: 'kd_track=network%3Dadnet' });
      expect(elsewhere.status).toBe(200);
      expect(listed(elsewhere)).not.toContain(fay.profileId);
    });
  });
}
