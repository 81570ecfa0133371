import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app';

// Lookups of a chat by its id go through an index, never a read of every member's chat rows: the send's
// update of a new conversation's two rows, who is in a chat (an image's check), and the cascade when a
// conversation goes with an account; and a member's received likes (badge and list). SQLite's plans (PostgreSQL chooses by table size; same indexes).
describe('query plans of hot lookups (sqlite)', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp('sqlite'); });
  afterAll(() => t.close());

  const plan = (sql: string) => (t.app.db.raw.sqlite!.prepare(`explain query plan ${sql}`).all(1, 2, 3) as { detail: string }[]).map((r) => r.detail).join('\n');

  it.each([
    ['the send marking a new conversation', 'update chat_participants set hidden = 0 where conversation_id = ? and profile_id in (?, ?)'],
    ['who is in a conversation', 'select profile_id from chat_participants where conversation_id = ? and ? and ?'],
    ['the cascade of a deleted conversation', 'delete from chat_participants where conversation_id = ? and ? and ?'],
  ])('%s uses an index', (_name, sql) => {
    const detail = plan(sql);
    expect(detail).toMatch(/SEARCH chat_participants USING/);
    expect(detail).not.toMatch(/SCAN chat_participants/);
  });

  // A member's received likes: the new-likes badge (every page) and the likes screen's list, new first.
  it('the new-likes badge counts only the new likes, from an index', () => {
    expect(plan('select count(*) from likes where liked_profile_id = ? and is_new = ? and ?')).toMatch(/SEARCH likes USING COVERING INDEX likes_liked_new_idx \(liked_profile_id=\? AND is_new=\?\)/);
  });
  it('the received likes, new first then newest, are read in index order (no sort of all of them)', () => {
    const detail = plan('select liker_profile_id from likes where liked_profile_id = ? and ? and ? order by is_new desc, created_at desc limit 100');
    expect(detail).toMatch(/SEARCH likes USING INDEX likes_liked_new_idx/);
    expect(detail).not.toMatch(/TEMP B-TREE/);
  });
});
