import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { answerAsProfile, claimConversation, saveInboxNotes } from '../../core/admin/admin.api';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  conversationId: number;
  profileName: string;
  memberName: string;
  /** The persona's earlier lines, newest first, for quick insertion. */
  lines: string[];
  notes: string | null;
}

/** Renew the claim well before it runs out (CLAIM_MS is 5 minutes) while the page stays open. */
const RENEW_MS = 2 * 60_000;

/**
 * The operator's answer as the fictional profile, the conversation's notes and the persona's earlier
 * lines. Once sent: on to the next waiting conversation (or the empty queue), with a confirmation.
 */
export function InboxReply(props: Props) {
  const t = useIslandT(props);
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [notes, setNotes] = useState(props.notes ?? '');
  const [notesState, setNotesState] = useState<'idle' | 'saved' | string>('idle');
  const [clientId] = useState(() => `op-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const timer = setInterval(() => {
      claimConversation(props.conversationId).catch((err) => setError(err instanceof ApiError ? err.message : t('error.try_later')));
    }, RENEW_MS);
    return () => clearInterval(timer);
  }, [props.conversationId, t]);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const { next } = await answerAsProfile(props.conversationId, text, clientId);
      location.assign(next === null ? `/admin/inbox?sent=${props.conversationId}` : `/admin/inbox/${next}?sent=${props.conversationId}`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
      setBusy(false);
    }
  };
  const insert = (line: string) => {
    setText((current) => (current.trim() ? `${current.trimEnd()} ${line}` : line));
    box.current?.focus();
  };
  const keepNotes = async (e: React.FormEvent) => {
    e.preventDefault();
    try {
      await saveInboxNotes(props.conversationId, notes);
      setNotesState('saved');
    } catch (err) {
      setNotesState(err instanceof ApiError ? err.message : t('error.try_later'));
    }
  };
  return (
    <div className="inbox-work">
      <form className="admin-form inbox-answer" onSubmit={submit}>
        <label>
          {t('admin.inbox.answer_as', { name: props.profileName })}
          <textarea ref={box} name="text" rows={5} value={text} onChange={(e) => setText(e.target.value)} required />
        </label>
        {error && <p className="alert alert-danger" role="alert">{error}</p>}
        <button type="submit" className="btn btn-primary" disabled={busy}>{t('admin.inbox.send')}</button>
      </form>
      {props.lines.length > 0 && (
        <section className="inbox-lines" aria-labelledby="inbox-lines-h">
          <h2 id="inbox-lines-h" className="inbox-h">{t('admin.inbox.earlier_lines', { name: props.profileName })}</h2>
          <ul>
            {props.lines.map((line) => (
              <li key={line}>
                <button type="button" className="inbox-line" onClick={() => insert(line)} title={t('admin.inbox.insert')}>{line}</button>
              </li>
            ))}
          </ul>
        </section>
      )}
      <form className="admin-form inbox-notes" onSubmit={keepNotes}>
        <label>
          {t('admin.inbox.notes')}
          <textarea name="notes" rows={4} maxLength={4000} value={notes} onChange={(e) => { setNotes(e.target.value); setNotesState('idle'); }} />
        </label>
        <button type="submit" className="btn btn-outline">{t('admin.inbox.save_notes')}</button>
        {/* Below the button, its line kept when empty: "Saved" appears without moving anything. */}
        <p className="inbox-notes-state" role="status">{notesState === 'saved' ? t('admin.inbox.notes_saved') : notesState === 'idle' ? '' : notesState}</p>
      </form>
    </div>
  );
}
