import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeMember, post } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// SQLite commits without waiting for the disk; the group commit syncs the WAL once for many
// commits. A reported write must be on disk: every API answer waits for `durable()`.
for (const dialect of DIALECTS) {
  describe(`answers wait for their writes to be durable (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect);
    });
    afterAll(async () => t.close());

    it('a chat send (credits taken) is answered only after the database reports it durable', async () => {
      const ann = await activeMember(t, 'Ann', { paid: true, credits: 50 });
      const bob = await activeMember(t, 'Bob', { gender: 'male' });
      const real = t.app.db.durable;
      const log: string[] = [];
      t.app.db.durable = async () => {
        log.push('durable asked');
        await new Promise((r) => setTimeout(r, 150));
        await real();
        log.push('durable');
      };
      try {
        const res = await t.request('/api/messages.php', post(ann.cookie, { kind: 'text', client_id: randomUUID(), profile_id: bob.profileId, text: 'kept' }));
        log.push(`answer ${res.status}`);
        expect(log).toEqual(['durable asked', 'durable', 'answer 201']);
      } finally {
        t.app.db.durable = real;
      }
    });

    it('a write whose durability fails is not reported as done', async () => {
      const cat = await activeMember(t, 'Cat', { paid: true, credits: 50 });
      const dan = await activeMember(t, 'Dan', { gender: 'male' });
      const real = t.app.db.durable;
      t.app.db.durable = () => Promise.reject(Object.assign(new Error('EIO: fsync failed'), { code: 'EIO' }));
      try {
        const res = await t.request('/api/messages.php', post(cat.cookie, { kind: 'text', client_id: randomUUID(), profile_id: dan.profileId, text: 'maybe lost' }));
        expect(res.status).toBe(500);
        expect((await res.json()).error).toBe('server_error');
      } finally {
        t.app.db.durable = real;
      }
    });
  });
}
