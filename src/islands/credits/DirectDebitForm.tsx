import { type FormEvent, useEffect, useState } from 'react';
import {
  $directDebit, type DirectDebitField, type DirectDebitState, sendSmsCode, setField, setInitialDirectDebit, submitDirectDebit,
} from '../../core/payments/direct-debit.store';
import type { DirectDebitInfoResponse } from '../../shared/payments.contract';
import { Field } from '../shared/Field';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { OrderSummary } from './Money';
import { useSeeded } from './seed';
import { oneFullStop } from '../../shared/site-texts';
import './credits.css';

export interface DirectDebitFormProps extends IslandI18n {
  info: DirectDebitInfoResponse;
  bundle: number;
  country: string;
  code: string | null;
  refundDays: number;
}

const TEXT_FIELDS: { name: DirectDebitField; autoComplete: string; max: number; inputMode?: 'text' | 'tel' | 'numeric' }[] = [
  { name: 'account_holder', autoComplete: 'name', max: 70 },
  { name: 'iban', autoComplete: 'off', max: 42 },
  { name: 'street', autoComplete: 'address-line1', max: 70 },
  { name: 'house_number', autoComplete: 'off', max: 16 },
  { name: 'postal_code', autoComplete: 'postal-code', max: 16 },
  { name: 'city', autoComplete: 'address-level2', max: 70 },
];

/** /directdebit: SEPA direct debit (SPEC §5) with the SMS code and the mandate text. */
export function DirectDebitForm(props: DirectDebitFormProps) {
  const t = useIslandT(props);
  const server: DirectDebitState = {
    info: props.info, bundle: props.bundle, country: props.country, code: props.code,
    fields: { account_holder: '', iban: '', street: '', house_number: '', postal_code: '', city: '', mobile: '', sms_code: '', authorization: false, consent: false },
    errors: {}, message: null, sms: { status: 'idle', resendAt: 0 }, status: 'ready',
  };
  const state = useSeeded($directDebit, () => setInitialDirectDebit(props.info, props.bundle, props.country, props.code), server) ?? server;
  const { info, fields, errors } = state;
  const busy = state.status !== 'ready';
  const [now, setNow] = useState(() => Date.now());
  const waiting = state.sms.resendAt > now;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [waiting]);

  // Client checks give catalog keys, the server translated messages.
  const errorText = (field: DirectDebitField) => {
    const value = errors[field];
    return value ? (value.startsWith('payments.') ? t(value) : value) : undefined;
  };

  if (info.blocked || info.limit_reached) {
    return (
      <div className="alert alert-danger" role="alert">
        <p>{info.blocked ? t('payments.dd_blocked') : t('payments.dd_limit')}</p>
        <p><a href={`/credits/${props.bundle}?country=${props.country}`}>{t('shop.try_other_method')}</a></p>
      </div>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = await submitDirectDebit();
    if (next) location.assign(next);
    else document.querySelector<HTMLElement>('.dd-form [aria-invalid="true"], .dd-form [role="alert"]')?.focus();
  };

  return (
    <form className="checkout dd-form" onSubmit={submit} noValidate aria-busy={busy}>
      {info.offer && (
        <section className="checkout-box" aria-labelledby="dd-summary">
          <h2 id="dd-summary">{t('shop.your_order')}</h2>
          <OrderSummary quote={info.offer.quote} locale={props.locale} t={t} />
        </section>
      )}
      <fieldset className="checkout-box">
        <legend><h2>{t('shop.dd_account')}</h2></legend>
        {TEXT_FIELDS.map((f) => (
          <Field key={f.name} name={f.name} label={t(`shop.dd_${f.name}`)} value={fields[f.name] as string} maxLength={f.max}
            autoComplete={f.autoComplete} error={errorText(f.name)} disabled={busy} required
            hint={f.name === 'iban' ? t('shop.dd_iban_hint') : undefined}
            onChange={(e) => setField(f.name, e.target.value)} />
        ))}
      </fieldset>
      <fieldset className="checkout-box">
        <legend><h2>{t('shop.dd_verify')}</h2></legend>
        <Field name="mobile" label={t('shop.dd_mobile')} type="tel" inputMode="tel" autoComplete="tel" maxLength={32} value={fields.mobile}
          error={errorText('mobile')} disabled={busy} required hint={t('shop.dd_mobile_hint')} onChange={(e) => setField('mobile', e.target.value)} />
        <p className="dd-sms-row">
          <button type="button" className="btn btn-outline" disabled={busy || state.sms.status === 'sending' || waiting} onClick={() => void sendSmsCode()}>
            {state.sms.status === 'idle' ? t('shop.dd_send_code') : t('shop.dd_resend_code')}
          </button>
          {state.sms.status === 'sent' && <span role="status">{t('shop.dd_code_sent')}</span>}
          {waiting && <span className="field-hint">{t('shop.dd_resend_in', { seconds: Math.ceil((state.sms.resendAt - now) / 1000) })}</span>}
        </p>
        <Field name="sms_code" label={t('shop.dd_sms_code')} inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={fields.sms_code}
          error={errorText('sms_code')} disabled={busy} required onChange={(e) => setField('sms_code', e.target.value.replace(/\D/g, ''))} />
      </fieldset>
      <section className="checkout-box mandate" aria-labelledby="dd-mandate">
        <h2 id="dd-mandate">{t('shop.dd_mandate_title')}</h2>
        <dl className="mandate-data">
          <div><dt>{t('shop.dd_creditor_name')}</dt><dd>{info.mandate.creditor_name}</dd></div>
          <div><dt>{t('shop.dd_creditor_id')}</dt><dd>{info.mandate.creditor_id}</dd></div>
          <div><dt>{t('shop.dd_creditor_address')}</dt><dd>{info.mandate.creditor_address}</dd></div>
          <div><dt>{t('shop.dd_mandate_reference')}</dt><dd>{info.mandate.mandate_reference}</dd></div>
        </dl>
        <p className="mandate-text">{oneFullStop(t('shop.dd_mandate_text', { creditor: info.mandate.creditor_name }))}</p>
        <div className={`consent${errors.authorization ? ' field-invalid' : ''}`}>
          <label>
            <input type="checkbox" name="authorization" checked={fields.authorization} disabled={busy} required
              aria-invalid={errors.authorization ? true : undefined} aria-describedby={errors.authorization ? 'dd-authorization-error' : undefined}
              onChange={(e) => setField('authorization', e.target.checked)} />
            <span>{oneFullStop(t('shop.dd_authorize', { creditor: info.mandate.creditor_name }))}</span>
          </label>
          {errors.authorization && <p className="field-error" id="dd-authorization-error" role="alert">{errorText('authorization')}</p>}
        </div>
        <div className={`consent${errors.consent ? ' field-invalid' : ''}`}>
          <label>
            <input type="checkbox" name="consent" checked={fields.consent} disabled={busy} required
              aria-invalid={errors.consent ? true : undefined} aria-describedby={errors.consent ? 'dd-consent-error' : undefined}
              onChange={(e) => setField('consent', e.target.checked)} />
            <span>{t('shop.consent', { days: props.refundDays })}</span>
          </label>
          {errors.consent && <p className="field-error" id="dd-consent-error" role="alert">{t('shop.consent_required')}</p>}
        </div>
      </section>
      {state.message && <p className="alert alert-danger" role="alert" tabIndex={-1}>{state.message}</p>}
      <button type="submit" className="btn btn-primary btn-order" disabled={busy}>{t('shop.order_button')}</button>
    </form>
  );
}
