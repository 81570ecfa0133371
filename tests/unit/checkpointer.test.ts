import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BACKSTOP_FRAMES, CHECKPOINT_COMMITS, RESTART_FRAMES, checkpointer } from '../../src/server/db/checkpointer';
import { directSqliteOf, openDatabase } from '../../src/server/db/database';
import { createLimiterStore } from '../../src/server/accounts/login-limiter';
import { sql } from 'kysely';

const until = async (done: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('WAL checkpoints on a worker thread', () => {
  it('checkpoints off the event loop, restarts the WAL, keeps every row, and stops with the handle', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'ckpt-')), 'test.db');
    const db = openDatabase(`sqlite:${file}`);
    const sqlite = db.raw.sqlite!;
    const checkpoints = db.raw.checkpoints!;
    const direct = directSqliteOf(db.db)!;
    direct.prepare('create table t (id integer primary key, v blob)').run();
    const insert = direct.prepare('insert into t (v) values (?)');
    // Commits of a few pages each, counted by the handle (as every commit of the app is).
    for (let k = 0; k < CHECKPOINT_COMMITS * 4; k++) insert.run(Buffer.alloc(6000, k));
    // Until the worker is done: no new checkpoint for 300 ms (the 100 ms timer included).
    let seen = -1;
    let since = Date.now();
    await until(() => {
      if (checkpoints.done() !== seen) {
        seen = checkpoints.done();
        since = Date.now();
      }
      return seen > 0 && Date.now() - since > 300;
    });
    // SQLite's own checkpoint on the app's connection is only a backstop now.
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_FRAMES);
    // Nothing was committed while the last checkpoint ran: the next commit starts the WAL again.
    insert.run(Buffer.alloc(10));
    const other = new SQLite(file);
    try {
      const [state] = other.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
      expect(state.busy).toBe(0);
      expect(state.log).toBeLessThan(10);
      expect(other.prepare('select count(*) as n from t').get()).toEqual({ n: CHECKPOINT_COMMITS * 4 + 1 });
    } finally {
      other.close();
    }
    // A lone commit is checkpointed within 100 ms or so, with no more commits needed.
    const before = checkpoints.done();
    insert.run(Buffer.alloc(10));
    await until(() => checkpoints.done() > before);
    await db.db.destroy();
    // Closed with the handle: no more checkpoints, and the file opens again with every row.
    checkpoints.committed();
    expect(checkpoints.running()).toBeNull();
    const again = new SQLite(file);
    expect(again.prepare('select count(*) as n from t').get()).toEqual({ n: CHECKPOINT_COMMITS * 4 + 2 });
    again.close();
  });

  it('under steady commits, has writers wait for one checkpoint once the WAL is long, and the WAL starts again', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'ckpt-')), 'test.db');
    const db = openDatabase(`sqlite:${file}`);
    const checkpoints = db.raw.checkpoints!;
    const direct = directSqliteOf(db.db)!;
    direct.prepare('create table t (id integer primary key, v blob)').run();
    const insert = direct.prepare('insert into t (v) values (?)');
    const frames = (c: SQLite.Database) => (c.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0].log;
    const other = new SQLite(file);
    try {
      // Commits one after the other, never waiting (as Kysely's writers): the WAL grows past RESTART_FRAMES.
      let commits = 0;
      const end = Date.now() + 20_000;
      while (!checkpoints.running()) {
        if (Date.now() > end) throw new Error('no restart checkpoint');
        insert.run(Buffer.alloc(40_000, commits++));
        await new Promise((r) => setImmediate(r));
      }
      // The WAL file keeps its longest length (frames of a page and a 24-byte header each): it grew past RESTART_FRAMES.
      // (Counting commits instead is not exact: a 40 KB row writes 10 to 12 frames.)
      const pageSize = direct.pragma('page_size', { simple: true }) as number;
      expect(Math.floor((statSync(`${file}-wal`).size - 32) / (pageSize + 24))).toBeGreaterThanOrEqual(RESTART_FRAMES);
      // A writer that waits for it (every write through Kysely) finds the WAL taken whole: its commit starts it again.
      await checkpoints.running();
      insert.run(Buffer.alloc(10));
      expect(frames(other)).toBeLessThan(5);
      expect(other.prepare('select count(*) as n from t').get()).toEqual({ n: commits + 1 });
    } finally {
      other.close();
      await db.db.destroy();
    }
  });

  it('has writes through Kysely and the rate limiter wait for that checkpoint, so the WAL starts again under their steady writes', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'ckpt-')), 'test.db');
    const db = openDatabase(`sqlite:${file}`);
    const store = createLimiterStore(db, null);
    const limiter = await store.create({ keyPrefix: 'ckpt', points: 1_000_000, duration: 60 });
    await sql`create table t (id integer primary key, v blob)`.execute(db.db);
    const pageSize = directSqliteOf(db.db)!.pragma('page_size', { simple: true }) as number;
    const walFrames = () => Math.floor((statSync(`${file}-wal`).size - 32) / (pageSize + 24));
    try {
      // As a busy server: each request a count and a transaction of a few pages, the loop free between them.
      // Without the waits, the app's connection writes while every restart checkpoint runs and the WAL
      // grows until SQLite's own checkpoint takes it inside a commit, at BACKSTOP_FRAMES.
      for (let k = 0; k < (BACKSTOP_FRAMES * 1.5) / 10; k++) {
        await limiter.consume(`member-${k % 50}`);
        await db.db.transaction().execute(async (trx) => {
          await sql`insert into t (v) values (${Buffer.alloc(20_000, k)})`.execute(trx);
          await sql`insert into t (v) values (${Buffer.alloc(20_000, k + 1)})`.execute(trx);
        });
        await new Promise((r) => setImmediate(r));
      }
      expect(db.raw.checkpoints!.done()).toBeGreaterThan(0);
      // The WAL file keeps its longest length: it never came near the backstop.
      expect(walFrames()).toBeLessThan(RESTART_FRAMES * 2);
    } finally {
      await store.close();
      await db.db.destroy();
    }
  });

  it('never keeps the process alive: a script that checkpointed and never closed the handle ends', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ckpt-'));
    const script = path.join(dir, 'script.mts');
    writeFileSync(script, `
      import { directSqliteOf, openDatabase } from ${JSON.stringify(path.resolve('src/server/db/database.ts'))};
      const db = openDatabase(${JSON.stringify(`sqlite:${path.join(dir, 'test.db')}`)});
      directSqliteOf(db.db)!.prepare('create table t (x)').run();
      await new Promise((r) => setTimeout(r, 400));
      console.log('checkpoints', db.raw.checkpoints!.done());
    `);
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stdout.trim()).toBe('checkpoints 1');
    expect(run.status).toBe(0);
  });

  it('gives SQLite its own checkpoint back when the worker fails', async () => {
    const pragmas: string[] = [];
    const errors: unknown[] = [];
    const handle = { pragma: (source: string) => void pragmas.push(source) };
    const missing = path.join(mkdtempSync(path.join(tmpdir(), 'ckpt-')), 'missing.db');
    const c = checkpointer(handle, missing, (err) => errors.push(err));
    for (let k = 0; k < CHECKPOINT_COMMITS; k++) c.committed();
    // A writer waiting for the checkpoint goes on once it failed.
    await c.running();
    await until(() => errors.length > 0);
    expect(pragmas.at(-1)).toBe('wal_autocheckpoint = 1000');
    expect(c.running()).toBeNull();
    c.close();
  });
});
