import { fsync, openSync } from 'node:fs';

type Fsync = (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void;

export interface GroupCommit {
  /** Counts one commit (called synchronously right after SQLite finished it). */
  committed(): void;
  /** Settles once every commit counted before the call is on disk. */
  durable(): Promise<void>;
  /** WAL fsyncs done so far (tests, benches). */
  syncs(): number;
}

/**
 * Group commit for SQLite in WAL mode with `synchronous=NORMAL`: commits land in the WAL file
 * (the OS cache) at once, and `durable()` asks for an fsync of the WAL that starts after the call.
 * An fsync covers every commit finished before it started, so all the commits made while one
 * fsync runs share the next. fsync runs on libuv's thread pool, off the event loop.
 * `walFile` null (an in-memory database) has nothing to sync.
 */
export function groupCommit(walFile: string | null, sync: Fsync = fsync): GroupCommit {
  let commits = 0;
  let synced = 0;
  let syncs = 0;
  let fd: number | null = null;
  let running: { covers: number; done: Promise<void> } | null = null;
  let next: Promise<void> | null = null;

  const start = (): Promise<void> => {
    const covers = commits;
    const done = new Promise<void>((resolve, reject) => {
      try {
        // Opened at the first need: by then a commit has created the WAL, which stays while the database is open.
        fd ??= openSync(walFile as string, 'r+');
      } catch (err) {
        running = null;
        return reject(err);
      }
      sync(fd, (err) => {
        running = null;
        if (err) return reject(err);
        syncs++;
        synced = Math.max(synced, covers);
        resolve();
      });
    });
    running = { covers, done };
    return done;
  };

  return {
    committed() {
      commits++;
    },
    durable() {
      const target = commits;
      if (walFile === null || synced >= target) return Promise.resolve();
      if (running && running.covers >= target) return running.done;
      if (!running) return start();
      // The fsync under way started before this commit: the next one starts when it ends.
      next ??= running.done.catch(() => undefined).then(() => {
        next = null;
        return start();
      });
      return next;
    },
    syncs: () => syncs,
  };
}
