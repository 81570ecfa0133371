import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../util/clock';
import type { Database } from '../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

/** Each process refreshes its members' presence rows this often while their tabs stay open. */
export const PRESENCE_REFRESH_MS = 30_000;
/** A row not refreshed for this long belongs to a process that died: the member counts as away. */
export const PRESENCE_STALE_MS = 3 * PRESENCE_REFRESH_MS;

/**
 * Who has an open tab (an SSE stream on /api/events.php), across processes: each process counts
 * its own streams per member and keeps one `member_presence` row per member with any, refreshed
 * in one UPDATE per process every 30 s and deleted when the last stream closes.
 */
export class Presence {
  readonly processId = `p-${process.pid}-${randomUUID().slice(0, 8)}`;
  private readonly counts = new Map<number, number>();
  private readonly writes = new Map<number, Promise<void>>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock) {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), PRESENCE_REFRESH_MS);
    this.timer.unref();
  }

  /** A stream of the member opened; resolves once other processes can see it. */
  open(userId: number): Promise<void> {
    this.counts.set(userId, (this.counts.get(userId) ?? 0) + 1);
    return this.sync(userId);
  }

  /** A stream of the member closed. */
  close(userId: number): Promise<void> {
    const left = (this.counts.get(userId) ?? 1) - 1;
    if (left <= 0) this.counts.delete(userId);
    else this.counts.set(userId, left);
    return this.sync(userId);
  }

  /** Writes the member's row to match the count, one write per member at a time. */
  private sync(userId: number): Promise<void> {
    const previous = this.writes.get(userId) ?? Promise.resolve();
    const next = previous.then(async () => {
      if (this.counts.has(userId)) {
        await this.db.insertInto('member_presence').values({ process_id: this.processId, user_id: userId, seen_at: this.clock.now() })
          .onConflict((oc) => oc.columns(['user_id', 'process_id']).doUpdateSet({ seen_at: this.clock.now() })).execute();
      } else {
        await this.db.deleteFrom('member_presence').where('process_id', '=', this.processId).where('user_id', '=', userId).execute();
      }
    }).catch(() => undefined);
    this.writes.set(userId, next);
    void next.then(() => { if (this.writes.get(userId) === next) this.writes.delete(userId); });
    return next;
  }

  async refresh(): Promise<void> {
    if (this.counts.size === 0) return;
    await this.db.updateTable('member_presence').set({ seen_at: this.clock.now() }).where('process_id', '=', this.processId).execute();
  }

  /** Forgets this process's streams (on shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.counts.clear();
    await Promise.all([...this.writes.values()]);
    await this.db.deleteFrom('member_presence').where('process_id', '=', this.processId).execute().catch(() => undefined);
  }
}

/** True while the member has an open tab in any process. */
export async function hasOpenTab(db: Q, userId: number, now: number): Promise<boolean> {
  const row = await db.selectFrom('member_presence').select('user_id').where('user_id', '=', userId).where('seen_at', '>=', now - PRESENCE_STALE_MS).executeTakeFirst();
  return row !== undefined;
}

/** Drops rows of processes that died without cleaning up (run by the hourly prune job). */
export async function pruneStalePresence(db: Q, now: number) {
  await db.deleteFrom('member_presence').where('seen_at', '<', now - PRESENCE_STALE_MS).execute();
}
