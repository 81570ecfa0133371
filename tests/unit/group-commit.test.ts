import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupCommit } from '../../src/server/db/group-commit';
import { openDatabase } from '../../src/server/db/database';

/** A WAL file and an fsync that finishes only when the test says so, logging what happened. */
function setup() {
  const wal = path.join(mkdtempSync(path.join(tmpdir(), 'gc-')), 'db-wal');
  writeFileSync(wal, '');
  const log: string[] = [];
  const pending: ((err: NodeJS.ErrnoException | null) => void)[] = [];
  const commits = groupCommit(wal, (_fd, done) => {
    log.push('fsync start');
    pending.push(done);
  });
  const finish = async (err: NodeJS.ErrnoException | null = null) => {
    pending.shift()?.(err);
    await new Promise((r) => setImmediate(r));
  };
  return { commits, log, pending, finish };
}

describe('group commit', () => {
  it('needs no fsync when nothing was committed, and one for a commit', async () => {
    const { commits, pending, finish } = setup();
    await commits.durable();
    expect(pending).toHaveLength(0);
    commits.committed();
    let done = false;
    const waiting = commits.durable().then(() => { done = true; });
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    expect(pending).toHaveLength(1);
    await finish();
    await waiting;
    expect(done).toBe(true);
    // Already on disk: no second fsync.
    await commits.durable();
    expect(commits.syncs()).toBe(1);
  });

  it('shares one fsync among every commit made while the previous one ran', async () => {
    const { commits, pending, finish } = setup();
    commits.committed();
    const first = commits.durable();
    // 50 commits arrive while the first fsync runs: none is covered by it, all by the next one.
    const order: string[] = [];
    const later = Array.from({ length: 50 }, (_, i) => {
      commits.committed();
      return commits.durable().then(() => order.push(`later ${i}`));
    });
    await new Promise((r) => setImmediate(r));
    expect(pending).toHaveLength(1);
    await finish();
    await first;
    expect(order).toHaveLength(0);
    expect(pending).toHaveLength(1);
    await finish();
    await Promise.all(later);
    expect(order).toHaveLength(50);
    expect(commits.syncs()).toBe(2);
  });

  it('rejects when the fsync fails, and tries again on the next call', async () => {
    const { commits, finish } = setup();
    commits.committed();
    const failing = expect(commits.durable()).rejects.toThrow('EIO');
    await finish(Object.assign(new Error('EIO'), { code: 'EIO' }));
    await failing;
    const retry = commits.durable();
    await finish();
    await expect(retry).resolves.toBeUndefined();
  });

  it('counts SQLite commits (transactions and single writes), not reads', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gc-db-'));
    const handle = openDatabase(`sqlite:${path.join(dir, 'x.db')}`);
    const { db } = handle;
    await db.schema.createTable('t').addColumn('n', 'integer').execute();
    const syncs = () => handle.raw.commits?.syncs();
    await handle.durable();
    const before = syncs() as number;
    await db.insertInto('t' as never).values({ n: 1 } as never).execute();
    await handle.durable();
    expect(syncs()).toBe(before + 1);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('t' as never).values({ n: 2 } as never).execute();
      await trx.insertInto('t' as never).values({ n: 3 } as never).execute();
    });
    await handle.durable();
    expect(syncs()).toBe(before + 2);
    // Reads commit nothing: no fsync.
    await db.selectFrom('t' as never).selectAll().execute();
    await handle.durable();
    expect(syncs()).toBe(before + 2);
    expect((handle.raw.sqlite?.pragma('synchronous', { simple: true }) as number)).toBe(1);
    await db.destroy();
  });
});
