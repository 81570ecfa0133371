import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPageCache, type PageCache } from '../../src/server/pages/page-cache';
import { activeMember } from '../helpers/members';
import { createTestApp, DIALECTS, openSecondHandle, type TestApp } from '../helpers/test-app';

// The member page cache (src/server/pages/page-cache.ts) may only send a page again when a render now
// would send the same bytes: every case below fails if a stale page were served.

const MAX_AGE = 60_000;

describe.each(DIALECTS)('member page cache (%s)', (dialect) => {
  let t: TestApp;
  let cache: PageCache;
  let server: Server;
  let base: string;
  let renders = 0;
  /** Runs in the middle of the next render (after its inputs were loaded), once. */
  let duringRender: (() => Promise<void> | void) | null = null;
  let answer: { status: number; type: string; cookie?: string } = { status: 200, type: 'text/html; charset=utf-8' };

  /** The page's data comes from this loader before the render (as page-steps.ts loads member pages); off: a page without one. */
  let withLoader = true;
  /** The next load fails (page-steps.ts then has no digest and leaves the page to render). */
  let loadFails = false;
  const loadNames = async () => (await t.app.db.db.selectFrom('profiles').select('name').orderBy('id').execute()).map((p) => p.name);

  /** A stand-in member page: renders from its loaded inputs only (the loaders' contract), sends. */
  async function render(res: ServerResponse, loaded?: string[]) {
    const names = loaded ?? (await loadNames());
    if (duringRender) {
      const hook = duringRender;
      duringRender = null;
      await hook();
    }
    renders++;
    res.statusCode = answer.status;
    res.setHeader('content-type', answer.type);
    if (answer.cookie) res.setHeader('set-cookie', answer.cookie);
    res.write(`<p>${names.join(',')}</p>`);
    res.end(`<p>render ${renders}</p>`);
  }

  beforeEach(async () => {
    t = await createTestApp(dialect);
    renders = 0;
    duringRender = null;
    withLoader = true;
    loadFails = false;
    answer = { status: 200, type: 'text/html; charset=utf-8' };
    cache = createPageCache(t.clock, MAX_AGE) as PageCache;
    server = createServer((req, res) => {
      const token = /kd_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      const key = cache.keyOf(req, { siteId: 'kindred', secure: false, locale: 'en', country: 'NL', token });
      (async () => {
        let loaded: string[] | undefined;
        if (withLoader) {
          const failing = loadFails;
          loadFails = false;
          loaded = failing ? undefined : await loadNames();
        }
        if (key) {
          const digest = loaded ? createHash('sha256').update(JSON.stringify(loaded)).digest('hex') : null;
          if (cache.serve(key, res, digest)) return;
          cache.record(key, res, digest);
        }
        await render(res, loaded);
      })().catch((err) => res.destroy(err));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  /** A write through a second handle on the same database (another process). */
  const writeFromAnotherProcess = async (write: (db: ReturnType<typeof openSecondHandle>['db']) => Promise<unknown>) => {
    const other = openSecondHandle(t.app.db);
    try {
      await write(other.db);
    } finally {
      await other.db.destroy();
    }
  };

  const get = async (pathname: string, cookie: string, init: RequestInit = {}) => {
    const res = await fetch(base + pathname, { ...init, headers: { cookie, ...(init.headers as Record<string, string>) } });
    return { status: res.status, text: await res.text(), how: res.headers.get('x-page-cache') };
  };

  it('sends a repeated view again without rendering while its inputs load the same', async () => {
    const ann = await activeMember(t, 'Ann');
    const first = await get('/members', ann.cookie);
    expect(first.how).toBe('rendered');
    const second = await get('/members', ann.cookie);
    expect(renders).toBe(1);
    expect(second).toEqual({ ...first, how: 'same-inputs' });
    expect(cache.size).toBe(1);
  });

  it('sends a view again after writes elsewhere in the database, by this or another process', async () => {
    const ann = await activeMember(t, 'Ann');
    const first = await get('/members', ann.cookie);
    // Writes the page does not show: its loader reads the same, so the render is sent again.
    await t.app.db.db.updateTable('users').set({ credits: 77 }).execute();
    expect(await get('/members', ann.cookie)).toEqual({ ...first, how: 'same-inputs' });
    await writeFromAnotherProcess((db) => db.updateTable('users').set({ credits: 78 }).execute());
    expect((await get('/members', ann.cookie)).how).toBe('same-inputs');
    expect(renders).toBe(1);
  });

  it('renders again when what the page shows changed: through Kysely, a raw statement, or another process', async () => {
    const ann = await activeMember(t, 'Ann');
    await get('/members', ann.cookie);
    await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
    const changed = await get('/members', ann.cookie);
    expect(changed.how).toBe('rendered');
    expect(changed.text).toContain('Anna');
    if (dialect === 'sqlite') t.app.db.raw.sqlite?.prepare("update profiles set name = 'Annie'").run();
    else await t.app.db.raw.pool?.query(`update ${t.app.db.schema}.profiles set name = 'Annie'`);
    expect((await get('/members', ann.cookie)).text).toContain('Annie');
    await writeFromAnotherProcess((db) => db.updateTable('profiles').set({ name: 'Anne' }).execute());
    expect((await get('/members', ann.cookie)).text).toContain('Anne');
    expect(renders).toBe(4);
    // Back to a value seen before: the latest render is for other inputs, so this one renders too.
    await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
    expect((await get('/members', ann.cookie)).text).toContain('Anna');
    expect(renders).toBe(5);
  });

  it('stores a render whose inputs changed meanwhile under the digest it was rendered from', async () => {
    const ann = await activeMember(t, 'Ann');
    // Written after the load, before the render ends: the page shows the loaded 'Ann'.
    duringRender = async () => {
      await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
    };
    const first = await get('/members', ann.cookie);
    expect(first.text).not.toContain('Anna');
    expect(cache.size).toBe(1);
    // Kept under the digest of 'Ann', so the next view (which loads 'Anna') renders.
    const next = await get('/members', ann.cookie);
    expect(next.how).toBe('rendered');
    expect(next.text).toContain('Anna');
    expect(renders).toBe(2);
    // Rendered from 'Bea' while 'Cy' is written: kept under 'Bea', sent again once 'Bea' loads again.
    await t.app.db.db.updateTable('profiles').set({ name: 'Bea' }).execute();
    duringRender = async () => {
      await t.app.db.db.updateTable('profiles').set({ name: 'Cy' }).execute();
    };
    const bea = await get('/members', ann.cookie);
    expect(bea.how).toBe('rendered');
    expect(bea.text).toContain('Bea');
    await t.app.db.db.updateTable('profiles').set({ name: 'Bea' }).execute();
    expect(await get('/members', ann.cookie)).toEqual({ ...bea, how: 'same-inputs' });
    expect(renders).toBe(3);
  });

  it('renders again once the page is as old as PAGE_CACHE_MS, and when the clock went back', async () => {
    const ann = await activeMember(t, 'Ann');
    await get('/members', ann.cookie);
    t.clock.advance(MAX_AGE - 1);
    expect((await get('/members', ann.cookie)).how).toBe('same-inputs');
    expect(renders).toBe(1);
    t.clock.advance(1);
    expect((await get('/members', ann.cookie)).how).toBe('rendered');
    expect(renders).toBe(2);
    t.clock.advance(-10_000);
    expect((await get('/members', ann.cookie)).how).toBe('rendered');
    expect(renders).toBe(3);
  });

  it.runIf(dialect === 'sqlite')('never sends a page rendered from rows of a transaction that rolled back', async () => {
    const ann = await activeMember(t, 'Ann');
    const sqlite = t.app.db.raw.sqlite;
    if (!sqlite) throw new Error('sqlite');
    sqlite.exec('begin');
    sqlite.prepare("update profiles set name = 'Ghost'").run();
    expect((await get('/members', ann.cookie)).text).toContain('Ghost');
    sqlite.exec('rollback');
    const after = await get('/members', ann.cookie);
    expect(after.text).not.toContain('Ghost');
    expect(renders).toBe(2);
  });

  it('renders again when a transaction another process had open commits after the render', async () => {
    const ann = await activeMember(t, 'Ann');
    const other = openSecondHandle(t.app.db);
    try {
      let commit: () => void = () => {};
      const committed = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let wrote: () => void = () => {};
      const written = new Promise<void>((resolve) => {
        wrote = resolve;
      });
      const pending = other.db.transaction().execute(async (trx) => {
        await trx.updateTable('profiles').set({ name: 'Later' }).execute();
        wrote();
        await committed;
      });
      await written;
      expect((await get('/members', ann.cookie)).text).not.toContain('Later');
      commit();
      await pending;
      expect((await get('/members', ann.cookie)).text).toContain('Later');
    } finally {
      await other.db.destroy();
    }
  });

  it('renders, and stores nothing, when the page has no loaded inputs (no loader, or its load failed)', async () => {
    const ann = await activeMember(t, 'Ann');
    withLoader = false;
    await get('/members', ann.cookie);
    expect((await get('/members', ann.cookie)).how).toBeNull();
    expect(renders).toBe(2);
    expect(cache.size).toBe(0);
    withLoader = true;
    await get('/members', ann.cookie);
    loadFails = true;
    expect((await get('/members', ann.cookie)).how).toBeNull();
    expect(renders).toBe(4);
  });

  it('keeps only 200 HTML answers that set no cookie', async () => {
    const ann = await activeMember(t, 'Ann');
    for (const kind of [{ status: 404, type: 'text/html' }, { status: 200, type: 'application/json' }, { status: 200, type: 'text/html', cookie: 'a=b' }]) {
      answer = kind;
      renders = 0;
      await get('/members', ann.cookie);
      await get('/members', ann.cookie);
      expect(renders).toBe(2);
    }
    expect(cache.size).toBe(0);
  });

  it('keeps at most its number of entries, dropping the least recently used first', async () => {
    const ann = await activeMember(t, 'Ann');
    const small = createPageCache(t.clock, MAX_AGE, 2) as PageCache;
    cache = small;
    await get('/members?page=1', ann.cookie);
    await get('/members?page=2', ann.cookie);
    await get('/members?page=1', ann.cookie); // used again: page 2 is now the oldest
    await get('/members?page=3', ann.cookie);
    expect(small.size).toBe(2);
    renders = 0;
    await get('/members?page=1', ann.cookie);
    await get('/members?page=3', ann.cookie);
    expect(renders).toBe(0);
    await get('/members?page=2', ann.cookie);
    expect(renders).toBe(1);
  });

  it('keys pages by session, URL and request: another member never gets a page rendered for someone else', async () => {
    const ann = await activeMember(t, 'Ann');
    const bob = await activeMember(t, 'Bob');
    // The same loaded inputs each time: only the key tells these apart.
    const anns = await get('/members', ann.cookie);
    const bobs = await get('/members', bob.cookie);
    await get('/members?gender=female', ann.cookie);
    await get('/members', ann.cookie, { headers: { 'accept-encoding': 'gzip' } });
    await get('/members', ann.cookie, { headers: { 'accept-language': 'de' } });
    expect(renders).toBe(5);
    expect(cache.size).toBe(5);
    expect(bobs.how).toBe('rendered');
    expect(bobs.text).not.toBe(anns.text);
    expect(await get('/members', bob.cookie)).toEqual({ ...bobs, how: 'same-inputs' });
    const req = (method: string, url: string) => ({ method, url, headers: {} }) as IncomingMessage;
    const parts = { siteId: 'kindred', secure: false, locale: 'en', country: null, token: 'x' };
    // Only a member's GET of a member page: visitors, other pages and other methods are always rendered.
    expect(cache.keyOf(req('GET', '/members'), { ...parts, token: undefined })).toBeNull();
    for (const url of ['/terms', '/settings', '/credits', '/members/12/chat', '/members/x', '/chats/5', '/admin', '/members/../admin']) {
      expect(cache.keyOf(req('GET', url), parts)).toBeNull();
    }
    expect(cache.keyOf(req('POST', '/members'), parts)).toBeNull();
    expect(cache.keyOf(req('HEAD', '/members'), parts)).toBeNull();
    for (const url of ['/members', '/members/12', '/chats', '/likes', '/likes/sent', '/profile', '/members?page=2']) {
      expect(cache.keyOf(req('GET', url), parts)).not.toBeNull();
    }
    // The site, language and country are part of the key.
    const key = cache.keyOf(req('GET', '/members'), parts);
    expect(cache.keyOf(req('GET', '/members'), { ...parts, siteId: 'rijpe' })).not.toBe(key);
    expect(cache.keyOf(req('GET', '/members'), { ...parts, locale: 'de' })).not.toBe(key);
    expect(cache.keyOf(req('GET', '/members'), { ...parts, country: 'DE' })).not.toBe(key);
  });
});

describe('member page cache configuration', () => {
  it('PAGE_CACHE_MS=0 turns it off', () => {
    expect(createPageCache({ now: () => 0 }, 0)).toBeNull();
    expect(createPageCache({ now: () => 0 }, 1)).not.toBeNull();
  });
});
