import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Commits after which a checkpoint starts at once (else 100 ms after the first of them). */
export const CHECKPOINT_COMMITS = 32;
const CHECKPOINT_DELAY_MS = 100;
/**
 * SQLite's own checkpoint on the app's connection (`wal_autocheckpoint`, in WAL frames) while the
 * worker runs: only a backstop for a WAL the worker could not restart, 10 × SQLite's default.
 */
export const BACKSTOP_FRAMES = 10_000;
const DEFAULT_FRAMES = 1000;
/** A WAL this long (frames since it last started from its beginning) gets a checkpoint that writers wait for. */
export const RESTART_FRAMES = 4000;

export interface Checkpointer {
  /** Counts one commit of the app's connection; starts a checkpoint once enough were made. */
  committed(): void;
  /**
   * While a checkpoint meant to restart the WAL runs, a promise that settles when it ended; else
   * null. Writes through Kysely and the SQLite rate limiter wait (`waitingForCheckpoints` in database.ts,
   * `CheckpointWaitingLimiter` in login-limiter.ts), so that the checkpoint takes every
   * frame and the next write starts the WAL from its beginning again.
   */
  running(): Promise<void> | null;
  /** Checkpoints done so far (tests, benches). */
  done(): number;
  close(): void;
}

// The worker: its own connection to the same file, which only ever checkpoints (PASSIVE: it never
// waits for or blocks the app's writers and readers). Plain CommonJS, evaluated as is.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ ok: db.pragma('wal_checkpoint(PASSIVE)')[0] });
  } catch (err) {
    parentPort.postMessage({ error: String(err) });
  }
});
`;

interface Handle {
  pragma(source: string): unknown;
}

/**
 * Checkpoints a SQLite database in WAL mode on a worker thread instead of the app's event loop.
 * SQLite's automatic checkpoint runs inside the commit that crosses 1000 WAL frames, on the
 * committing connection: it copies the frames into the database file and syncs the WAL and the
 * file — 10–60 ms of a blocked event loop every few hundred chat sends (`bench:chat`). Here a
 * second connection on a worker thread does it (the same checkpoint, the same syncs: what is
 * durable stays so), after every `CHECKPOINT_COMMITS` commits or 100 ms after a commit.
 * A checkpoint lets the next write start the WAL from its beginning again only when no commit came
 * in while it ran. Under a steady stream of commits that is rare, so once a checkpoint finds
 * `RESTART_FRAMES` frames or more, another one follows at once (it only has the frames written
 * meanwhile to copy) and writers that can wait for `running()` wait for that one. The app's
 * connection keeps SQLite's own checkpoint as a backstop at `BACKSTOP_FRAMES`, and goes back to the
 * default should the worker fail.
 */
export function checkpointer(sqlite: Handle, file: string, onError: (err: unknown) => void = () => undefined): Checkpointer {
  let worker: Worker | null = null;
  let failed = false;
  let closed = false;
  let pending = 0;
  let timer: NodeJS.Timeout | null = null;
  let current: { promise: Promise<void>; resolve: () => void; restart: boolean } | null = null;
  let again = false;
  let done = 0;

  const fail = (err: unknown) => {
    if (failed) return;
    failed = true;
    onError(err);
    try {
      sqlite.pragma(`wal_autocheckpoint = ${DEFAULT_FRAMES}`);
    } catch {
      // The connection is closed: nothing to checkpoint.
    }
    finish();
    void worker?.terminate();
    worker = null;
  };
  const finish = () => {
    const ending = current;
    current = null;
    ending?.resolve();
  };
  const start = (restart = false) => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (failed || closed) return;
    if (current) {
      again = true;
      return;
    }
    pending = 0;
    again = false;
    if (!worker) {
      try {
        worker = new Worker(WORKER, { eval: true, workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
      } catch (err) {
        return fail(err);
      }
      worker.on('message', (reply: { ok?: { busy: number; log: number; checkpointed: number }; error?: string }) => {
        const restarted = current?.restart;
        if (reply.error) onError(new Error(reply.error));
        else done++;
        finish();
        if (!restarted && (reply.ok?.log ?? 0) >= RESTART_FRAMES) start(true);
        else if (again) {
          again = false;
          start();
        }
      });
      worker.on('error', fail);
      worker.on('exit', () => {
        if (!closed) fail(new Error('checkpoint worker stopped'));
      });
      // Never what keeps the process alive (after the listeners: attaching one may ref it again).
      worker.unref();
      sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_FRAMES}`);
    }
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    current = { promise, resolve, restart };
    worker.postMessage('checkpoint');
  };

  return {
    committed() {
      if (failed || closed) return;
      pending++;
      if (pending >= CHECKPOINT_COMMITS) start();
      else if (!timer) {
        timer = setTimeout(start, CHECKPOINT_DELAY_MS);
        timer.unref();
      }
    },
    running: () => (current?.restart ? current.promise : null),
    done: () => done,
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      finish();
      worker?.postMessage('close');
      worker = null;
    },
  };
}
