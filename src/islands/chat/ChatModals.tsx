import { useStore } from '@nanostores/react';
import type { TFunction } from 'i18next';
import { type FormEvent, useEffect } from 'react';
import { $gifts, $giftsError, loadGifts } from '../../core/chat/gifts.store';
import { ICEBREAKER_COUNT } from '../../shared/gifts';
import { REPORT_REASONS } from '../../shared/profiles.contract';
import { Modal } from '../shared/Modal';
import { Icon } from './icons';

interface GiftProps {
  t: TFunction;
  open: boolean;
  name: string;
  onClose: () => void;
  onPick: (giftId: string) => void;
}

/** Gift picker: pictures, names and credit prices in a grid. */
export function GiftPicker({ t, open, name, onClose, onPick }: GiftProps) {
  const gifts = useStore($gifts);
  const failed = useStore($giftsError);
  useEffect(() => { if (open) void loadGifts(); }, [open]);
  return (
    <Modal open={open} onClose={onClose} labelledBy="gift-title" size="lg">
      <div className="modal-body">
        <div className="modal-head">
          <h2 id="gift-title">{t('chat.gift_title', { name })}</h2>
          <button type="button" className="btn btn-ghost modal-x" onClick={onClose} aria-label={t('common.close')}><Icon name="close" /></button>
        </div>
        {failed && <p className="alert alert-danger" role="alert">{t('chat.gifts_failed')}</p>}
        {!gifts && !failed && <p role="status">{t('common.loading')}</p>}
        {gifts && (
          <ul className="gift-grid">
            {gifts.map((gift) => (
              <li key={gift.id}>
                {/* Named by what it shows (gift and price), so speech users can say it; the title tells what a click does. */}
                <button type="button" className="gift-option" onClick={() => onPick(gift.id)}
                  title={t('chat.gift_send', { gift: t(`gift.${gift.id}`), count: gift.credits })}>
                  <img src={gift.image} alt="" width="72" height="72" />
                  <span className="gift-name">{t(`gift.${gift.id}`)}</span>
                  <span className="gift-price">{t('chat.gift_price', { count: gift.credits })}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Modal>
  );
}

interface IcebreakerProps {
  t: TFunction;
  open: boolean;
  name: string;
  onClose: () => void;
  onPick: (line: string) => void;
}

/** Opening lines in the member's language; one click puts a line into the draft. */
export function IcebreakerModal({ t, open, name, onClose, onPick }: IcebreakerProps) {
  const lines = Array.from({ length: ICEBREAKER_COUNT }, (_, i) => t(`icebreaker.${i + 1}`, { name }));
  return (
    <Modal open={open} onClose={onClose} labelledBy="icebreaker-title">
      <div className="modal-body">
        <div className="modal-head">
          <h2 id="icebreaker-title">{t('chat.icebreaker_title')}</h2>
          <button type="button" className="btn btn-ghost modal-x" onClick={onClose} aria-label={t('common.close')}><Icon name="close" /></button>
        </div>
        <p className="field-hint">{t('chat.icebreaker_hint')}</p>
        <ul className="icebreaker-list">
          {lines.map((line) => (
            <li key={line}><button type="button" className="icebreaker-option" onClick={() => onPick(line)}>{line}</button></li>
          ))}
        </ul>
      </div>
    </Modal>
  );
}

interface ReportProps {
  t: TFunction;
  open: boolean;
  name: string;
  onClose: () => void;
  onSubmit: (reason: string, details: string) => void;
}

/** Report the partner (or one message): reason and optional details, as on the profile screen. */
export function ReportDialog({ t, open, name, onClose, onSubmit }: ReportProps) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    onSubmit(String(data.get('reason')), String(data.get('details') ?? ''));
  };
  return (
    <Modal open={open} onClose={onClose} labelledBy="chat-report-title">
      <form method="post" className="modal-body" onSubmit={submit}>
        <h2 id="chat-report-title">{t('profile.report_title', { name })}</h2>
        <div className="field">
          <label htmlFor="chat-report-reason">{t('profile.report_reason')}</label>
          <select id="chat-report-reason" name="reason" required defaultValue="spam">
            {REPORT_REASONS.map((r) => <option key={r} value={r}>{t(`report_reason.${r}`)}</option>)}
          </select>
        </div>
        <div className="field">
          <label htmlFor="chat-report-details">{t('profile.report_details')}</label>
          <textarea id="chat-report-details" name="details" rows={3} maxLength={1000} />
        </div>
        <div className="modal-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose}>{t('common.cancel')}</button>
          <button type="submit" className="btn btn-primary">{t('profile.report_send')}</button>
        </div>
      </form>
    </Modal>
  );
}

interface ImageProps {
  t: TFunction;
  src: string | null;
  onClose: () => void;
}

/** A chat photo in full size; any click or Escape closes it. */
export function ImageViewer({ t, src, onClose }: ImageProps) {
  return (
    <Modal open={src !== null} onClose={onClose} labelledBy="image-viewer-title" size="xl" className="image-viewer" closeOnAnyClick>
      <h2 id="image-viewer-title" className="visually-hidden">{t('chat.image_alt')}</h2>
      {src && <img src={src} alt={t('chat.image_alt')} />}
      <button type="button" className="btn btn-ghost modal-x" aria-label={t('common.close')}><Icon name="close" /></button>
    </Modal>
  );
}
