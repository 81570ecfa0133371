import type { TFunction } from 'i18next';

/** Where each target's `status` values are translated; then the others in turn. */
const STATUS_PREFIXES: Record<string, string> = {
  photo: 'photo_status.',
  report: 'admin.report_status.',
  payment: 'shop.status_',
  member: 'admin.status.',
  discount: 'admin.status.',
};
const FALLBACKS = ['shop.status_', 'admin.status.', 'photo_status.', 'admin.report_status.'];
/** Fields other than `status` whose stored values have a translation: where to look. */
const VALUE_PREFIXES: Record<string, string> = { role: 'admin.role.' };

/** What an entry was done to as an operator reads it: "Mitglied #30", "Staff #19"; an unknown type as it is stored. */
export function auditTarget(t: TFunction, targetType: string | null, targetId: number | null): string {
  if (!targetType) return '';
  return t(`admin.target.${targetType}`, { id: targetId ?? '', defaultValue: `${targetType} #${targetId ?? ''}` });
}

/**
 * An audit entry's before/after as an operator reads it: one "Field: value" line per key, field names,
 * states and roles in the console's language (`under inspection` → "In Prüfung", `admin` → "Beheerder"), yes/no for flags, dates
 * for the `_at` times; what has no translation is shown as it is stored.
 */
export function auditLines(t: TFunction, targetType: string | null, value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object' || Array.isArray(value)) return [JSON.stringify(value)];
  return Object.entries(value as Record<string, unknown>).map(([key, v]) => `${t(`admin.field.${key}`, { defaultValue: key.replaceAll('_', ' ') })}: ${auditValue(t, targetType, key, v)}`);
}

function auditValue(t: TFunction, targetType: string | null, key: string, v: unknown): string {
  if (v === null || v === undefined) return '–';
  if (typeof v === 'boolean') return t(v ? 'admin.yes' : 'admin.no');
  if (typeof v === 'number' && key.endsWith('_at')) return new Date(v).toISOString().replace('T', ' ').slice(0, 16);
  if (typeof v === 'string' && (key === 'status' || key in VALUE_PREFIXES)) {
    const prefixes = (key === 'status' ? [STATUS_PREFIXES[targetType ?? ''], ...FALLBACKS] : [VALUE_PREFIXES[key]]).filter((p): p is string => Boolean(p));
    for (const prefix of prefixes) {
      const text = t(`${prefix}${v}`, { defaultValue: '' });
      if (text) return text;
    }
  }
  if (Array.isArray(v)) return v.map((item) => auditValue(t, targetType, key, item)).join(', ');
  return typeof v === 'string' ? v : JSON.stringify(v);
}
