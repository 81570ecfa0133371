import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { createDiscount, setDiscountStatus } from '../../core/admin/admin.api';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Discount { id: number; code: string; kind: string; value_percentage: number; status: string; uses: number; paid_uses: number; expires_at: number | null; country: string | null }
interface Props extends IslandI18n { discounts: Discount[] }

/** Discount codes and welcome campaigns: their use, a form to create one, and disable/enable with a reason. */
export function DiscountManager(props: Props) {
  const t = useIslandT(props);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
      location.reload();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
      setBusy(false);
    }
  };
  const create = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const d = Object.fromEntries(new FormData(e.currentTarget)) as Record<string, string>;
    void run(() => createDiscount({
      code: d.code, percentage: Number(d.percentage), reason: d.reason, welcome: d.welcome === 'on', validity: d.validity,
      country: d.country || null, expires: d.expires || null, minimum_order_value: d.minimum ? Math.round(Number(d.minimum) * 100) : 0,
    }));
  };
  const toggle = (d: Discount) => {
    const reason = prompt(t('admin.field.reason'));
    if (reason !== null) void run(() => setDiscountStatus(d.id, d.status === 'active' ? 'inactive' : 'active', reason));
  };
  return (
    <>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways on phones must be reachable by keyboard (axe scrollable-region-focusable); it is a named region */}
      <div className="admin-table-wrap" tabIndex={0} role="region" aria-label={t('admin.nav.discounts')}>
        <table className="admin-table">
          <thead><tr><th>{t('admin.field.code')}</th><th>{t('admin.field.kind')}</th><th>%</th><th>{t('admin.field.country')}</th><th>{t('admin.field.expires')}</th><th>{t('admin.field.status')}</th><th>{t('admin.discounts.uses')}</th><th /></tr></thead>
          <tbody>
            {props.discounts.length === 0 && <tr><td colSpan={8}>{t('admin.none')}</td></tr>}
            {props.discounts.map((d) => (
              <tr key={d.id} data-discount={d.code}>
                <td>{d.code}</td><td>{t(`admin.discounts.kind_${d.kind}`)}</td><td>{d.value_percentage}</td><td>{d.country ?? '—'}</td>
                <td>{d.expires_at ? new Date(d.expires_at).toISOString().slice(0, 10) : '—'}</td>
                <td>{t(`admin.status.${d.status}`)}</td><td>{t('admin.discounts.uses_value', { uses: d.uses, paid: t('admin.discounts.paid', { count: d.paid_uses }) })}</td>
                <td><button type="button" className="link-button" disabled={busy} onClick={() => toggle(d)}>{d.status === 'active' ? t('admin.discounts.disable') : t('admin.discounts.enable')}</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <section>
        <h2>{t('admin.discounts.create')}</h2>
        <form className="admin-form" onSubmit={create}>
          <label>{t('admin.field.code')}<input name="code" required /></label>
          <label>{t('admin.field.percentage')}<input name="percentage" type="number" min="1" max="90" step="0.5" required /></label>
          <label>{t('admin.field.country')}<input name="country" maxLength={2} /></label>
          <label>{t('admin.field.minimum')}<input name="minimum" type="number" min="0" step="0.01" /></label>
          <label>{t('admin.field.expires')}<input name="expires" type="date" /></label>
          <label>{t('admin.field.validity')}
            <select name="validity"><option value="once-per-user">{t('admin.discounts.once')}</option><option value="unlimited">{t('admin.discounts.unlimited')}</option></select>
          </label>
          <label><span><input name="welcome" type="checkbox" /> {t('admin.discounts.welcome')}</span></label>
          <label>{t('admin.field.reason')}<input name="reason" required minLength={3} /></label>
          <button type="submit" className="btn btn-primary" disabled={busy}>{t('admin.discounts.create')}</button>
        </form>
      </section>
    </>
  );
}
