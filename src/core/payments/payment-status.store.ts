import { atom } from 'nanostores';
import {
  PAYMENT_POLL_MS, PAYMENTS_PATHS, type Payment, type PaymentStatusResponse, type PaymentView,
} from '../../shared/payments.contract';
import { setTotals } from '../chat/totals.store';
import { api, call } from '../api/client';
import { onCreditsEvent } from './payment-events';

/** The return page (SPEC §4 payment: loading → pending → completed / failed or cancelled). */
export interface PaymentWatch {
  id: number;
  view: PaymentView;
  payment: Payment | null;
  /** The last status check failed (network); polling goes on. */
  offline: boolean;
}
export const $paymentWatch = atom<PaymentWatch | null>(null);

const FINAL: PaymentView[] = ['completed', 'failed'];
let timer: ReturnType<typeof setTimeout> | null = null;
let unlisten: (() => void) | null = null;

function stop() {
  if (timer) clearTimeout(timer);
  timer = null;
  unlisten?.();
  unlisten = null;
}

function take(answer: PaymentStatusResponse) {
  const current = $paymentWatch.get();
  if (!current || current.id !== answer.payment.payment_id) return;
  // A final answer is never replaced by an older in-between one.
  if (FINAL.includes(current.view) && !FINAL.includes(answer.view)) return;
  $paymentWatch.set({ ...current, view: answer.view, payment: answer.payment, offline: false });
  setTotals({ credits: answer.credits, paid_user: answer.paid_user });
  if (FINAL.includes(answer.view)) stop();
}

/** GET /api/payments.php?id= once. */
export async function checkPayment(): Promise<void> {
  const current = $paymentWatch.get();
  if (!current) return;
  try {
    const answer = await call(() =>
      api.get(PAYMENTS_PATHS.payments.replace(/^\/api\//, ''), { searchParams: { id: String(current.id) }, retry: 0 }).json<PaymentStatusResponse>());
    take(answer);
  } catch {
    const now = $paymentWatch.get();
    if (now && now.id === current.id) $paymentWatch.set({ ...now, offline: true });
  }
}

function schedule() {
  timer = setTimeout(async () => {
    timer = null;
    await checkPayment();
    const now = $paymentWatch.get();
    if (now && !FINAL.includes(now.view) && unlisten) schedule();
  }, PAYMENT_POLL_MS);
}

/**
 * Follows one payment until it is final: polls its status every PAYMENT_POLL_MS and also checks at
 * once when the realtime stream says this payment changed (webhooks land in any process).
 * `initial` is what the page rendered (null: start from 'loading'). Returns a function that stops.
 */
export function watchPayment(id: number, initial: PaymentStatusResponse | null = null): () => void {
  stop();
  $paymentWatch.set({ id, view: 'loading', payment: null, offline: false });
  if (initial) take(initial);
  const first = $paymentWatch.get();
  if (first && FINAL.includes(first.view)) return stop;
  unlisten = onCreditsEvent((event) => {
    if (event.payment_id === id) void checkPayment();
  });
  schedule();
  if (!initial) void checkPayment();
  return stop;
}

/** Test helper. */
export function resetPaymentWatch() {
  stop();
  $paymentWatch.set(null);
}
