import { useStore } from '@nanostores/react';
import type { TFunction } from 'i18next';
import { useEffect } from 'react';
import { $paymentWatch, type PaymentWatch, watchPayment } from '../../core/payments/payment-status.store';
import { $user } from '../../core/session/store';
import { type PaymentStatusResponse, retryPath } from '../../shared/payments.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { useSeeded } from './seed';
import './credits.css';

export interface PaymentReturnProps extends IslandI18n {
  id: number;
  initial: PaymentStatusResponse | null;
}

/** The state of one payment: loading → pending → completed (credits added) / failed or cancelled. */
export function PaymentResult({ t, watch, credits }: { t: TFunction; watch: PaymentWatch; credits: number | null }) {
  const payment = watch.payment;
  const retry = payment ? retryPath(payment) : '/credits';
  return (
    <section className={`payment-result payment-${watch.view}`} data-payment-view={watch.view} aria-live="polite" aria-busy={watch.view === 'loading'}>
      {watch.view === 'loading' && (
        <>
          <span className="spinner" aria-hidden="true" />
          <h1>{t('shop.result_loading')}</h1>
        </>
      )}
      {watch.view === 'pending' && (
        <>
          <span className="spinner" aria-hidden="true" />
          <h1>{t('shop.result_pending')}</h1>
          <p>{t('shop.result_pending_text')}</p>
        </>
      )}
      {watch.view === 'completed' && payment && (
        <>
          <span className="result-icon result-ok" aria-hidden="true">✓</span>
          <h1>{t('shop.result_completed')}</h1>
          <p>{t('shop.result_credits_added', { count: payment.credits })}</p>
          {credits !== null && <p className="result-balance">{t('shop.balance', { count: credits })}</p>}
          <p className="result-actions">
            <a className="btn btn-primary" href="/members">{t('shop.result_continue')}</a>
            <a className="btn btn-outline" href={`/transactions/${payment.payment_id}`}>{t('shop.result_receipt')}</a>
          </p>
        </>
      )}
      {watch.view === 'failed' && (
        <>
          <span className="result-icon result-failed" aria-hidden="true">!</span>
          <div role="alert"><h1>{t('payments.failed')}</h1></div>
          <p className="result-actions">
            <a className="btn btn-primary" href={retry}>{t('shop.try_other_method')}</a>
            <a className="btn btn-outline" href="/credits">{t('shop.back_to_shop')}</a>
          </p>
        </>
      )}
      {watch.offline && watch.view !== 'completed' && watch.view !== 'failed' && <p className="field-hint">{t('shop.result_offline')}</p>}
    </section>
  );
}

/** /credits/return?id=: follows the payment (polling and the realtime event) until it is final. */
export function PaymentReturn(props: PaymentReturnProps) {
  const t = useIslandT(props);
  const fallback: PaymentWatch = props.initial
    ? { id: props.id, view: props.initial.view, payment: props.initial.payment, offline: false }
    : { id: props.id, view: 'loading', payment: null, offline: false };
  const watch = useSeeded($paymentWatch, () => undefined, fallback) ?? fallback;
  const user = useStore($user);
  useEffect(() => watchPayment(props.id, props.initial), [props.id, props.initial]);
  return <PaymentResult t={t} watch={watch} credits={user?.credits ?? props.initial?.credits ?? null} />;
}
