import { useStore } from '@nanostores/react';
import { type FormEvent, useState } from 'react';
import {
  $shop, $shopError, $shopStatus, $typedCode, applyDiscountCode, changePaymentCountry, removeDiscountCode, setInitialShop, shopQuery,
} from '../../core/payments/shop.store';
import { $user } from '../../core/session/store';
import { formatMoney } from '../../shared/money-format';
import type { CreditsResponse } from '../../shared/payments.contract';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { Price } from './Money';
import { useSeeded } from './seed';
import './credits.css';

export interface CreditsShopProps extends IslandI18n {
  initial: CreditsResponse;
  /** A code from the address (?discount=), already applied by the server. */
  code: string | null;
  /** Country names in the member's language, by ISO code. */
  countryNames: Record<string, string>;
}

/** /credits: payment country, bundles with price per message and the active discount, a discount code. */
export function CreditsShop(props: CreditsShopProps) {
  const t = useIslandT(props);
  const shop = useSeeded($shop, () => setInitialShop(props.initial, props.code), props.initial) ?? props.initial;
  const status = useStore($shopStatus);
  const error = useStore($shopError);
  const typed = useSeeded($typedCode, () => undefined, props.code);
  // The balance follows the member's live one: a payment or a staff grant in another tab shows at once.
  const member = useSeeded($user, () => undefined, null);
  const balance = shop.credits === null ? null : (member?.credits ?? shop.credits);
  const [code, setCode] = useState('');
  const busy = status === 'busy';
  const query = shopQuery(shop.country, typed);
  const discount = shop.discount;

  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    if (code.trim()) applyDiscountCode(code).then(() => setCode(''), () => undefined);
  };

  return (
    <div className="shop" aria-busy={busy}>
      {balance !== null && <p className="shop-balance">{t('shop.balance', { count: balance })}</p>}
      {discount && (
        <p className="notice shop-discount" role="status">
          {t('shop.discount_active', { percent: discount.percentage })}
          {typed && <> <button type="button" className="link-button" onClick={() => void removeDiscountCode().catch(() => undefined)} disabled={busy}>{t('shop.discount_remove')}</button></>}
        </p>
      )}
      <div className="field shop-country">
        <label htmlFor="payment-country">{t('shop.payment_country')}</label>
        <select id="payment-country" value={shop.country} disabled={busy}
          onChange={(e) => void changePaymentCountry(e.target.value).catch(() => undefined)}>
          {shop.countries.map((c) => <option key={c.code} value={c.code}>{`${props.countryNames[c.code] ?? c.code} (${c.currency})`}</option>)}
        </select>
      </div>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}

      <ul className="bundle-list" role="list">
        {shop.offers.map(({ bundle, quote }) => (
          <li key={bundle.id} className="bundle-card" data-badge={bundle.badge ?? undefined} data-bundle={bundle.id}>
            {bundle.badge && <span className="bundle-badge">{t(`shop.badge_${bundle.badge}`)}</span>}
            <p className="bundle-credits"><strong>{quote.credits}</strong> {t('shop.credits_word')}</p>
            <p className="bundle-price"><Price quote={quote} locale={props.locale} t={t} /></p>
            <p className="bundle-vat">{t('shop.incl_vat')}</p>
            <p className="bundle-per-message">{t('shop.per_message', { price: formatMoney(quote.price_per_message, quote.currency, props.locale) })}</p>
            <a className={`btn ${bundle.badge === 'most_chosen' ? 'btn-primary' : 'btn-outline'}`} href={`/credits/${bundle.id}${query}`}
              aria-label={t('shop.choose_bundle', { count: quote.credits })}>{t('shop.choose')}</a>
          </li>
        ))}
      </ul>

      {shop.repeat && (
        <p className="shop-repeat">
          {t('shop.repeat_offer', { count: shop.repeat.quote.credits })}{' '}
          <a href="/credits/repeat-order">{t('shop.repeat_link')}</a>
        </p>
      )}

      <form className="shop-code" onSubmit={submitCode} noValidate>
        <div className="field">
          <label htmlFor="discount-code">{t('shop.code_label')}</label>
          <div className="shop-code-row">
            <input id="discount-code" name="discount" value={code} maxLength={64} autoComplete="off" autoCapitalize="characters"
              onChange={(e) => setCode(e.target.value)} />
            <button type="submit" className="btn btn-outline" disabled={busy || !code.trim()}>{t('shop.code_apply')}</button>
          </div>
        </div>
      </form>

      <p className="shop-fineprint">
        {t('shop.fineprint', { days: shop.refund_days, credits: shop.message_credits })}{' '}
        <a href="/pricing">{t('shop.pricing_link')}</a>
      </p>
    </div>
  );
}
