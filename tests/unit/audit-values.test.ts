import { describe, expect, it } from 'vitest';
import { getT } from '../../src/shared/i18n';
import { auditLines, auditTarget } from '../../src/server/pages/audit-values';

describe('audit before/after as operators read them', () => {
  it('names fields and states in the console language, never the stored ids', () => {
    const de = getT('de');
    expect(auditLines(de, 'photo', { status: 'under inspection' })).toEqual([`${de('admin.field.status')}: ${de('photo_status.under inspection')}`]);
    expect(auditLines(de, 'member', { status: 'not_confirmed' })[0]).toContain(de('admin.status.not_confirmed'));
    expect(auditLines(getT('fr'), 'member', { status: 'paid', refunded_amount: 0, amount: 2642 }).join(' ')).not.toMatch(/\b(paid|refunded_amount)\b/);
    expect(auditLines(getT('nl'), 'member', { dd_blocked: true })).toEqual([`${getT('nl')('admin.field.dd_blocked')}: ${getT('nl')('admin.yes')}`]);
    expect(auditLines(getT('en'), 'member', { deleted_at: Date.UTC(2026, 10, 27, 9, 30) })).toEqual(['Deleted on: 2026-11-27 09:30']);
  });

  it('shows nothing for no value, and what has no translation as it is stored', () => {
    const en = getT('en');
    expect(auditLines(en, null, null)).toEqual([]);
    expect(auditLines(en, 'discount', { code: 'SPRING' })).toEqual([`${en('admin.field.code')}: SPRING`]);
    expect(auditLines(en, 'member', { kinds: ['spam', 'contact'] })).toEqual([`${en('admin.field.kinds')}: spam, contact`]);
  });

  it('names a role change and its roles in the console language', () => {
    const nl = getT('nl');
    expect(auditLines(nl, 'staff', { role: 'admin' })).toEqual([`${nl('admin.field.role')}: ${nl('admin.role.admin')}`]);
    expect(auditLines(getT('de'), 'staff', { role: 'finance' })).toEqual(['Rolle: Finanzen']);
    expect(auditLines(getT('fr'), 'staff', { role: 'moderator' }).join(' ')).not.toMatch(/\b(role|moderator)\b/);
    expect(auditLines(getT('en'), 'staff', { role: 'auditor' })).toEqual(['Role: auditor']);
  });

  it('names what an entry was done to, not its stored type', () => {
    expect(auditTarget(getT('en'), 'member', 30)).toBe('Member #30');
    expect(auditTarget(getT('de'), 'staff', 19)).toBe('Mitarbeiter #19');
    expect(auditTarget(getT('nl'), 'member', 30)).toBe('Lid #30');
    expect(auditTarget(getT('fr'), 'discount', 4)).toBe('Code de réduction #4');
    expect(auditTarget(getT('en'), 'widget', 7)).toBe('widget #7');
    expect(auditTarget(getT('en'), null, null)).toBe('');
  });
});
