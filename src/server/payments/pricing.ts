import type { Bundle, Currency, DiscountCode, PaymentMethodId, PaymentMethodInfo, Quote } from '../../shared/payments.contract';
import { PAYMENT_METHODS } from '../../shared/payments.contract';
import type { PaymentCountry, Site } from '../../shared/site.schema';

/** Amounts in cents ↔ the provider's decimal strings ("10.00"); every currency we sell in has 2 decimals. */
export function toProviderAmount(cents: number, currency: string) {
  return { currency, value: (cents / 100).toFixed(2) };
}
export function fromProviderAmount(amount: { value: string; currency: string } | undefined | null): number {
  if (!amount) return 0;
  return Math.round(Number.parseFloat(amount.value) * 100);
}

/** The site's bundle with this id, as the contract describes it, or null. */
export function findBundle(site: Site, id: number): Bundle | null {
  const bundle = site.payments.bundles.find((b) => b.id === id);
  return bundle ? { id: bundle.id, credits: bundle.credits, prices: bundle.prices, badge: bundle.badge ?? null, trial: bundle.trial ?? false } : null;
}

export function listBundles(site: Site, includeTrial = false): Bundle[] {
  return site.payments.bundles.filter((b) => includeTrial || !b.trial).map((b) => findBundle(site, b.id) as Bundle);
}

export function paymentCountry(site: Site, country: string): PaymentCountry | null {
  return site.payments.countries[country] ?? null;
}

/** Payment country default: GeoIP → profile country → the site's first payment country (SPEC §3). */
export function defaultPaymentCountry(site: Site, geoip: string | null, profileCountry: string | null): string {
  for (const c of [geoip, profileCountry]) if (c && site.payments.countries[c]) return c;
  return site.countries.find((c) => site.payments.countries[c]) ?? Object.keys(site.payments.countries)[0];
}

/** VAT contained in a VAT-inclusive amount. */
export function vatIncluded(amount: number, rate: number): number {
  return Math.round((amount * rate) / (100 + rate));
}

/** Price of the bundle in the country's currency, the discount (if given) applied. */
export function quoteBundle(site: Site, bundle: Bundle, country: string, discount: Pick<DiscountCode, 'code' | 'value_percentage'> | null): Quote | null {
  const pc = paymentCountry(site, country);
  if (!pc) return null;
  const list = bundle.prices[pc.currency];
  if (list === undefined) return null;
  const discounted = discount ? Math.max(1, Math.round((list * (100 - discount.value_percentage)) / 100)) : list;
  const amount = discount ? discounted : list;
  const vat = vatIncluded(amount, pc.vat);
  return {
    bundle_id: bundle.id,
    credits: bundle.credits,
    currency: pc.currency as Currency,
    country,
    list_amount: list,
    discount: discount ? { code: discount.code, percentage: discount.value_percentage, old_amount: list, new_amount: discounted } : null,
    amount,
    vat_rate: pc.vat,
    vat_amount: vat,
    net_amount: amount - vat,
    price_per_message: Math.round((amount * Math.max(1, site.message_credits)) / bundle.credits),
  };
}

/** Whether a method can carry a payment in this currency (and is not discontinued). */
export function methodUsable(method: PaymentMethodId, currency: string): boolean {
  const def = PAYMENT_METHODS[method];
  return def.enabled && def.provider_method !== null && (def.currencies as readonly string[]).includes(currency);
}

/** The methods of a payment country in its configured order, each marked enabled or not. */
export function methodsForCountry(site: Site, country: string): PaymentMethodInfo[] {
  const pc = paymentCountry(site, country);
  if (!pc) return [];
  return pc.methods.map((id) => {
    const def = PAYMENT_METHODS[id];
    return {
      id,
      enabled: methodUsable(id, pc.currency),
      provider_method: def.provider_method,
      has_issuers: def.has_issuers,
      label_key: def.label_key,
      logo: def.logo,
    };
  });
}
