import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app';

// Lookups of a chat by its id go through an index, never a read of every member's chat rows: the send's
// update of a new conversation's two rows, who is in a chat (an image's check), and the cascade when a
// conversation goes with an account. SQLite's plans (PostgreSQL chooses by table size; same indexes).
describe('query plans of chat lookups by conversation (sqlite)', () => {
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
});
