import type { CreditsEvent } from '../../shared/payments.contract';
import { setTotals } from '../chat/totals.store';

const listeners = new Set<(event: CreditsEvent) => void>();

/** Called for every credits event of the member's realtime stream (payments, refunds, spending). */
export function onCreditsEvent(listener: (event: CreditsEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A credits event arrived (SSE, any open tab): the balance and premium state change at once —
 * the nav's credits badge, Get Premium, the time bonus — and a waiting return page hears of it.
 */
export function receiveCreditsEvent(event: Omit<CreditsEvent, 'type'> & { type?: 'credits' }) {
  setTotals({ credits: event.credits, ...(typeof event.paid_user === 'boolean' ? { paid_user: event.paid_user } : {}) });
  for (const listener of listeners) listener({ ...event, type: 'credits' } as CreditsEvent);
}
