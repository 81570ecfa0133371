import { useState } from 'react';
import { ApiError } from '../../core/api/client';
import { answerAsProfile } from '../../core/admin/admin.api';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  conversationId: number;
  profileName: string;
}

/** The operator's answer as the fictional profile; back to the queue once sent. */
export function InboxReply(props: Props) {
  const t = useIslandT(props);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [clientId] = useState(() => `op-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await answerAsProfile(props.conversationId, text, clientId);
      location.assign('/admin/inbox');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
      setBusy(false);
    }
  };
  return (
    <form className="admin-form" onSubmit={submit}>
      <label>
        {t('admin.inbox.answer_as', { name: props.profileName })}
        <textarea name="text" rows={4} value={text} onChange={(e) => setText(e.target.value)} required />
      </label>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      <button type="submit" className="btn btn-primary" disabled={busy}>{t('admin.inbox.send')}</button>
    </form>
  );
}
