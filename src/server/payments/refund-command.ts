import type { AppContext } from '../app-context';
import { applyProviderPayment } from './payments.service';
import { toProviderAmount } from './pricing';

export const PAYMENTS_USAGE = 'Usage: npm run payments -- refund <site-id> <payment-id> [amount, e.g. 10.00; default: all that is left]';

/**
 * Refunds (part of) a paid payment at the provider, then applies the provider's answer at once —
 * credits are taken back as the webhook would (never below zero, the rest recorded as owed).
 */
export async function runPaymentsCommand(app: AppContext, argv: string[]): Promise<{ code: number; out: string[] }> {
  const [command, siteId, idText, amountText] = argv;
  if (command !== 'refund' || !siteId || !/^\d+$/.test(idText ?? '')) return { code: 2, out: [PAYMENTS_USAGE] };
  const row = await app.db.db.selectFrom('payments').selectAll().where('id', '=', Number(idText)).where('site_id', '=', siteId).executeTakeFirst();
  if (!row) return { code: 1, out: [`No payment ${idText} on ${siteId}.`] };
  const left = row.amount - row.refunded_amount - row.charged_back_amount;
  if (row.paid_at === null || !row.provider_id || left <= 0) return { code: 1, out: [`Payment ${row.id} is ${row.status}; nothing to refund.`] };
  const cents = amountText === undefined ? left : Math.round(Number(amountText) * 100);
  if (!Number.isSafeInteger(cents) || cents <= 0 || cents > left) return { code: 2, out: [`The amount must be above 0 and at most ${(left / 100).toFixed(2)}.`, PAYMENTS_USAGE] };
  const provider = await app.payments.provider();
  if (!provider || provider.name !== row.provider) return { code: 1, out: [`Payment ${row.id} was made with the ${row.provider} provider, which is not configured now.`] };
  await provider.refund(row.provider_id, toProviderAmount(cents, row.currency), `Refund of payment ${row.id}`);
  const updated = await applyProviderPayment(app, row.id, await provider.getPayment(row.provider_id));
  return {
    code: 0,
    out: [`Refunded ${(cents / 100).toFixed(2)} ${row.currency} of payment ${row.id}: status ${updated?.status}, credits taken back ${updated?.credits_taken_back}, owed ${updated?.credits_owed}.`],
  };
}
