import type { AppContext } from '../app-context';
import { getT } from '../../shared/i18n';
import { RuleError } from '../rule-error';
import { refundPayment } from './payments.service';

export const PAYMENTS_USAGE = 'Usage: npm run payments -- refund <site-id> <payment-id> [amount, e.g. 10.00; default: all that is left]';

/**
 * Refunds (part of) a paid payment at the provider, then applies the provider's answer at once —
 * credits are taken back as the webhook would (never below zero, the rest recorded as owed).
 */
export async function runPaymentsCommand(app: AppContext, argv: string[]): Promise<{ code: number; out: string[] }> {
  const [command, siteId, idText, amountText] = argv;
  if (command !== 'refund' || !siteId || !/^\d{1,10}$/.test(idText ?? '')) return { code: 2, out: [PAYMENTS_USAGE] };
  const cents = amountText === undefined ? null : Math.round(Number(amountText) * 100);
  if (cents !== null && (!Number.isSafeInteger(cents) || cents <= 0)) return { code: 2, out: ['The amount must be above 0.', PAYMENTS_USAGE] };
  try {
    const updated = await refundPayment(app, { siteId, paymentId: Number(idText) }, cents);
    const refunded = updated.refunded_amount;
    return {
      code: 0,
      out: [`Refunded payment ${updated.id} (${(refunded / 100).toFixed(2)} ${updated.currency} in all): status ${updated.status}, credits taken back ${updated.credits_taken_back}, owed ${updated.credits_owed}.`],
    };
  } catch (err) {
    if (!(err instanceof RuleError)) throw err;
    return { code: err.status === 400 ? 2 : 1, out: [`Payment ${idText} on ${siteId}: ${getT('en')(err.key, err.params)}`] };
  }
}
