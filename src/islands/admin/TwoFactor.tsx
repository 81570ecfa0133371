import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { confirmEnrolment, startEnrolment, verifyCode } from '../../core/admin/admin.api';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  enrolled: boolean;
  /** Where to go once verified (a path on this site). */
  next: string;
}

/** Staff second factor: enrolment (QR code, secret, first code, recovery codes) or the code at each login. */
export function TwoFactor(props: Props) {
  const t = useIslandT(props);
  const [enrolment, setEnrolment] = useState<{ secret: string; qr_svg: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await work();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
    } finally {
      setBusy(false);
    }
  };
  const go = () => location.assign(props.next);

  if (codes) {
    return (
      <section aria-labelledby="rc-title">
        <h2 id="rc-title">{t('admin.twofa.recovery_title')}</h2>
        <p>{t('admin.twofa.recovery_text')}</p>
        <ul className="admin-codes" data-recovery-codes>{codes.map((c) => <li key={c}>{c}</li>)}</ul>
        <button type="button" className="btn btn-primary" onClick={go}>{t('admin.twofa.continue')}</button>
      </section>
    );
  }
  const errorBox = error && <p className="alert alert-danger" role="alert">{error}</p>;
  if (!props.enrolled && !enrolment) {
    return (
      <section>
        <p>{t('admin.twofa.enrol_intro')}</p>
        {errorBox}
        <button type="button" className="btn btn-primary" disabled={busy} onClick={() => run(async () => setEnrolment(await startEnrolment()))}>{t('admin.twofa.enrol_start')}</button>
      </section>
    );
  }
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void run(async () => {
      if (enrolment) setCodes((await confirmEnrolment(code)).recovery_codes);
      else {
        await verifyCode(useRecovery ? { recovery_code: code } : { code });
        go();
      }
    });
  };
  return (
    <section>
      {enrolment && (
        <>
          <p>{t('admin.twofa.scan')}</p>
          <img className="admin-qr" src={`data:image/svg+xml;base64,${btoa(enrolment.qr_svg)}`} alt={t('admin.twofa.qr_label')} width="200" height="200" />
          <p>{t('admin.twofa.secret')} <code className="admin-secret" data-totp-secret>{enrolment.secret}</code></p>
        </>
      )}
      <form className="admin-form" onSubmit={submit}>
        <label>
          {useRecovery ? t('admin.twofa.recovery_label') : t('admin.twofa.code_label')}
          <input name="code" value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" inputMode={useRecovery ? 'text' : 'numeric'} required />
        </label>
        {errorBox}
        <button type="submit" className="btn btn-primary" disabled={busy}>{enrolment ? t('admin.twofa.confirm') : t('admin.twofa.verify')}</button>
        {!enrolment && (
          <button type="button" className="link-button" onClick={() => { setUseRecovery(!useRecovery); setCode(''); }}>
            {useRecovery ? t('admin.twofa.use_app') : t('admin.twofa.use_recovery')}
          </button>
        )}
      </form>
    </section>
  );
}
