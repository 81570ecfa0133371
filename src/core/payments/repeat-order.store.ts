import { atom } from 'nanostores';
import { PAYMENTS_PATHS, type RepeatOrderResponse } from '../../shared/payments.contract';
import { setTotals } from '../chat/totals.store';
import { ApiError, api, call } from '../api/client';
import { watchPayment } from './payment-status.store';

/**
 * /credits/repeat-order (premium): the last bundle again with the stored card or mandate, in one
 * click. A declined stored card answers 'Credit card payment failed' (code card_failed): the page
 * then offers "try again" and "pay with PayPal".
 */
export interface RepeatOrderState {
  status: 'ready' | 'sending' | 'done' | 'card_failed' | 'error';
  consent: boolean;
  consentMissing: boolean;
  message: string | null;
}
export const $repeatOrder = atom<RepeatOrderState>({ status: 'ready', consent: false, consentMissing: false, message: null });

export function setRepeatConsent(consent: boolean) {
  $repeatOrder.set({ ...$repeatOrder.get(), consent, consentMissing: false });
}

/**
 * The idempotency key of the order being placed: kept across a double click and a retry after a
 * network error (the server answers the same order), new once an answer said how the order ended.
 */
let orderKey: string | null = null;

/** POST /api/repeat-order.php; on success the answer's payment is followed like the return page's. */
export async function orderAgain(): Promise<void> {
  const state = $repeatOrder.get();
  if (state.status === 'sending') return;
  if (!state.consent) {
    $repeatOrder.set({ ...state, consentMissing: true });
    return;
  }
  $repeatOrder.set({ ...state, status: 'sending', message: null });
  orderKey ??= crypto.randomUUID();
  const key = orderKey;
  try {
    const answer = await call(() =>
      api.post(PAYMENTS_PATHS.repeatOrder.replace(/^\/api\//, ''), { json: { consent: true, key }, retry: 0 }).json<RepeatOrderResponse>());
    orderKey = null;
    setTotals({ credits: answer.credits });
    watchPayment(answer.payment.payment_id, { payment: answer.payment, view: answer.view, credits: answer.credits, paid_user: true });
    $repeatOrder.set({ ...$repeatOrder.get(), status: 'done' });
  } catch (err) {
    const api = err instanceof ApiError ? err : null;
    // A refusal ended this order (a retry is a new one); a network error leaves it unknown: same key again.
    if (api && api.status < 500) orderKey = null;
    $repeatOrder.set({ ...$repeatOrder.get(), status: api?.code === 'card_failed' ? 'card_failed' : 'error', message: api?.message ?? null });
  }
}

/** "Try again" after a decline. */
export function retryRepeatOrder() {
  $repeatOrder.set({ ...$repeatOrder.get(), status: 'ready', message: null });
  return orderAgain();
}

/** Test helper. */
export function resetRepeatOrder() {
  orderKey = null;
  $repeatOrder.set({ status: 'ready', consent: false, consentMissing: false, message: null });
}
