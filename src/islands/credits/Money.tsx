import type { TFunction } from 'i18next';
import { formatMoney, formatRate } from '../../shared/money-format';
import type { Quote } from '../../shared/payments.contract';

/** A price incl. VAT; with a discount the old price struck through beside the new one. */
export function Price({ quote, locale, t }: { quote: Quote; locale: string; t: TFunction }) {
  const now = formatMoney(quote.amount, quote.currency, locale);
  return (
    <span className="price">
      {quote.discount && (
        <del className="price-old"><span className="visually-hidden">{t('shop.old_price')} </span>{formatMoney(quote.discount.old_amount, quote.currency, locale)}</del>
      )}
      <strong className="price-now">{quote.discount && <span className="visually-hidden">{t('shop.new_price')} </span>}{now}</strong>
    </span>
  );
}

/** "incl. 21% VAT (€ 13,88)". */
export function VatLine({ quote, locale, t }: { quote: Quote; locale: string; t: TFunction }) {
  return (
    <span className="vat-line">
      {t('shop.incl_vat_amount', { rate: formatRate(quote.vat_rate, locale), amount: formatMoney(quote.vat_amount, quote.currency, locale) })}
    </span>
  );
}

/** The summary of one order: credits, price (old/new), VAT, total. */
export function OrderSummary({ quote, locale, t }: { quote: Quote; locale: string; t: TFunction }) {
  return (
    <dl className="order-summary">
      <div><dt>{t('shop.bundle')}</dt><dd>{t('shop.credits_count', { count: quote.credits })}</dd></div>
      {quote.discount && (
        <div>
          <dt>{t('shop.discount_line', { percent: quote.discount.percentage })}</dt>
          <dd>−{formatMoney(quote.discount.old_amount - quote.discount.new_amount, quote.currency, locale)}</dd>
        </div>
      )}
      <div><dt>{t('shop.net_amount')}</dt><dd>{formatMoney(quote.net_amount, quote.currency, locale)}</dd></div>
      <div><dt>{t('shop.vat_amount', { rate: formatRate(quote.vat_rate, locale) })}</dt><dd>{formatMoney(quote.vat_amount, quote.currency, locale)}</dd></div>
      <div className="order-total"><dt>{t('shop.total_incl_vat')}</dt><dd><Price quote={quote} locale={locale} t={t} /></dd></div>
    </dl>
  );
}
