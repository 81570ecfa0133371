import { useStore } from '@nanostores/react';
import type { FormEvent } from 'react';
import { $paymentWatch } from '../../core/payments/payment-status.store';
import { $repeatOrder, orderAgain, retryRepeatOrder, setRepeatConsent } from '../../core/payments/repeat-order.store';
import { $user } from '../../core/session/store';
import type { CreditsResponse } from '../../shared/payments.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { OrderSummary } from './Money';
import { PaymentResult } from './PaymentReturn';
import './credits.css';

export interface RepeatOrderProps extends IslandI18n {
  repeat: NonNullable<CreditsResponse['repeat']>;
  country: string;
  refundDays: number;
}

/** /credits/repeat-order: the last bundle again with the stored card or mandate, in one click. */
export function RepeatOrder(props: RepeatOrderProps) {
  const t = useIslandT(props);
  const state = useStore($repeatOrder);
  const watch = useStore($paymentWatch);
  const user = useStore($user);
  const { repeat } = props;
  const busy = state.status === 'sending';

  if (state.status === 'done' && watch) return <PaymentResult t={t} watch={watch} credits={user?.credits ?? null} />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void orderAgain();
  };
  return (
    <form className="checkout" onSubmit={submit} noValidate aria-busy={busy}>
      <section className="checkout-box" aria-labelledby="repeat-summary">
        <h2 id="repeat-summary">{t('shop.your_order')}</h2>
        <p className="repeat-method">
          <img src={`/payment-logos/${repeat.method}.svg`} alt="" width="48" height="30" />
          {t('shop.repeat_with', { method: t(`payments.method.${repeat.method}`) })}
        </p>
        <OrderSummary quote={repeat.quote} locale={props.locale} t={t} />
      </section>
      {state.status === 'card_failed' ? (
        <div className="alert alert-danger" role="alert">
          <p><strong>{state.message ?? t('payments.card_failed')}</strong></p>
          <p className="result-actions">
            <button type="button" className="btn btn-primary" onClick={() => void retryRepeatOrder()}>{t('shop.try_again')}</button>
            <a className="btn btn-outline" href={`/credits/${repeat.bundle_id}/paypal?country=${props.country}`}>{t('shop.pay_with_paypal')}</a>
          </p>
        </div>
      ) : (
        <>
          <div className={`consent${state.consentMissing ? ' field-invalid' : ''}`}>
            <label>
              <input type="checkbox" name="consent" checked={state.consent} disabled={busy} onChange={(e) => setRepeatConsent(e.target.checked)}
                aria-invalid={state.consentMissing || undefined} aria-describedby={state.consentMissing ? 'repeat-consent-error' : undefined} required />
              <span>{t('shop.consent', { days: props.refundDays })}</span>
            </label>
            {state.consentMissing && <p className="field-error" id="repeat-consent-error" role="alert">{t('shop.consent_required')}</p>}
          </div>
          {state.status === 'error' && <p className="alert alert-danger" role="alert">{state.message ?? t('error.try_later')}</p>}
          <button type="submit" className="btn btn-primary btn-order" disabled={busy}>{t('shop.order_button')}</button>
        </>
      )}
    </form>
  );
}
