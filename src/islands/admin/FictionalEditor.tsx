import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { saveFictional } from '../../core/admin/admin.api';
import { type IslandI18n, useIslandT } from '../shared/i18n';

export interface FictionalRow {
  id: number; name: string; gender: 'male' | 'female'; sexuality: string; birth_date: string; country: string; city: string | null; about: string | null; status: string;
}
interface Props extends IslandI18n {
  profile: FictionalRow | null;
  countries: string[];
  icon: string;
  warning: string;
}

/** Creates or edits one fictional profile; the site's fictional icon and warning are shown with it. */
export function FictionalEditor(props: Props) {
  const t = useIslandT(props);
  const p = props.profile;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = Object.fromEntries(new FormData(e.currentTarget)) as Record<string, string>;
    setError(null);
    setBusy(true);
    try {
      await saveFictional({ ...(p ? { id: p.id } : {}), ...data, city: data.city || null, about: data.about || null });
      location.assign('/admin/fictional');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
      setBusy(false);
    }
  };
  return (
    <form className="admin-form" onSubmit={submit}>
      <p className="admin-fictional-mark">{props.icon} {props.warning}</p>
      <label>{t('admin.field.name')}<input name="name" defaultValue={p?.name} required /></label>
      <label>{t('admin.field.gender')}
        <select name="gender" defaultValue={p?.gender ?? 'female'}>
          <option value="female">{t('admin.gender.female')}</option><option value="male">{t('admin.gender.male')}</option>
        </select>
      </label>
      <label>{t('admin.field.sexuality')}
        <select name="sexuality" defaultValue={p?.sexuality ?? 'hetero'}>
          {['hetero', 'gay', 'lesbian', 'bi'].map((s) => <option key={s} value={s}>{t(`admin.sexuality.${s}`)}</option>)}
        </select>
      </label>
      <label>{t('admin.field.birth_date')}<input name="birth_date" type="date" defaultValue={p?.birth_date} required /></label>
      <label>{t('admin.field.country')}
        <select name="country" defaultValue={p?.country ?? props.countries[0]}>{props.countries.map((c) => <option key={c} value={c}>{c}</option>)}</select>
      </label>
      <label>{t('admin.field.city')}<input name="city" defaultValue={p?.city ?? ''} /></label>
      <label>{t('admin.field.about')}<textarea name="about" rows={4} defaultValue={p?.about ?? ''} /></label>
      <label>{t('admin.field.status')}
        <select name="status" defaultValue={p?.status ?? 'active'}>
          <option value="active">{t('admin.status.active')}</option><option value="disabled">{t('admin.status.disabled')}</option>
        </select>
      </label>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      <button type="submit" className="btn btn-primary" disabled={busy}>{t('admin.save')}</button>
    </form>
  );
}
