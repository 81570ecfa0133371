import { atom, computed } from 'nanostores';
import {
  type CreatePaymentInput, type CreatePaymentResponse, type MethodsResponse, PAYMENTS_PATHS, type PaymentMethodId, type Quote,
} from '../../shared/payments.contract';
import { ApiError, api, call } from '../api/client';
import { shopQuery } from './shop.store';

/** /credits/{id}/{paymentmethod?}: the chosen bundle, the methods of the payment country, the member's choices. */
export interface CheckoutState {
  data: MethodsResponse;
  method: PaymentMethodId | null;
  issuer: string | null;
  /** The EU withdrawal-waiver consent for digital content (required). */
  consent: boolean;
  /** A typed discount code carried from /credits, or null. */
  code: string | null;
  status: 'ready' | 'sending' | 'redirecting';
  /** What went wrong: 'method' (none chosen), 'issuer' (bank missing), 'consent', or a translated server message. */
  error: { field: 'method' | 'issuer' | 'consent' | null; message: string | null } | null;
}

export const $checkout = atom<CheckoutState | null>(null);

/** The chosen method's quote (a discount may apply to some methods only), else the bundle's. */
export const $checkoutQuote = computed($checkout, (state): Quote | null => {
  if (!state) return null;
  return (state.method && state.data.quotes[state.method]) || state.data.offer.quote;
});

const path = (full: string) => full.replace(/^\/api\//, '');
function patch(next: Partial<CheckoutState>) {
  const state = $checkout.get();
  if (state) $checkout.set({ ...state, ...next });
}

/** Where the method choice lives in the address: /credits/{id}/{method}?country=…&discount=… */
export function checkoutPath(bundleId: number, method: PaymentMethodId | null, country: string | null, code: string | null) {
  return `/credits/${bundleId}${method ? `/${method}` : ''}${shopQuery(country, code)}`;
}

/** The page's server-rendered answer and the method named in the address (if it is offered and on). */
export function setInitialCheckout(data: MethodsResponse, method: string | null, code: string | null) {
  const offered = data.methods.find((m) => m.id === method && m.enabled);
  $checkout.set({ data, method: offered?.id ?? null, issuer: null, consent: false, code, status: 'ready', error: null });
}

/** Picks a method; the address follows so a reload or a shared link keeps it. */
export function chooseMethod(method: PaymentMethodId) {
  const state = $checkout.get();
  if (!state?.data.methods.some((m) => m.id === method && m.enabled)) return;
  patch({ method, issuer: method === state.method ? state.issuer : null, error: null });
  if (typeof history !== 'undefined') {
    history.replaceState(history.state, '', checkoutPath(state.data.offer.bundle.id, method, state.data.country, state.code));
  }
}

export function chooseIssuer(issuer: string | null) {
  patch({ issuer, error: null });
}

export function setConsent(consent: boolean) {
  const state = $checkout.get();
  patch({ consent, error: state?.error?.field === 'consent' ? null : (state?.error ?? null) });
}

/** Direct debit has its own form (SPEC §5) before anything is ordered. */
export function directDebitPath(state: Pick<CheckoutState, 'data' | 'code'>) {
  const params = new URLSearchParams({ bundle: String(state.data.offer.bundle.id), country: state.data.country });
  if (state.code) params.set('discount', state.code);
  return `/directdebit?${params}`;
}

/**
 * Places the order: checks the choices, then POST /api/payments.php and sends the buyer to the
 * provider's checkout. Resolves to the address to go to (the caller navigates), or null when
 * something is missing or refused (then `error` says what).
 */
export async function placeOrder(): Promise<string | null> {
  const state = $checkout.get();
  if (state?.status !== 'ready') return null;
  const method = state.data.methods.find((m) => m.id === state.method);
  if (!method) {
    patch({ error: { field: 'method', message: null } });
    return null;
  }
  if (method.id === 'directdebit') return directDebitPath(state);
  if (method.has_issuers && method.issuers.length > 0 && !state.issuer) {
    patch({ error: { field: 'issuer', message: null } });
    return null;
  }
  if (!state.consent) {
    patch({ error: { field: 'consent', message: null } });
    return null;
  }
  const body: CreatePaymentInput = { bundle: state.data.offer.bundle.id, method: method.id, country: state.data.country, consent: true };
  if (state.issuer) body.issuer = state.issuer;
  if (state.code) body.discount = state.code;
  patch({ status: 'sending', error: null });
  try {
    const answer = await call(() => api.post(path(PAYMENTS_PATHS.payments), { json: body, retry: 0 }).json<CreatePaymentResponse>());
    patch({ status: 'redirecting' });
    return answer.checkout_url;
  } catch (err) {
    patch({ status: 'ready', error: { field: null, message: err instanceof ApiError ? err.message : null } });
    return null;
  }
}
