import { useStore } from '@nanostores/react';
import type { FormEvent } from 'react';
import {
  $checkout, $checkoutQuote, type CheckoutState, chooseIssuer, chooseMethod, placeOrder, setConsent, setInitialCheckout,
} from '../../core/payments/checkout.store';
import { shopQuery } from '../../core/payments/shop.store';
import type { MethodsResponse } from '../../shared/payments.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { OrderSummary } from './Money';
import { useSeeded } from './seed';
import './credits.css';

export interface CheckoutPageProps extends IslandI18n {
  initial: MethodsResponse;
  /** The method named in the address (/credits/{id}/{paymentmethod}). */
  method: string | null;
  code: string | null;
  refundDays: number;
}

const serverState = (props: CheckoutPageProps): CheckoutState => {
  const offered = props.initial.methods.find((m) => m.id === props.method && m.enabled);
  return { data: props.initial, method: offered?.id ?? null, issuer: null, consent: false, code: props.code, status: 'ready', error: null };
};

/** /credits/{id}/{paymentmethod?}: method (with bank), total with VAT, withdrawal waiver, order with obligation to pay. */
export function CheckoutPage(props: CheckoutPageProps) {
  const t = useIslandT(props);
  const state = useSeeded($checkout, () => setInitialCheckout(props.initial, props.method, props.code), serverState(props)) ?? serverState(props);
  const storedQuote = useStore($checkoutQuote);
  const quote = storedQuote ?? props.initial.offer.quote;
  const { data } = state;
  const method = data.methods.find((m) => m.id === state.method) ?? null;
  const busy = state.status !== 'ready';
  const directDebit = method?.id === 'directdebit';
  const error = state.error;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = await placeOrder();
    if (next) location.assign(next);
    else document.querySelector<HTMLElement>('[data-checkout-error]')?.focus();
  };

  return (
    <form className="checkout" onSubmit={submit} noValidate aria-busy={busy}>
      <p><a href={`/credits${shopQuery(data.country, state.code)}`}>{t('shop.other_bundle')}</a></p>
      <section className="checkout-box" aria-labelledby="checkout-summary">
        <h2 id="checkout-summary">{t('shop.your_order')}</h2>
        <OrderSummary quote={quote} locale={props.locale} t={t} />
      </section>

      <fieldset className="checkout-box method-list" aria-describedby={error?.field === 'method' ? 'method-error' : undefined}>
        <legend><h2>{t('shop.choose_method')}</h2></legend>
        {data.methods.map((m) => (
          <label key={m.id} className="method-option" data-method={m.id} data-disabled={!m.enabled || undefined}>
            <input type="radio" name="method" value={m.id} checked={state.method === m.id} disabled={!m.enabled || busy}
              onChange={() => chooseMethod(m.id)} />
            <img src={m.logo} alt="" width="48" height="30" />
            <span className="method-name">{t(m.label_key)}</span>
            {!m.enabled && <span className="method-off">{t('shop.method_unavailable')}</span>}
          </label>
        ))}
        {error?.field === 'method' && <p className="field-error" id="method-error" role="alert" tabIndex={-1} data-checkout-error>{t('shop.method_required')}</p>}
      </fieldset>

      {method?.has_issuers && method.issuers.length > 0 && (
        <div className={`field checkout-box${error?.field === 'issuer' ? ' field-invalid' : ''}`}>
          <label htmlFor="issuer">{t('shop.choose_bank')}</label>
          <select id="issuer" name="issuer" value={state.issuer ?? ''} disabled={busy} onChange={(e) => chooseIssuer(e.target.value || null)}
            aria-invalid={error?.field === 'issuer' || undefined} aria-describedby={error?.field === 'issuer' ? 'issuer-error' : undefined}>
            <option value="">{t('shop.bank_placeholder')}</option>
            {method.issuers.map((i) => <option key={i.id} value={i.id}>{i.name}</option>)}
          </select>
          {error?.field === 'issuer' && <p className="field-error" id="issuer-error" role="alert" tabIndex={-1} data-checkout-error>{t('shop.bank_required')}</p>}
        </div>
      )}

      {directDebit ? (
        <p className="field-hint">{t('shop.dd_next')}</p>
      ) : (
        <div className={`consent${error?.field === 'consent' ? ' field-invalid' : ''}`}>
          <label>
            <input type="checkbox" name="consent" checked={state.consent} disabled={busy} onChange={(e) => setConsent(e.target.checked)}
              aria-invalid={error?.field === 'consent' || undefined} aria-describedby={error?.field === 'consent' ? 'consent-error' : undefined} required />
            <span>{t('shop.consent', { days: props.refundDays })}</span>
          </label>
          {error?.field === 'consent' && <p className="field-error" id="consent-error" role="alert" tabIndex={-1} data-checkout-error>{t('shop.consent_required')}</p>}
        </div>
      )}

      {error && error.field === null && (
        <p className="alert alert-danger" role="alert" tabIndex={-1} data-checkout-error>{error.message ?? t('error.try_later')}</p>
      )}
      <button type="submit" className="btn btn-primary btn-order" disabled={busy}>
        {directDebit ? t('shop.dd_continue') : t('shop.order_button')}
      </button>
      {!directDebit && <p className="field-hint">{t('shop.redirect_hint')}</p>}
    </form>
  );
}
