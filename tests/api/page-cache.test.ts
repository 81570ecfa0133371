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
  // PostgreSQL's signal is the cluster's WAL position: any other database or test file writing at that
  // moment moves it, and a view that would have been sent again is rendered (never the other way). The
  // tests that expect a view to be sent again by its version may therefore meet a busy cluster: retried.
  const versionHitRetries = dialect === 'postgres' ? 3 : 0;
  let t: TestApp;
  let cache: PageCache;
  let server: Server;
  let base: string;
  let renders = 0;
  /** Runs in the middle of the next render (after its first read), once. */
  let duringRender: (() => Promise<void> | void) | null = null;
  let answer: { status: number; type: string; cookie?: string } = { status: 200, type: 'text/html; charset=utf-8' };

  /** When set, the page's data comes from this loader before the render (as main.ts loads member pages). */
  let withLoader = false;
  const loadNames = async () => (await t.app.db.db.selectFrom('profiles').select('name').orderBy('id').execute()).map((p) => p.name);

  /** A stand-in member page: reads the database, renders, sends — as main.ts drives Astro. */
  async function render(req: IncomingMessage, res: ServerResponse, loaded?: string[]) {
    const token = /kd_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const session = token ? await t.app.db.db.selectFrom('sessions').select('user_id').execute() : [];
    if (duringRender) {
      const hook = duringRender;
      duringRender = null;
      await hook();
    }
    const names = loaded ?? (await loadNames());
    renders++;
    res.statusCode = answer.status;
    res.setHeader('content-type', answer.type);
    if (answer.cookie) res.setHeader('set-cookie', answer.cookie);
    res.write(`<p>${names.join(',')}</p>`);
    res.end(`<p>render ${renders} sessions ${session.length}</p>`);
  }

  beforeEach(async () => {
    t = await createTestApp(dialect);
    renders = 0;
    duringRender = null;
    withLoader = false;
    answer = { status: 200, type: 'text/html; charset=utf-8' };
    cache = createPageCache(t.app.db, t.clock, MAX_AGE) as PageCache;
    server = createServer((req, res) => {
      const token = /kd_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      const key = cache.keyOf(req, { siteId: 'kindred', secure: false, locale: 'en', country: 'NL', token });
      (async () => {
        let loaded: string[] | undefined;
        if (key) {
          const started = cache.versionUseful(key) ? await cache.version() : null;
          if (cache.serve(key, res, { version: started })) return;
          let digest: string | null = null;
          if (withLoader) {
            loaded = await loadNames();
            digest = createHash('sha256').update(JSON.stringify(loaded)).digest('hex');
            if (cache.serve(key, res, { digest })) return;
          }
          cache.record(key, res, { started, digest });
        }
        await render(req, res, loaded);
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
    const text = await res.text();
    // A moment for the answer to be stored (it is kept as it ends).
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { status: res.status, text, how: res.headers.get('x-page-cache') };
  };

  it('sends a repeated view again without rendering while nothing changed', { retry: versionHitRetries }, async () => {
    const ann = await activeMember(t, 'Ann');
    const first = await get('/members', ann.cookie);
    const second = await get('/members', ann.cookie);
    expect(renders).toBe(1);
    expect(second).toEqual({ ...first, how: 'unchanged' });
    expect(cache.size).toBe(1);
  });

  it('renders again after a write through Kysely, a raw statement, or another connection', async () => {
    const ann = await activeMember(t, 'Ann');
    await get('/members', ann.cookie);
    await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
    expect((await get('/members', ann.cookie)).text).toContain('Anna');
    // A statement that bypasses Kysely (and so its write watch) still counts: the database counts the rows.
    if (dialect === 'sqlite') t.app.db.raw.sqlite?.prepare("update profiles set name = 'Annie'").run();
    else await t.app.db.raw.pool?.query(`update ${t.app.db.schema}.profiles set name = 'Annie'`);
    expect((await get('/members', ann.cookie)).text).toContain('Annie');
    // Another process on the same file.
    await writeFromAnotherProcess((db) => db.updateTable('profiles').set({ name: 'Anne' }).execute());
    expect((await get('/members', ann.cookie)).text).toContain('Anne');
    expect(renders).toBe(4);
  });

  it('renders again once the page is as old as PAGE_CACHE_MS, and when the clock went back', { retry: versionHitRetries }, async () => {
    const ann = await activeMember(t, 'Ann');
    await get('/members', ann.cookie);
    t.clock.advance(MAX_AGE - 1);
    await get('/members', ann.cookie);
    expect(renders).toBe(1);
    t.clock.advance(1);
    await get('/members', ann.cookie);
    expect(renders).toBe(2);
    t.clock.advance(-10_000);
    await get('/members', ann.cookie);
    expect(renders).toBe(3);
  });

  it('renders again when the database changed during the render (the version it began at never comes back)', async () => {
    const ann = await activeMember(t, 'Ann');
    duringRender = async () => {
      await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
    };
    await get('/members', ann.cookie);
    await get('/members', ann.cookie);
    expect(renders).toBe(2);
    expect(cache.size).toBe(1);
  });

  it.runIf(dialect === 'sqlite')('stores nothing rendered while a transaction was open on the shared connection (it could still roll back)', async () => {
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

  it.runIf(dialect === 'sqlite')('never sends again a render that saw a transaction opened during it, which then rolled back', async () => {
    const ann = await activeMember(t, 'Ann');
    const sqlite = t.app.db.raw.sqlite;
    if (!sqlite) throw new Error('sqlite');
    duringRender = () => {
      sqlite.exec('begin');
      sqlite.prepare("update profiles set name = 'Ghost'").run();
    };
    expect((await get('/members', ann.cookie)).text).toContain('Ghost');
    sqlite.exec('rollback');
    const after = await get('/members', ann.cookie);
    expect(after.how).toBe('rendered');
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
      if (dialect === 'postgres') {
        await written;
        expect((await get('/members', ann.cookie)).text).not.toContain('Later');
      }
      commit();
      await pending;
      expect((await get('/members', ann.cookie)).text).toContain('Later');
    } finally {
      await other.db.destroy();
    }
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

  it('keeps at most its number of entries, dropping the least recently used first', { retry: versionHitRetries }, async () => {
    const ann = await activeMember(t, 'Ann');
    const small = createPageCache(t.app.db, t.clock, MAX_AGE, 2) as PageCache;
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

  it('keys pages by session, URL and request: another member never gets a page rendered for someone else', { retry: versionHitRetries }, async () => {
    const ann = await activeMember(t, 'Ann');
    const bob = await activeMember(t, 'Bob');
    await get('/members', ann.cookie);
    await get('/members', bob.cookie);
    await get('/members?gender=female', ann.cookie);
    await get('/members', ann.cookie, { headers: { 'accept-encoding': 'gzip' } });
    expect(renders).toBe(4);
    expect(cache.size).toBe(4);
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
  describe('pages with a loader (their inputs are read on every view)', () => {
    beforeEach(() => {
      withLoader = true;
    });

    it('sends a view again after writes elsewhere in the database, by this or another process', async () => {
      const ann = await activeMember(t, 'Ann');
      const first = await get('/members', ann.cookie);
      expect(first.how).toBe('rendered');
      expect((await get('/members', ann.cookie)).how).toBe('unchanged');
      // Writes the page does not show: its loader reads the same, so the render is sent again.
      await t.app.db.db.updateTable('users').set({ credits: 77 }).execute();
      const again = await get('/members', ann.cookie);
      expect(again).toEqual({ ...first, how: 'same-inputs' });
      await writeFromAnotherProcess((db) => db.updateTable('users').set({ credits: 78 }).execute());
      expect((await get('/members', ann.cookie)).how).toBe('same-inputs');
      expect(renders).toBe(1);
    });

    it('renders again when what the page shows changed, by this or another process', async () => {
      const ann = await activeMember(t, 'Ann');
      await get('/members', ann.cookie);
      await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
      const changed = await get('/members', ann.cookie);
      expect(changed.how).toBe('rendered');
      expect(changed.text).toContain('Anna');
      await writeFromAnotherProcess((db) => db.updateTable('profiles').set({ name: 'Anne' }).execute());
      expect((await get('/members', ann.cookie)).text).toContain('Anne');
      expect(renders).toBe(3);
      // Back to a value seen before: the latest render is for other inputs, so this one renders too.
      await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
      expect((await get('/members', ann.cookie)).text).toContain('Anna');
      expect(renders).toBe(4);
    });

    it('matches an answer rendered while the database changed by its inputs only, and reads the version once', async () => {
      const ann = await activeMember(t, 'Ann');
      duringRender = async () => {
        await t.app.db.db.updateTable('users').set({ credits: 9 }).execute();
      };
      expect((await get('/members', ann.cookie)).how).toBe('rendered');
      expect(cache.size).toBe(1);
      let reads = 0;
      const version = cache.version.bind(cache);
      cache.version = () => {
        reads++;
        return version();
      };
      // The version moved since the render began: the inputs decide, and the entry's later views skip the read.
      expect((await get('/members', ann.cookie)).how).toBe('same-inputs');
      expect(reads).toBe(1);
      expect((await get('/members', ann.cookie)).how).toBe('same-inputs');
      expect(reads).toBe(1);
      await t.app.db.db.updateTable('profiles').set({ name: 'Anna' }).execute();
      const changed = await get('/members', ann.cookie);
      expect(changed.how).toBe('rendered');
      expect(changed.text).toContain('Anna');
      expect(renders).toBe(2);
    });

    it('keeps the age limit, and never hands one member another member\'s page', async () => {
      const ann = await activeMember(t, 'Ann');
      const bob = await activeMember(t, 'Bob');
      await get('/members', ann.cookie);
      await t.app.db.db.updateTable('users').set({ credits: 5 }).execute();
      const bobs = await get('/members', bob.cookie);
      expect(bobs.how).toBe('rendered');
      expect(renders).toBe(2);
      t.clock.advance(MAX_AGE);
      await t.app.db.db.updateTable('users').set({ credits: 6 }).execute();
      expect((await get('/members', ann.cookie)).how).toBe('rendered');
      expect(renders).toBe(3);
    });
  });
});

describe('member page cache configuration', () => {
  it('PAGE_CACHE_MS=0 turns it off', async () => {
    const t = await createTestApp('sqlite');
    try {
      expect(createPageCache(t.app.db, t.clock, 0)).toBeNull();
    } finally {
      await t.close();
    }
  });

});
