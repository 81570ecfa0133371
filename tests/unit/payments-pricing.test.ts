import { describe, expect, it } from 'vitest';
import { PAYMENT_METHOD_IDS, PAYMENT_METHODS, paymentView } from '../../src/shared/payments.contract';
import { defaultPaymentCountry, findBundle, fromProviderAmount, methodsForCountry, quoteBundle, toProviderAmount, vatIncluded } from '../../src/server/payments/pricing';
import { webhookFor } from '../../src/server/payments/payments.service';
import type { PaymentProvider } from '../../src/server/payments/provider';
import { loadSites } from '../../src/server/sites/site-registry';

const sites = loadSites();
const kindred = sites.find((s) => s.id === 'kindred')!;
const rijpe = sites.find((s) => s.id === 'rijpe-dates')!;

describe('payment pricing', () => {
  it('defaults the payment country: GeoIP, then the profile country, then the first site country', () => {
    expect(defaultPaymentCountry(kindred, 'DE', 'NL')).toBe('DE');
    expect(defaultPaymentCountry(kindred, 'JP', 'PL')).toBe('PL');
    expect(defaultPaymentCountry(kindred, null, null)).toBe('NL');
    expect(defaultPaymentCountry(rijpe, 'DE', 'DE')).toBe('NL');
  });

  it('prices a bundle with VAT included, discount old/new and price per message', () => {
    const bundle = findBundle(kindred, 1)!;
    expect(quoteBundle(kindred, bundle, 'DE', null)).toMatchObject({ amount: 3495, vat_rate: 19, vat_amount: 558, net_amount: 2937, discount: null });
    expect(quoteBundle(kindred, bundle, 'SE', { code: 'X', value_percentage: 25 })).toMatchObject({
      currency: 'SEK', list_amount: 34900, amount: 26175, discount: { code: 'X', percentage: 25, old_amount: 34900, new_amount: 26175 }, price_per_message: 2618,
    });
    expect(quoteBundle(kindred, bundle, 'JP', null)).toBeNull();
    expect(vatIncluded(12100, 21)).toBe(2100);
  });

  it('knows the 24 methods of SPEC §9: card brands through creditcard, Giropay and SOFORT off', () => {
    expect(PAYMENT_METHOD_IDS).toHaveLength(24);
    for (const brand of ['visa', 'mastercard', 'maestro', 'cartebancaire', 'dankort', 'nexi'] as const) expect(PAYMENT_METHODS[brand].provider_method).toBe('creditcard');
    expect(PAYMENT_METHOD_IDS.filter((m) => PAYMENT_METHODS[m].enabled)).toHaveLength(22);
    expect(methodsForCountry(kindred, 'DE').filter((m) => !m.enabled).map((m) => m.id)).toEqual(['giropay', 'sofort']);
    // iDEAL and direct debit are EUR only: not usable for a GBP order.
    expect(methodsForCountry(kindred, 'GB').every((m) => m.id !== 'ideal')).toBe(true);
  });

  it('converts cents to the provider decimal strings and back', () => {
    expect(toProviderAmount(3495, 'EUR')).toEqual({ currency: 'EUR', value: '34.95' });
    expect(fromProviderAmount({ currency: 'EUR', value: '0.10' })).toBe(10);
    expect(fromProviderAmount(undefined)).toBe(0);
  });

  it('maps payment states to the return page (SPEC §4)', () => {
    expect(['open', 'pending', 'paid', 'failed', 'canceled', 'expired'].map((s) => paymentView(s as never))).toEqual(['loading', 'pending', 'completed', 'failed', 'failed', 'failed']);
  });
});

describe('webhook URL', () => {
  const mollie = { name: 'mollie' } as PaymentProvider;
  const local = { name: 'local' } as PaymentProvider;
  it('is sent to Mollie only when Mollie can reach it; the local provider always gets it', () => {
    expect(webhookFor(mollie, 'https://kindred.example')).toEqual({ webhookUrl: 'https://kindred.example/api/webhooks/mollie.php' });
    expect(webhookFor(mollie, 'http://localhost:4321')).toEqual({});
    expect(webhookFor(mollie, 'http://rijpe.localhost:4321')).toEqual({});
    expect(webhookFor(mollie, 'http://127.0.0.1:4321')).toEqual({});
    expect(webhookFor(local, 'http://localhost:4321')).toEqual({ webhookUrl: 'http://localhost:4321/api/webhooks/mollie.php' });
  });
});
