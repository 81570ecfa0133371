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

/**
 * An audit entry's before/after as an operator reads it: one "Field: value" line per key, field names
 * and states in the console's language (`under inspection` → "In Prüfung"), yes/no for flags, dates
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
  if (typeof v === 'string' && key === 'status') {
    const prefixes = [STATUS_PREFIXES[targetType ?? ''], ...FALLBACKS].filter((p): p is string => Boolean(p));
    for (const prefix of prefixes) {
      const text = t(`${prefix}${v}`, { defaultValue: '' });
      if (text) return text;
    }
  }
  if (Array.isArray(v)) return v.map((item) => auditValue(t, targetType, key, item)).join(', ');
  return typeof v === 'string' ? v : JSON.stringify(v);
}
