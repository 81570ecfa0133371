import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSessionMember, findUserById } from '../../src/server/accounts/accounts.repository';
import { hashToken } from '../../src/server/accounts/tokens';
import { activeMember } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// findSessionMember copies the user's columns out of the joined row (src/server/accounts/accounts.repository.ts):
// the user it answers is the users row itself, column for column and in the same order, frozen.
for (const dialect of DIALECTS) {
  describe(`the member behind a session (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => { t = await createTestApp(dialect); });
    afterAll(() => t.close());

    it('is the users row, column for column, with the profile and no photo', async () => {
      const m = await activeMember(t, 'Rowena', { credits: 12, paid: true });
      const token = decodeURIComponent(m.cookie.split(';')[0].split('=')[1]);
      for (let k = 0; k < 2; k++) {
        const member = await findSessionMember(t.app.db.db, hashToken(token), 'kindred', t.clock.now());
        const row = await findUserById(t.app.db.db, m.userId);
        expect(member?.user).toEqual(row);
        expect(Object.keys(member!.user)).toEqual(Object.keys(row!));
        expect(JSON.stringify(member!.user)).toBe(JSON.stringify(row));
        expect(Object.isFrozen(member!.user)).toBe(true);
        expect(member?.extras.profile).toEqual({ id: m.profileId, name: 'Rowena', status: 'active', invisible: 0, gender: 'female', sexuality: 'hetero' });
        expect(member?.extras.photo).toBeNull();
      }
      // Another site's host: no session there.
      expect(await findSessionMember(t.app.db.db, hashToken(token), 'maennerhafen', t.clock.now())).toBeUndefined();
    });
  });
}
