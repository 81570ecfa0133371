import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $checkout, placeOrder, setConsent, setInitialCheckout, chooseIssuer, chooseMethod } from '../../src/core/payments/checkout.store';
import { receiveCreditsEvent } from '../../src/core/payments/payment-events';
import { $paymentWatch, resetPaymentWatch, watchPayment } from '../../src/core/payments/payment-status.store';
import { $user } from '../../src/core/session/store';
import { PAYMENT_POLL_MS, type MethodsResponse, type Payment, type PaymentStatusResponse, type Quote } from '../../src/shared/payments.contract';
import { user } from '../helpers/chat-fixtures';
import { fakeAddressBar, fakeApi } from '../helpers/fake-api';

const quote: Quote = {
  bundle_id: 2, credits: 250, currency: 'EUR', country: 'NL', list_amount: 7995, discount: null, amount: 7995, vat_rate: 21,
  vat_amount: 1388, net_amount: 6607, price_per_message: 320,
};
const payment = (status: Payment['status']): Payment => ({
  payment_id: 7, status, bundle_id: 2, credits: 250, method: 'ideal', issuer: null, currency: 'EUR', country: 'NL', amount: 7995, vat_rate: 21,
  vat_amount: 1388, net_amount: 6607, list_amount: 7995, discount_code: null, refunded_amount: 0, charged_back_amount: 0,
  created: '2026-11-23T10:00:00Z', paid: null, mandate_reference: null,
});
const answer = (status: Payment['status'], view: PaymentStatusResponse['view'], credits = 20, paid = false): PaymentStatusResponse =>
  ({ payment: payment(status), view, credits, paid_user: paid });
const methods: MethodsResponse = {
  country: 'NL', discount: null, quotes: {},
  offer: { bundle: { id: 2, credits: 250, prices: { EUR: 7995 }, badge: 'most_chosen', trial: false }, quote },
  methods: [
    { id: 'ideal', enabled: true, provider_method: 'ideal', has_issuers: true, label_key: 'payments.method.ideal', logo: '/payment-logos/ideal.svg', issuers: [{ id: 'ideal_ABNANL2A', name: 'ABN AMRO', image: null }] },
    { id: 'paypal', enabled: true, provider_method: 'paypal', has_issuers: false, label_key: 'payments.method.paypal', logo: '/payment-logos/paypal.svg', issuers: [] },
    { id: 'giropay', enabled: false, provider_method: null, has_issuers: false, label_key: 'payments.method.giropay', logo: '/payment-logos/giropay.svg', issuers: [] },
  ],
};

let api: ReturnType<typeof fakeApi>;
beforeEach(() => {
  api = fakeApi();
  $user.set(user({ credits: 20, paid_user: false }));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  resetPaymentWatch();
  vi.useRealTimers();
  expect(api.unexpected).toEqual([]);
  vi.unstubAllGlobals();
});

describe('payment status (return page)', () => {
  it('polls while pending and stops at completed, putting credits and premium on the member', async () => {
    watchPayment(7, answer('pending', 'pending'));
    expect($paymentWatch.get()?.view).toBe('pending');
    api.expectRequest('/api/payments.php?id=7').andRespond(200, answer('pending', 'pending'));
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS);
    api.expectRequest('/api/payments.php?id=7').andRespond(200, answer('paid', 'completed', 270, true));
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS);
    expect($paymentWatch.get()?.view).toBe('completed');
    expect($user.get()).toMatchObject({ credits: 270, paid_user: true });
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS * 3);
    expect(api.requests).toHaveLength(2);
  });

  it('checks at once when the realtime stream says this payment changed, and ignores other payments', async () => {
    watchPayment(7, answer('open', 'loading'));
    receiveCreditsEvent({ credits: 20, payment_id: 99 });
    expect(api.requests).toEqual([]);
    api.expectRequest('/api/payments.php?id=7').andRespond(200, answer('paid', 'completed', 270, true));
    receiveCreditsEvent({ credits: 270, paid_user: true, payment_id: 7, status: 'paid' });
    // The event itself already updates the nav's balance and premium state, in every tab.
    expect($user.get()).toMatchObject({ credits: 270, paid_user: true });
    await vi.waitFor(() => expect($paymentWatch.get()?.view).toBe('completed'));
  });

  it('never goes back from a final state and shows failed with nothing credited', async () => {
    watchPayment(7, answer('failed', 'failed'));
    expect($paymentWatch.get()?.view).toBe('failed');
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS * 2);
    expect(api.requests).toEqual([]);
    expect($user.get()?.credits).toBe(20);
  });

  it('keeps polling through a network failure', async () => {
    watchPayment(7, answer('pending', 'pending'));
    api.expectRequest('/api/payments.php?id=7').andRespond(503, { error: 'down' });
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS);
    expect($paymentWatch.get()).toMatchObject({ view: 'pending', offline: true });
    api.expectRequest('/api/payments.php?id=7').andRespond(200, answer('paid', 'completed', 270, true));
    await vi.advanceTimersByTimeAsync(PAYMENT_POLL_MS);
    expect($paymentWatch.get()).toMatchObject({ view: 'completed', offline: false });
  });
});

describe('checkout', () => {
  beforeEach(() => {
    fakeAddressBar('/credits/2?country=NL');
    setInitialCheckout(methods, null, null);
  });

  it('asks for a method, a bank and the withdrawal waiver before anything is sent', async () => {
    expect(await placeOrder()).toBeNull();
    expect($checkout.get()?.error?.field).toBe('method');
    chooseMethod('giropay');
    expect($checkout.get()?.method).toBeNull();
    chooseMethod('ideal');
    expect(location.pathname).toBe('/credits/2/ideal');
    expect(await placeOrder()).toBeNull();
    expect($checkout.get()?.error?.field).toBe('issuer');
    chooseIssuer('ideal_ABNANL2A');
    expect(await placeOrder()).toBeNull();
    expect($checkout.get()?.error?.field).toBe('consent');
    expect(api.requests).toEqual([]);
  });

  it('orders with the choices and answers the provider checkout; a refusal is shown and nothing moves on', async () => {
    chooseMethod('ideal');
    chooseIssuer('ideal_ABNANL2A');
    setConsent(true);
    api.expectRequest('/api/payments.php', 'POST').andRespond(400, { error: 'issuer_invalid', message: 'Please choose your bank.' });
    expect(await placeOrder()).toBeNull();
    expect($checkout.get()?.error).toEqual({ field: null, message: 'Please choose your bank.' });
    api.expectRequest('/api/payments.php', 'POST').andRespond(200, { payment_id: 7, checkout_url: 'http://localhost/api/local-mollie/checkout/tr_1' });
    expect(await placeOrder()).toBe('http://localhost/api/local-mollie/checkout/tr_1');
    expect($checkout.get()?.status).toBe('redirecting');
  });

  it('sends direct debit to its own form with the bundle and country', async () => {
    const dd: MethodsResponse = { ...methods, methods: [...methods.methods, { ...methods.methods[1], id: 'directdebit', label_key: 'payments.method.directdebit' }] };
    setInitialCheckout(dd, 'directdebit', 'STAY50');
    expect(await placeOrder()).toBe('/directdebit?bundle=2&country=NL&discount=STAY50');
  });
});
