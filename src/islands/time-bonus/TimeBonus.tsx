import { useStore } from '@nanostores/react';
import { useCallback } from 'react';
import {
  $timeBonus, $timeBonusCountdown, $timeBonusModalOpen, dismissTimeBonusModal, formatCountdown,
} from '../../core/time-bonus/time-bonus.store';
import { TIME_BONUS_PERCENTAGE, TIME_BONUS_SECONDS } from '../../shared/constants';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { Modal } from '../shared/Modal';
import './time-bonus.css';

/** The act-fast text names the whole offer in hours (SPEC §9: 4). */
const OFFER_HOURS = TIME_BONUS_SECONDS / 3600;

/**
 * The time bonus's popup (SPEC §4), which the store opens after 40 s in the members area; it leads to
 * /credits like the banner (timeBonusBanner in src/server/pages/layout-parts.ts, rendered with the page).
 */
export function TimeBonus(props: IslandI18n) {
  const t = useIslandT(props);
  const bonus = useStore($timeBonus);
  const countdown = formatCountdown(useStore($timeBonusCountdown));
  const open = useStore($timeBonusModalOpen);
  const close = useCallback(() => dismissTimeBonusModal(), []);
  if (!bonus) return null;
  return (
    <Modal open={open} onClose={close} labelledBy="time-bonus-title" size="sm" className="time-bonus-modal">
          <div className="modal-body">
            <h2 id="time-bonus-title">{t('shop.tb_title')}</h2>
            <p className="tb-percent">{TIME_BONUS_PERCENTAGE}%</p>
            <p>{t('shop.tb_act_fast', { hours: OFFER_HOURS })}</p>
            <p className="tb-countdown tb-countdown-large" role="timer" aria-label={t('shop.tb_time_left')}>{countdown}</p>
            <div className="modal-actions">
              <a className="btn btn-primary" href="/credits" data-autofocus>{t('shop.tb_cta')}</a>
              <button type="button" className="btn btn-ghost" onClick={close}>{t('common.close')}</button>
            </div>
          </div>
        </Modal>
  );
}
