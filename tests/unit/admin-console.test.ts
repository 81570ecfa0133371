import { describe, expect, it } from 'vitest';
import { ACTION_PERMISSION, ADMIN_SECTIONS, can, MemberActionSchema, permissionsOf, STAFF_ROLES } from '../../src/shared/admin.contract';
import { toCsv } from '../../src/server/admin/stats.service';
import * as v from 'valibot';

describe('staff roles', () => {
  it('give each role only its own rights', () => {
    expect(permissionsOf('operator')).toEqual(['fictional', 'inbox']);
    expect(permissionsOf('moderator')).toEqual(['members', 'member_conduct', 'moderation']);
    expect(permissionsOf('finance')).toEqual(['dashboard', 'members', 'member_money', 'payments', 'discounts']);
    expect(permissionsOf('admin')).toHaveLength(11);
    // Nobody but finance and admin touches money; operators never see members' accounts.
    for (const role of STAFF_ROLES) {
      expect(can(role, 'member_money')).toBe(role === 'admin' || role === 'finance');
      if (role === 'operator') expect(can(role, 'members')).toBe(false);
    }
  });

  it('map every member action and console section to a right', () => {
    for (const permission of Object.values(ACTION_PERMISSION)) expect(permissionsOf('admin')).toContain(permission);
    for (const section of ADMIN_SECTIONS) expect(can('admin', section.permission)).toBe(true);
  });

  it('need a reason for every member action', () => {
    const without = v.safeParse(MemberActionSchema, { action: 'ban', user_id: 3 });
    expect(without.success).toBe(false);
    expect(without.issues?.[0].message).toBe('admin.error.reason_required');
    expect(v.safeParse(MemberActionSchema, { action: 'ban', user_id: 3, reason: ' spam ', confirmed: true }).output).toEqual({ action: 'ban', user_id: 3, reason: 'spam', confirmed: true });
    // Destructive actions need their confirmation.
    expect(v.safeParse(MemberActionSchema, { action: 'ban', user_id: 3, reason: 'spam' }).issues?.[0].message).toBe('admin.error.confirm_required');
    expect(v.safeParse(MemberActionSchema, { action: 'delete', user_id: 3, reason: 'spam' }).issues?.[0].message).toBe('admin.error.confirm_name');
  });
});

describe('CSV export', () => {
  it('quotes separators and neutralises spreadsheet formulas', () => {
    const csv = toCsv({ metric: 'funnel', columns: ['lander', 'network', 'views'], rows: [['gallery', '=HYPERLINK("x")', 3], ['video', 'a,b', 0]] });
    expect(csv).toBe('lander,network,views\r\ngallery,"\'=HYPERLINK(""x"")",3\r\nvideo,"a,b",0\r\n');
  });
});
