import { countryName } from '../../shared/geo/country-names';
import type { Locale } from '../../shared/locales';
import { createHash, randomInt } from 'node:crypto';
import { electronicFormatIBAN, extractIBAN, isSEPACountry, isValidIBAN } from 'ibantools';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type {
  DirectDebitInfoResponse, DirectDebitInput, DirectDebitResponse, DirectDebitSmsResponse, MandateInfo,
} from '../../shared/payments.contract';
import {
  DD_WINDOW_DAYS, SMS_CODE_LENGTH, SMS_CODE_MAX_TRIES, SMS_CODE_TTL_MS, SMS_MAX_PER_HOUR, SMS_RESEND_AFTER_MS,
} from '../../shared/payments.contract';
import { getT } from '../../shared/i18n';
import type { Site } from '../../shared/site.schema';
import type { Caller } from '../accounts/caller';
import type { AppContext } from '../app-context';
import type { User } from '../db/schema';
import { RuleError } from '../rule-error';
import { lockMember, lockName } from '../db/locks';
import { chargeMandate, ensureCustomer, priceOrder, requireProvider } from './payments.service';
import { methodUsable, paymentCountry } from './pricing';

const WINDOW_MS = DD_WINDOW_DAYS * 86_400_000;

function hashCode(userId: number, code: string) {
  return createHash('sha256').update(`${userId}:${code}`).digest('hex');
}

/** The mobile number in E.164 when it is a valid mobile number (the payment country is the default region). */
export function parseMobile(raw: string, country: string): string | null {
  const phone = parsePhoneNumberFromString(raw, country as never);
  if (!phone?.isValid() || phone.country !== country) return null;
  const type = phone.getType();
  return type === 'MOBILE' || type === 'FIXED_LINE_OR_MOBILE' ? phone.number : null;
}

/** The IBAN in electronic form when valid and from a SEPA country. */
export function parseIban(raw: string): { iban: string; country: string } | null {
  const iban = electronicFormatIBAN(raw) ?? '';
  if (!isValidIBAN(iban)) return null;
  const country = extractIBAN(iban).countryCode ?? '';
  return isSEPACountry(country) ? { iban, country } : null;
}

async function mandateInfo(app: AppContext, site: Site, user: User, locale: Locale): Promise<MandateInfo> {
  const { creditor } = site.payments;
  const count = await app.db.db.selectFrom('dd_mandates').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', user.id).executeTakeFirstOrThrow();
  return {
    creditor_name: creditor.name,
    creditor_id: creditor.id,
    creditor_address: `${creditor.address}, ${countryName(creditor.country ?? site.company.country, locale)}`,
    mandate_reference: `${site.id.slice(0, 3).toUpperCase()}-DD-${String(user.id).padStart(8, '0')}-${Number(count.n) + 1}`,
  };
}

async function isBlocked(app: AppContext, user: User) {
  return Boolean(await app.db.db.selectFrom('dd_blocks').select('user_id').where('user_id', '=', user.id).executeTakeFirst());
}

/** Direct-debit payments (count, amount) of the member in the last 30 days, failed ones excluded. */
async function usage(app: AppContext, site: Site, user: User) {
  const row = await app.db.db.selectFrom('payments')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.val(0)).as('total')])
    .where('site_id', '=', site.id).where('user_id', '=', user.id).where('method', '=', 'directdebit')
    .where('created_at', '>', app.clock.now() - WINDOW_MS).where('status', 'not in', ['failed', 'canceled', 'expired'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), total: Number(row.total) };
}

/** GET /api/directdebit.php — mandate text data, block and limit state, and the order's quote. */
export async function directDebitInfo(
  app: AppContext, caller: Caller & { country?: string | null }, user: User, query: { bundle?: number; country?: string; discount?: string },
): Promise<DirectDebitInfoResponse> {
  const site = caller.site;
  const limits = site.payments.direct_debit;
  const used = await usage(app, site, user);
  let offer: DirectDebitInfoResponse['offer'] = null;
  if (query.bundle !== undefined) {
    // Priced by the checkout's own rule: the discount the checkout showed is the one this form charges.
    const priced = await priceOrder(app, caller, user, { bundle: query.bundle, country: query.country, method: 'directdebit', discount: query.discount });
    offer = { bundle: priced.bundle, quote: priced.quote };
  }
  return {
    mandate: await mandateInfo(app, site, user, caller.locale),
    blocked: await isBlocked(app, user),
    limit_reached: used.count >= limits.max_per_30_days || used.total >= limits.max_amount_per_30_days,
    remaining: Math.max(0, limits.max_per_30_days - used.count),
    offer,
  };
}

/** POST /api/directdebit.php?sms=1 — a 6-digit code to the member's mobile, valid 10 minutes; resends limited. */
export async function sendSmsCode(app: AppContext, caller: Caller & { country?: string | null }, user: User, input: { mobile: string; country: string }): Promise<DirectDebitSmsResponse> {
  const site = caller.site;
  if (await isBlocked(app, user)) throw new RuleError('dd_blocked', 'payments.dd_blocked', 403);
  // The code goes only to a mobile number of the payment country (whose evidence the order itself checks, IBAN included).
  const pc = paymentCountry(site, input.country);
  if (!pc?.methods.includes('directdebit')) throw new RuleError('country_unavailable', 'payments.country_unavailable', 400);
  const mobile = parseMobile(input.mobile, input.country);
  if (!mobile) throw new RuleError('mobile_invalid', 'payments.dd.mobile_invalid', 400, {}, { mobile: 'payments.dd.mobile_invalid' });
  if (!app.payments.sms) throw new RuleError('provider_error', 'payments.provider_error', 503);
  const now = app.clock.now();
  const code = String(randomInt(0, 10 ** SMS_CODE_LENGTH)).padStart(SMS_CODE_LENGTH, '0');
  const { db, dialect } = app.db;
  const refused = await db.transaction().execute(async (trx) => {
    // Parallel sends for one member, or for one number from several members, count one after another.
    await lockMember(trx, dialect, user.id);
    await lockName(trx, dialect, `sms:${mobile}`);
    const recent = await trx.selectFrom('sms_codes').select('created_at')
      .where((eb) => eb.or([eb('user_id', '=', user.id), eb('mobile', '=', mobile)])).where('created_at', '>', now - 3_600_000)
      .orderBy('created_at', 'desc').execute();
    if (recent.length >= SMS_MAX_PER_HOUR || (recent[0] && now - recent[0].created_at < SMS_RESEND_AFTER_MS)) return true;
    // Only the newest code counts.
    await trx.updateTable('sms_codes').set({ expires_at: now }).where('user_id', '=', user.id).where('used_at', 'is', null).where('expires_at', '>', now).execute();
    await trx.insertInto('sms_codes').values({ user_id: user.id, mobile, code_hash: hashCode(user.id, code), created_at: now, expires_at: now + SMS_CODE_TTL_MS, used_at: null }).execute();
    return false;
  });
  if (refused) throw new RuleError('sms_resend_limit', 'payments.sms_resend_limit', 429);
  const t = getT(caller.locale);
  await app.payments.sms.send({ siteId: site.id, to: mobile, text: t('payments.dd.sms_text', { site: site.name, code }), subject: t('payments.dd.sms_subject', { mobile }) });
  return { sent: true, expires_at: now + SMS_CODE_TTL_MS, resend_after: now + SMS_RESEND_AFTER_MS };
}

type CodeCheck = 'ok' | 'invalid' | 'expired';
/**
 * Checks the SMS code. Every try is counted by one conditional update before the code is compared,
 * so parallel guesses on PostgreSQL get at most SMS_CODE_MAX_TRIES evaluated; the right code is used once.
 */
async function consumeSmsCode(app: AppContext, user: User, mobile: string, code: string): Promise<CodeCheck> {
  const now = app.clock.now();
  const db = app.db.db;
  const row = await db.selectFrom('sms_codes').selectAll().where('user_id', '=', user.id).where('used_at', 'is', null)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!row || row.expires_at <= now) return 'expired';
  const counted = await db.updateTable('sms_codes').set((eb) => ({ tries: eb('tries', '+', 1) }))
    .where('id', '=', row.id).where('tries', '<', SMS_CODE_MAX_TRIES).where('used_at', 'is', null).executeTakeFirst();
  if (Number(counted.numUpdatedRows) !== 1) return 'invalid';
  if (row.mobile !== mobile || row.code_hash !== hashCode(user.id, code)) return 'invalid';
  const used = await db.updateTable('sms_codes').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
  return Number(used.numUpdatedRows) === 1 ? 'ok' : 'invalid';
}

/**
 * POST /api/directdebit.php — checks block, 30-day limits, IBAN, mobile and SMS code; then makes the
 * SEPA mandate at the provider and collects the bundle's price on it (pending until the bank settles).
 */
export async function submitDirectDebit(app: AppContext, caller: Caller, user: User, input: DirectDebitInput): Promise<DirectDebitResponse> {
  const site = caller.site;
  if (await isBlocked(app, user)) throw new RuleError('dd_blocked', 'payments.dd_blocked', 403);
  const pc = paymentCountry(site, input.country);
  if (!pc) throw new RuleError('country_unavailable', 'payments.country_unavailable', 400);
  if (!pc.methods.includes('directdebit') || !methodUsable('directdebit', pc.currency)) throw new RuleError('method_unavailable', 'payments.method_unavailable', 400);
  const iban = parseIban(input.iban);
  if (!iban) throw new RuleError('iban_invalid', 'payments.dd.iban_invalid', 400, {}, { iban: 'payments.dd.iban_invalid' });
  // The IBAN's country is evidence of where the member is, beside their address and profile.
  const priced = await priceOrder(app, caller, user, { bundle: input.bundle, country: input.country, method: 'directdebit', discount: input.discount, iban: iban.country });
  const limits = site.payments.direct_debit;
  const used = await usage(app, site, user);
  if (used.count >= limits.max_per_30_days || used.total + priced.quote.amount > limits.max_amount_per_30_days) {
    throw new RuleError('dd_limit', 'payments.dd_limit', 429);
  }
  const mobile = parseMobile(input.mobile, input.country);
  if (!mobile) throw new RuleError('mobile_invalid', 'payments.dd.mobile_invalid', 400, {}, { mobile: 'payments.dd.mobile_invalid' });
  const check = await consumeSmsCode(app, user, mobile, input.sms_code);
  if (check === 'expired') throw new RuleError('sms_expired', 'payments.sms_expired', 400, {}, { sms_code: 'payments.sms_expired' });
  if (check === 'invalid') throw new RuleError('sms_invalid', 'payments.sms_invalid', 400, {}, { sms_code: 'payments.sms_invalid' });

  const provider = await requireProvider(app);
  const info = await mandateInfo(app, site, user, caller.locale);
  const now = app.clock.now();
  let customerId: string;
  let mandate: { id: string; status: string };
  try {
    customerId = await ensureCustomer(app, provider, user, site);
    mandate = await provider.createMandate(customerId, {
      consumerName: input.account_holder, consumerAccount: iban.iban, signatureDate: new Date(now).toISOString().slice(0, 10), mandateReference: info.mandate_reference,
    });
  } catch (err) {
    app.logger.warn({ err }, 'direct-debit mandate refused by the provider');
    throw new RuleError('provider_error', 'payments.provider_error', 503);
  }
  await app.db.db.insertInto('dd_mandates').values({
    user_id: user.id, provider: provider.name, mandate_id: mandate.id, mandate_reference: info.mandate_reference, account_holder: input.account_holder,
    iban_last4: iban.iban.slice(-4), iban_country: iban.country, mobile,
    address: JSON.stringify({ street: input.street, house_number: input.house_number, postal_code: input.postal_code, city: input.city }), created_at: now,
  }).execute();
  const result = await chargeMandate(app, caller, user, provider, {
    bundle: priced.bundle, quote: priced.quote, method: 'directdebit', customerId, mandateId: mandate.id, mandateReference: info.mandate_reference,
    discountId: priced.discount?.row.id ?? null, discountCode: priced.discount?.row.code ?? null, offerKey: priced.offerKey, evidence: priced.evidence,
    declined: { code: 'payment_failed', key: 'payments.failed' },
  });
  return { payment: result.payment, view: result.view, mandate: info };
}
