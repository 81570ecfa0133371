import { markMembersChanged, memberChangedSince, type WriteWatch } from '../db/database';
import type { EventBus, Invalidation } from '../events/bus';
import type { Profile, User } from '../db/schema';

/** A member's profile and main photo as the session lookup reads them with the user. */
export interface MemberExtras {
  /** `gender` and `sexuality`: whom a plain member search and the swipe deck look for (`lookingFor`). */
  profile: { id: number; name: string; status: 'active' | 'disabled' | 'deleted'; invisible: number; gender: Profile['gender']; sexuality: Profile['sexuality'] } | null;
  photo: { filename: string; thumb_filename: string; status: string } | null;
}

/** A signed-in member as a request sees it (`badges`: read with the session, absent without a profile). */
export interface SessionMember {
  user: User;
  extras: MemberExtras;
  /** When the session itself ends (epoch ms, compared with the app clock). */
  sessionExpiresAt: number;
  badges?: { unread_messages: number; new_likes: number };
  /** GET /api/user.php's JSON body for this member, once built. */
  answer?: string;
}

/** Taken when a lookup starts; `store` keeps its result only if neither number moved meanwhile. */
export interface LookupTicket {
  generation: number;
  changes: number;
  /** `WriteWatch.seq`: a write or invalidation naming the member after it makes the result stale. */
  seq: number;
}

interface Entry {
  member: SessionMember;
  /** `WriteWatch.generation` when the lookup started: any write since makes the entry stale. */
  generation: number;
  /** `WriteWatch.seq` when the lookup started: a write or invalidation naming this member since makes it stale. */
  seq: number;
  /** performance.now() of the lookup. */
  storedAt: number;
}

/**
 * Who is behind a session cookie, kept for a moment per process (`SESSION_CACHE_MS`), so the many
 * requests of one page view or a polling tab do not each look the session up again.
 *
 * An entry is used only while (1) it is younger than the lifetime, (2) no write to the tables it was
 * read from went through this process's database handle since (the write watch: logout, password
 * change, deletion, credits, profile, photo, badge changes are all writes there; a write that names the
 * members it changes — a chat send — makes only theirs stale), (3) no process said
 * the member changed over the event bus (logout, password change/reset, deletion, activation, mail
 * change, every realtime event and every write request the member made — sent after the commit),
 * and (4) the session has not expired. Unknown tokens are never cached.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByUser = new Map<number, Set<string>>();
  /** Moves on every drop of sessions by token: a lookup in flight meanwhile may have read what it replaced. */
  private changes = 0;

  constructor(
    private readonly writes: WriteWatch,
    private readonly bus: EventBus,
    private readonly ttlMs: number,
    private readonly maxEntries = 20_000,
  ) {
    if (ttlMs > 0) bus.onInvalidate((message) => this.drop(message));
  }

  /** What to pass to `store` for a lookup that starts now. */
  ticket(): LookupTicket {
    return { generation: this.writes.generation, changes: this.changes, seq: this.writes.seq };
  }

  get(tokenHash: string, siteId: string, now: number): SessionMember | undefined {
    if (this.ttlMs <= 0) return undefined;
    const key = `${siteId}\u0000${tokenHash}`;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== this.writes.generation || memberChangedSince(this.writes, entry.member.user.id, entry.seq)
      || performance.now() - entry.storedAt > this.ttlMs || entry.member.sessionExpiresAt <= now) {
      this.remove(key, entry.member.user.id);
      return undefined;
    }
    return entry.member;
  }

  /** Keeps a lookup's result, unless something was written since it started. */
  store(tokenHash: string, siteId: string, member: SessionMember, ticket: LookupTicket) {
    const { generation, seq } = ticket;
    if (this.ttlMs <= 0 || generation !== this.writes.generation || ticket.changes !== this.changes || memberChangedSince(this.writes, member.user.id, seq)) return;
    if (this.entries.size >= this.maxEntries) this.clear();
    const key = `${siteId}\u0000${tokenHash}`;
    this.entries.set(key, { member, generation, seq, storedAt: performance.now() });
    const keys = this.keysByUser.get(member.user.id) ?? new Set<string>();
    keys.add(key);
    this.keysByUser.set(member.user.id, keys);
  }

  /**
   * Forgets members (or single sessions by token hash) here at once and in every other process
   * through the bus. Call it after the change committed.
   */
  invalidate(message: Invalidation) {
    if (this.ttlMs <= 0) return Promise.resolve();
    this.drop(message);
    return this.bus.invalidate(message);
  }

  private drop(message: Invalidation) {
    // A lookup in flight for one of these members may have read what changed: it is not kept (`store`).
    if (message.users?.length) markMembersChanged(this.writes, message.users);
    for (const userId of message.users ?? []) {
      for (const key of this.keysByUser.get(userId) ?? []) this.entries.delete(key);
      this.keysByUser.delete(userId);
    }
    if (message.tokens?.length) {
      this.changes++;
      const tokens = new Set(message.tokens);
      for (const [key, entry] of this.entries) {
        if (tokens.has(key.slice(key.indexOf('\u0000') + 1))) this.remove(key, entry.member.user.id);
      }
    }
  }

  private remove(key: string, userId: number) {
    this.entries.delete(key);
    const keys = this.keysByUser.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByUser.delete(userId);
  }

  clear() {
    this.entries.clear();
    this.keysByUser.clear();
  }
}
