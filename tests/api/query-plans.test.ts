import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { excludedMatchesQuery, filterValues } from '../../src/server/profiles/profiles.service';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

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

// Who a member's search leaves out (their own profile, blocks either way): the few ids are read first and
// each profile found by its primary key, never a walk of the filters' index over every match.
describe.each(DIALECTS)('the search\'s excluded profiles (%s)', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    if (dialect === 'postgres') {
      // PostgreSQL plans by its statistics: a site with many matches, analysed.
      await sql`insert into profiles (site_id, name, gender, sexuality, birth_date, country, last_active_at, created_at, status, invisible)
        select 'kindred', 'p' || i, case when i % 2 = 0 then 'female' else 'male' end, 'hetero', (1960 + i % 40)::text || '-05-05',
          case when i % 3 = 0 then 'DE' else 'NL' end, i, i, 'active', 0 from generate_series(1, 30000) i`.execute(t.app.db.db);
      await sql`analyze`.execute(t.app.db.db);
    }
  });
  afterAll(() => t.close());

  it('looks each one up by primary key', async () => {
    const filters = { gender: 'female', country: 'DE', min_age: 25, max_age: 60 } as const;
    const q = excludedMatchesQuery(t.app.db.db, t.app.sites.defaultSite.id, 5, filterValues(filters, Date.UTC(2026, 10, 28))).compile();
    const detail = dialect === 'sqlite'
      ? (t.app.db.raw.sqlite!.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[])) as { detail: string }[]).map((r) => r.detail).join('\n')
      : (await t.app.db.db.executeQuery<{ 'QUERY PLAN': string }>({ ...q, sql: `explain ${q.sql}` })).rows.map((r) => r['QUERY PLAN']).join('\n');
    if (dialect === 'sqlite') {
      expect(detail).toMatch(/SEARCH profiles USING INTEGER PRIMARY KEY/);
      expect(detail).not.toMatch(/profiles_age_idx/);
    } else {
      expect(detail).toMatch(/Index Scan using profiles_pkey on profiles/);
      expect(detail).not.toMatch(/profiles_age_idx/);
    }
  });
});
