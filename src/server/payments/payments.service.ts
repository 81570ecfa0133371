import type {
  Bundle, BundleOffer, CreatePaymentInput, CreatePaymentResponse, CreditsEvent, CreditsResponse, Currency, MethodsResponse, Payment,
  PaymentMethodId, PaymentStatus, PaymentStatusResponse, Quote, Receipt, RepeatOrderResponse, TransactionResponse, TransactionsResponse,
} from '../../shared/payments.contract';
import { PAYMENT_METHODS, RETURN_PATH, paymentView, PAYMENTS_PATHS } from '../../shared/payments.contract';
import type { Site } from '../../shared/site.schema';
import { getT } from '../../shared/i18n';
import type { Caller } from '../accounts/caller';
import type { AppContext } from '../app-context';
import { applyCredits } from '../credits/ledger';
import type { Insertable, Transaction } from 'kysely';
import type { Database, PaymentRow, PaymentTable, User } from '../db/schema';
import { isUniqueViolation } from '../db/unique-violation';
import { type ActiveDiscount, activeDiscountFor, discountFits } from '../discounts/discounts.service';
import { recordRedemption } from '../discounts/discounts.repository';
import { recordAccountFunnelStep } from '../landers/funnel.service';
import type { BusEvent } from '../events/bus';
import { recordEvents } from '../events/events.service';
import { RuleError } from '../rule-error';
import {
  defaultPaymentCountry, findBundle, fromProviderAmount, listBundles, methodUsable, methodsForCountry, paymentCountry, quoteBundle, toProviderAmount,
} from './pricing';
import type { PaymentProvider, ProviderError, ProviderPayment, ProviderStatus } from './provider';
import * as repo from './payments.repository';

/** Methods whose paid first payment leaves a mandate the member can repeat an order with. */
const MANDATE_METHODS = new Set(['creditcard', 'paypal', 'ideal', 'bancontact', 'eps']);
const FINAL_FAILURES = new Set<PaymentStatus>(['failed', 'canceled', 'expired']);

/**
 * The public origin for provider callbacks (webhook, return URL): the site's configured origin
 * (`public_origin` / SITE_ORIGINS, see the request context), never the request's Host header.
 */
export function callbackOrigin(caller: Caller): string {
  return caller.origin;
}

/**
 * The webhook URL, except when real Mollie could not reach it (a localhost origin in development with
 * a test key): Mollie refuses such URLs, and the return page's poll re-reads the payment instead.
 */
export function webhookFor(provider: PaymentProvider, origin: string): { webhookUrl: string } | Record<string, never> {
  const host = new URL(origin).hostname;
  const unreachable = host === 'localhost' || host.endsWith('.localhost') || host.startsWith('127.') || host === '[::1]';
  return provider.name === 'mollie' && unreachable ? {} : { webhookUrl: `${origin}${PAYMENTS_PATHS.mollieWebhook}` };
}

export async function requireProvider(app: AppContext): Promise<PaymentProvider> {
  const provider = await app.payments.provider();
  if (!provider) throw new RuleError('provider_error', 'payments.provider_error', 503);
  return provider;
}

/** A payment row as the contract shows it. */
export function presentPayment(row: PaymentRow): Payment {
  return {
    payment_id: row.id,
    status: row.status,
    bundle_id: row.bundle_id,
    credits: row.credits,
    method: row.method as PaymentMethodId,
    issuer: row.issuer,
    currency: row.currency as Currency,
    country: row.country,
    amount: row.amount,
    vat_rate: row.vat_rate,
    vat_amount: row.vat_amount,
    net_amount: row.amount - row.vat_amount,
    list_amount: row.list_amount,
    discount_code: row.discount_code,
    refunded_amount: row.refunded_amount,
    charged_back_amount: row.charged_back_amount,
    created: new Date(row.created_at).toISOString(),
    paid: row.paid_at === null ? null : new Date(row.paid_at).toISOString(),
    mandate_reference: row.mandate_reference,
  };
}

function requireCountry(site: Site, country: string) {
  const pc = paymentCountry(site, country);
  if (!pc) throw new RuleError('country_unavailable', 'payments.country_unavailable', 400);
  return pc;
}

function requireBundle(site: Site, id: number): Bundle {
  const bundle = findBundle(site, id);
  if (!bundle) throw new RuleError('bundle_not_found', 'payments.bundle_not_found', 404);
  return bundle;
}

/** The discount that applies to this order (method optional), or null. An explicit code that does not fit is refused. */
function fittingDiscount(active: ActiveDiscount | null, explicit: boolean, order: { country: string; currency: string; listAmount: number; method?: PaymentMethodId }) {
  if (!active) return null;
  if (discountFits(active.view, order)) return active;
  if (explicit) throw new RuleError('code_not_applicable', 'payments.code_not_applicable', 400);
  return null;
}

/** Where the member is, as far as we can tell: EU VAT on electronically supplied services is due there. */
export interface CountryEvidence {
  /** The visitor's country: GeoIP, or the trusted CDN header. */
  ip: string | null;
  profile: string | null;
  /** Direct debit: the IBAN's country. */
  iban?: string;
}

/**
 * The payment country and its evidence: by default the visitor's country, else the profile's. The
 * member may pick another of the site's countries only when a piece of evidence agrees with it (the
 * visitor's country, the profile's, or the IBAN's for direct debit); else 403 country_evidence.
 * Logged out (/pricing) any of the site's countries may be shown.
 */
export async function paymentCountryFor(
  app: AppContext, caller: Caller & { country?: string | null }, user: User | null, requested?: string, iban?: string,
): Promise<{ country: string; evidence: CountryEvidence | null }> {
  const site = caller.site;
  if (requested) requireCountry(site, requested);
  if (!user) return { country: requested ?? defaultPaymentCountry(site, caller.country ?? null, null), evidence: null };
  const evidence: CountryEvidence = { ip: caller.country ?? null, profile: await repo.profileCountryOf(app.db.db, user.id), ...(iban ? { iban } : {}) };
  if (!requested) return { country: defaultPaymentCountry(site, evidence.ip, evidence.profile), evidence };
  if (!evidencedCountries(site, evidence).includes(requested)) throw new RuleError('country_evidence', 'payments.country_evidence', 403);
  return { country: requested, evidence };
}

/** The site's payment countries some evidence backs (the default country always counts). */
function evidencedCountries(site: Site, evidence: CountryEvidence): string[] {
  const backed = [defaultPaymentCountry(site, evidence.ip, evidence.profile), evidence.ip, evidence.profile, evidence.iban ?? null];
  return Object.keys(site.payments.countries).filter((c) => backed.includes(c));
}

/** The bundles on offer in a payment country, each priced with the active discount where it fits. */
async function offersFor(app: AppContext, site: Site, user: User | null, country: string, code?: string) {
  const pc = requireCountry(site, country);
  const { discount, timeBonus } = await activeDiscountFor(app, site, user, code);
  const offers: BundleOffer[] = listBundles(site).map((bundle) => {
    const fits = fittingDiscount(discount, false, { country, currency: pc.currency, listAmount: bundle.prices[pc.currency] ?? 0 });
    return { bundle, quote: quoteBundle(site, bundle, country, fits ? fits.view : null) as Quote };
  });
  return { offers, discount, timeBonus };
}

/**
 * What one text message costs the member in money at best: the cheapest bundle per message in their payment
 * country, the running discount (time bonus or welcome code) applied, as /credits prices it. Null without bundles.
 */
export async function lowestMessagePrice(
  app: AppContext, site: Site, user: User, ipCountry: string | null, profileCountry: string | null,
): Promise<{ costs: number; currency: string } | null> {
  const country = defaultPaymentCountry(site, ipCountry, profileCountry);
  if (!site.payments.countries[country]) return null;
  const { offers } = await offersFor(app, site, user, country);
  const lowest = Math.min(...offers.map((o) => o.quote.price_per_message));
  return Number.isFinite(lowest) ? { costs: lowest / 100, currency: offers[0].quote.currency } : null;
}

/** GET /api/credits.php — bundles for the payment country with the active discount, methods, balance. */
export async function creditsOverview(
  app: AppContext, caller: Caller & { country: string | null }, user: User | null, query: { country?: string; discount?: string },
): Promise<CreditsResponse> {
  const site = caller.site;
  const { country, evidence } = await paymentCountryFor(app, caller, user, query.country);
  const pc = requireCountry(site, country);
  const countries = evidence ? evidencedCountries(site, evidence) : Object.keys(site.payments.countries);
  const { offers, discount, timeBonus } = await offersFor(app, site, user, country, query.discount);
  let repeat: CreditsResponse['repeat'] = null;
  if (user?.paid_user) {
    const last = await repo.lastRepeatablePayment(app.db.db, site.id, user.id);
    const bundle = last ? findBundle(site, last.bundle_id) : null;
    const quote = last && bundle ? quoteBundle(site, bundle, last.country, null) : null;
    if (last && quote) repeat = { bundle_id: last.bundle_id, method: last.method as PaymentMethodId, quote };
  }
  return {
    country,
    countries: countries.map((code) => ({ code, currency: site.payments.countries[code].currency as Currency })),
    currency: pc.currency as Currency,
    offers,
    methods: methodsForCountry(site, country),
    discount: discount?.view ?? null,
    time_bonus: timeBonus,
    credits: user ? user.credits : null,
    paid_user: user ? Boolean(user.paid_user) : null,
    message_credits: site.message_credits,
    repeat,
    refund_days: site.refund_days,
  };
}

/**
 * Everything to price one order, the one rule for every method (checkout, direct debit, their
 * retries): bundle, the evidenced payment country, the discount for this method, the quote.
 */
export async function priceOrder(
  app: AppContext, caller: Caller & { country?: string | null }, user: User,
  input: { bundle: number; country?: string; method?: PaymentMethodId; discount?: string; iban?: string },
) {
  const site = caller.site;
  const bundle = requireBundle(site, input.bundle);
  const { country, evidence } = await paymentCountryFor(app, caller, user, input.country, input.iban);
  const pc = requireCountry(site, country);
  if (bundle.trial && (await repo.hasPaidTrial(app.db.db, site.id, user.id))) throw new RuleError('trial_used', 'payments.trial_used', 409);
  const { discount } = await activeDiscountFor(app, site, user, input.discount);
  const order = { country, currency: pc.currency, listAmount: bundle.prices[pc.currency] ?? 0, method: input.method };
  const fits = bundle.trial ? null : fittingDiscount(discount, Boolean(input.discount), order);
  if (input.discount && bundle.trial) throw new RuleError('code_not_applicable', 'payments.code_not_applicable', 400);
  const quote = quoteBundle(site, bundle, country, fits ? fits.view : null);
  if (!quote) throw new RuleError('country_unavailable', 'payments.country_unavailable', 400);
  return { bundle, pc, country, evidence, discount: fits, quote, offered: discount, offerKey: offerKeyOf(bundle, fits) };
}

/** The one-time offer an order uses, if any (see the payments_offer_key_idx migration). */
function offerKeyOf(bundle: Bundle, discount: ActiveDiscount | null): string | null {
  if (bundle.trial) return 'trial';
  return discount?.row.validity === 'once-per-user' ? `discount:${discount.row.id}` : null;
}

/** What a payment row records of its order besides the price: consent time and the country evidence. */
export function orderMetadata(now: number, evidence: CountryEvidence | null): string {
  return JSON.stringify({ consent_at: now, country_evidence: evidence });
}

/**
 * Records a new order; the database refuses what may happen once. A one-time offer another order of
 * the member holds: 'Code already used' (or the trial's message) once that order is paid; while it is
 * unfinished the provider is asked first (an abandoned checkout may have ended there), then
 * 'offer_reserved'. A second open recurring charge: 'order_in_progress'. The same idempotency key
 * again: that order (`replay`).
 */
async function insertOrder(app: AppContext, values: Insertable<PaymentTable>): Promise<{ row: PaymentRow; replay: boolean }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return { row: await repo.insertPayment(app.db.db, values), replay: false };
    } catch (err) {
      // The same key again wins over any other conflict its row causes (an open charge, an offer it holds).
      if (values.order_key && isUniqueViolation(err)) {
        const existing = await repo.findOrderByKey(app.db.db, values.user_id, values.order_key);
        if (existing) return { row: existing, replay: true };
      }
      if (values.offer_key && isUniqueViolation(err, 'offer_key')) {
        const holder = await repo.findOfferHolder(app.db.db, values.user_id, values.offer_key);
        if (holder && holder.paid_at === null && attempt === 0 && FINAL_FAILURES.has((await refreshFromProvider(app, holder)).status)) continue;
        const trial = values.offer_key === 'trial';
        if (holder?.paid_at != null || !holder) throw new RuleError(trial ? 'trial_used' : 'code_used', trial ? 'payments.trial_used' : 'payments.code_used', 409);
        throw new RuleError('offer_reserved', 'payments.offer_reserved', 409);
      }
      if (isUniqueViolation(err, 'payments_open_recurring_idx', 'UNIQUE constraint failed: payments.user_id')) {
        throw new RuleError('order_in_progress', 'payments.order_in_progress', 409);
      }
      throw err;
    }
  }
}

/** GET /api/payment-methods.php — the country's methods for one bundle, iDEAL banks, quotes per method. */
export async function methodsForBundle(app: AppContext, caller: Caller & { country: string | null }, user: User, query: { bundle: number; country?: string; discount?: string }): Promise<MethodsResponse> {
  const priced = await priceOrder(app, caller, user, query);
  const country = priced.country;
  const methods = methodsForCountry(caller.site, country);
  const quotes: MethodsResponse['quotes'] = {};
  for (const m of methods) {
    const fits = priced.offered && !priced.bundle.trial && discountFits(priced.offered.view, { country, currency: priced.pc.currency, listAmount: priced.quote.list_amount, method: m.id });
    const q = quoteBundle(caller.site, priced.bundle, country, fits ? priced.offered!.view : null) as Quote;
    if (q.amount !== priced.quote.amount) quotes[m.id] = q;
  }
  const withIssuers = await Promise.all(methods.map(async (m) => {
    if (!m.has_issuers || !m.enabled) return { ...m, issuers: [] };
    const provider = await app.payments.provider();
    const issuers = provider ? await provider.listIssuers(m.provider_method as string).catch(() => []) : [];
    return { ...m, issuers };
  }));
  return { country, offer: { bundle: priced.bundle, quote: priced.quote }, methods: withIssuers, discount: priced.discount?.view ?? null, quotes };
}

export async function ensureCustomer(app: AppContext, provider: PaymentProvider, user: User, site: Site): Promise<string> {
  const existing = await repo.findCustomer(app.db.db, user.id, provider.name);
  if (existing) return existing;
  const id = await provider.createCustomer({ name: `member ${user.id}`, email: user.email, metadata: { user_id: user.id, site_id: site.id } });
  return repo.saveCustomer(app.db.db, user.id, provider.name, id, app.clock.now());
}

function description(site: Site, locale: string, credits: number) {
  return getT(locale as never)('payments.description', { credits, site: site.name });
}

const MOLLIE_LOCALES: Record<string, string> = { nl: 'nl_NL', en: 'en_GB', de: 'de_DE', fr: 'fr_FR', it: 'it_IT', es: 'es_ES', pl: 'pl_PL', da: 'da_DK', fi: 'fi_FI', nb: 'nb_NO', sv: 'sv_SE' };

/** POST /api/payments.php — prices the order, records it, and opens the provider's checkout. */
export async function startPayment(app: AppContext, caller: Caller & { country: string | null }, user: User, input: CreatePaymentInput): Promise<CreatePaymentResponse> {
  const site = caller.site;
  const priced = await priceOrder(app, caller, user, input);
  const def = PAYMENT_METHODS[input.method];
  if (!priced.pc.methods.includes(input.method) || !methodUsable(input.method, priced.pc.currency) || input.method === 'directdebit') {
    throw new RuleError('method_unavailable', 'payments.method_unavailable', 400);
  }
  const provider = await requireProvider(app);
  if (input.issuer !== undefined) {
    if (!def.has_issuers) throw new RuleError('issuer_invalid', 'payments.issuer_invalid', 400);
    const issuers = await provider.listIssuers(def.provider_method as string).catch(() => {
      throw new RuleError('provider_error', 'payments.provider_error', 503);
    });
    if (!issuers.some((i) => i.id === input.issuer)) throw new RuleError('issuer_invalid', 'payments.issuer_invalid', 400);
  }
  const providerMethod = def.provider_method as string;
  const first = MANDATE_METHODS.has(providerMethod);
  const customerId = first ? await ensureCustomer(app, provider, user, site).catch(() => {
    throw new RuleError('provider_error', 'payments.provider_error', 503);
  }) : undefined;
  const now = app.clock.now();
  const { row } = await insertOrder(app, {
    site_id: site.id, user_id: user.id, provider: provider.name, provider_id: null, checkout_url: null, bundle_id: priced.bundle.id,
    trial: priced.bundle.trial ? 1 : 0, credits: priced.bundle.credits, country: priced.country, currency: priced.quote.currency,
    list_amount: priced.quote.list_amount, amount: priced.quote.amount, vat_rate: priced.quote.vat_rate, vat_amount: priced.quote.vat_amount,
    method: input.method, issuer: input.issuer ?? null, sequence_type: first ? 'first' : 'oneoff', customer_id: customerId ?? null,
    mandate_id: null, mandate_reference: null, status: 'open', discount_id: priced.discount?.row.id ?? null,
    discount_code: priced.discount?.row.code ?? null, offer_key: priced.offerKey, order_key: null, refunding_at: null,
    metadata: orderMetadata(now, priced.evidence), created_at: now, updated_at: now, paid_at: null,
  });
  const origin = callbackOrigin(caller);
  const request = {
    amount: toProviderAmount(row.amount, row.currency),
    description: description(site, caller.locale, row.credits),
    method: providerMethod,
    ...(input.issuer ? { issuer: input.issuer } : {}),
    redirectUrl: `${origin}${RETURN_PATH}?id=${row.id}`,
    ...webhookFor(provider, origin),
    locale: MOLLIE_LOCALES[caller.locale],
    metadata: { payment_id: row.id, site_id: site.id, user_id: user.id },
  };
  let created: ProviderPayment;
  try {
    created = await provider.createPayment({ ...request, sequenceType: first ? 'first' : 'oneoff', ...(customerId ? { customerId } : {}) }).catch(async (err) => {
      // A Mollie profile without recurring payments refuses "first" payments (422): pay once instead (no repeat order then).
      if (!first || (err as ProviderError).status !== 422) throw err;
      await repo.updatePayment(app.db.db, row.id, { sequence_type: 'oneoff', customer_id: null });
      return provider.createPayment({ ...request, sequenceType: 'oneoff' });
    });
  } catch (err) {
    app.logger.warn({ err, payment: row.id }, 'payment could not be created at the provider');
    await repo.updatePayment(app.db.db, row.id, { status: 'failed', updated_at: app.clock.now() });
    throw new RuleError('provider_error', 'payments.provider_error', 503);
  }
  await repo.updatePayment(app.db.db, row.id, { provider_id: created.id, checkout_url: created.checkoutUrl, updated_at: app.clock.now() });
  if (!created.checkoutUrl) throw new RuleError('provider_error', 'payments.provider_error', 503);
  return { payment_id: row.id, checkout_url: created.checkoutUrl };
}

const RANK: Record<string, number> = { open: 0, pending: 1, failed: 2, canceled: 2, expired: 2, paid: 3, refunded: 3, charged_back: 3 };
function fromProviderStatus(status: ProviderStatus): 'open' | 'pending' | 'paid' | 'failed' | 'canceled' | 'expired' {
  return status === 'authorized' ? 'pending' : status;
}

function metadataMatches(row: PaymentRow, p: ProviderPayment): boolean {
  const m = (p.metadata ?? {}) as { payment_id?: unknown; site_id?: unknown; user_id?: unknown };
  return m.payment_id === row.id && m.site_id === row.site_id && m.user_id === row.user_id
    && p.amount.currency === row.currency && fromProviderAmount(p.amount) === row.amount;
}

/**
 * Applies the provider's view of a payment to our row, once: a move to paid adds the credits (ledger
 * key = payment id) and makes the member premium in the same transaction; refunds and chargebacks take
 * back what the balance allows and record the rest as owed. Statuses never move backwards.
 * Returns the row after the change (or as it was when nothing applied).
 */
export async function applyProviderPayment(app: AppContext, rowId: number, p: ProviderPayment): Promise<PaymentRow | null> {
  const out = await app.db.db.transaction().execute((trx) => applyProviderPaymentIn(app, trx, rowId, p));
  if (!out) return null;
  if (out.events.length) await app.bus.publish(out.events);
  return out.row;
}

/** applyProviderPayment inside the caller's transaction (whose commit must be followed by publishing `events`). */
async function applyProviderPaymentIn(app: AppContext, trx: Transaction<Database>, rowId: number, p: ProviderPayment): Promise<{ row: PaymentRow; events: BusEvent[] } | null> {
  const { dialect } = app.db;
  {
    const row = await repo.lockPayment(trx, dialect, rowId);
    if (!row) return null;
    if ((row.provider_id !== null && row.provider_id !== p.id) || !metadataMatches(row, p)) {
      app.logger.warn({ payment: row.id, provider_id: p.id }, 'provider payment does not match our record: ignored');
      return { row, events: [] as BusEvent[] };
    }
    const now = app.clock.now();
    const target = fromProviderStatus(p.status);
    const patch: Partial<PaymentRow> = {};
    let paidUser = false;
    let balance: number | null = null;
    if (row.provider_id === null) patch.provider_id = p.id;
    if (target === 'paid' && row.paid_at === null) {
      // Paid also after expired/failed/canceled here: the money arrived, so the credits are owed.
      Object.assign(patch, { status: 'paid', paid_at: now, mandate_id: p.mandateId ?? row.mandate_id, customer_id: p.customerId ?? row.customer_id });
      // Paid after it had failed or expired: its offer was free meanwhile and another order may hold it now.
      // The money arrived at that price, so the credits are owed; this row gives up the reservation.
      if (row.offer_key !== null && FINAL_FAILURES.has(row.status) && (await repo.findOfferHolder(trx, row.user_id, row.offer_key))) patch.offer_key = null;
      await repo.lockBalance(trx, dialect, row.user_id);
      balance = await applyCredits(trx, { userId: row.user_id, delta: row.credits, reason: 'purchase', key: `payment:${row.id}`, now });
      const buyer = await trx.selectFrom('users').select(['paid_user', 'tracking']).where('id', '=', row.user_id).executeTakeFirstOrThrow();
      // The first paid bundle makes the member premium (SPEC §4) and counts as the lander funnel's first purchase.
      if (!buyer.paid_user) await recordAccountFunnelStep(trx, row.site_id, buyer, 'first_purchases');
      await trx.updateTable('users').set({ paid_user: 1 }).where('id', '=', row.user_id).execute();
      paidUser = true;
      if (row.discount_id !== null) await recordRedemption(trx, row.discount_id, row.user_id, row.id, now);
    } else if (row.paid_at === null && target !== 'paid' && RANK[target] > RANK[row.status]) {
      patch.status = target;
      if (target === 'failed' && row.method === 'directdebit') await repo.blockDirectDebit(trx, row.user_id, 'failed_collection', row.id, now);
    }
    const paid = row.paid_at !== null || patch.paid_at !== undefined;
    const refunded = Math.max(row.refunded_amount, fromProviderAmount(p.amountRefunded));
    const chargedBack = Math.max(row.charged_back_amount, fromProviderAmount(p.amountChargedBack));
    if (paid && (refunded > row.refunded_amount || chargedBack > row.charged_back_amount)) {
      const returned = Math.min(row.amount, refunded + chargedBack);
      const target = Math.min(row.credits, Math.ceil((row.credits * returned) / row.amount));
      const due = target - row.credits_taken_back - row.credits_owed;
      if (due > 0) {
        const available = await repo.lockBalance(trx, dialect, row.user_id);
        const take = Math.min(available, due);
        if (take > 0) balance = await applyCredits(trx, { userId: row.user_id, delta: -take, reason: 'refund', key: `refund:${row.id}:${target}`, now });
        patch.credits_taken_back = row.credits_taken_back + take;
        patch.credits_owed = row.credits_owed + (due - take);
      }
      patch.refunded_amount = refunded;
      patch.charged_back_amount = chargedBack;
      patch.status = chargedBack > 0 ? 'charged_back' : refunded >= row.amount ? 'refunded' : 'paid';
      if (chargedBack > row.charged_back_amount) await repo.blockDirectDebit(trx, row.user_id, 'chargeback', row.id, now);
    }
    if (Object.keys(patch).length === 0) return { row, events: [] as BusEvent[] };
    patch.updated_at = now;
    await repo.updatePayment(trx, row.id, patch);
    const user = await trx.selectFrom('users').select(['credits', 'paid_user']).where('id', '=', row.user_id).executeTakeFirstOrThrow();
    const updated = { ...row, ...patch } as PaymentRow;
    const event: CreditsEvent = { type: 'credits', credits: balance ?? user.credits, paid_user: Boolean(user.paid_user) || paidUser, payment_id: row.id, status: updated.status };
    const events = patch.status !== undefined || balance !== null ? await recordEvents(trx, [{ userId: row.user_id, event }], now) : [];
    return { row: updated, events };
  }
}

/** A refund claim older than this was left by a crashed process and may be taken again. */
const REFUND_CLAIM_MS = 120_000;

/** How a refund ended, for the caller's record (the staff audit) written in the same transaction. */
export type RefundOutcome = { refused: null; row: PaymentRow; cents: number } | { refused: string; row: PaymentRow; cents: number };

/**
 * Refunds (part of) a paid payment at the provider, once. The payment is claimed first, so parallel
 * refunds of it are refused (409 refund_in_progress) instead of refunding twice. The provider's answer
 * is applied (credits taken back as a webhook would) and `record` written in one transaction. A refund
 * the provider refuses is 409 refund_refused and recorded as refused; an unreachable provider is 502.
 * `cents` null: all that is left.
 */
export async function refundPayment(
  app: AppContext, where: { siteId: string; paymentId: number; userId?: number }, cents: number | null,
  record: (trx: Transaction<Database>, outcome: RefundOutcome) => Promise<void> = async () => undefined,
): Promise<PaymentRow> {
  const { db } = app.db;
  const now = app.clock.now();
  let claim = db.updateTable('payments').set({ refunding_at: now }).where('id', '=', where.paymentId).where('site_id', '=', where.siteId)
    .where((eb) => eb.or([eb('refunding_at', 'is', null), eb('refunding_at', '<', now - REFUND_CLAIM_MS)]));
  if (where.userId !== undefined) claim = claim.where('user_id', '=', where.userId);
  const claimed = Number((await claim.executeTakeFirst()).numUpdatedRows) === 1;
  const row = await repo.findPaymentById(db, where.paymentId);
  if (!row || row.site_id !== where.siteId || (where.userId !== undefined && row.user_id !== where.userId)) throw new RuleError('not_found', 'admin.error.payment_not_found', 404);
  if (!claimed) throw new RuleError('refund_in_progress', 'admin.error.refund_in_progress', 409);
  const release = (q: Transaction<Database> | typeof db) => q.updateTable('payments').set({ refunding_at: null }).where('id', '=', row.id).where('refunding_at', '=', now).execute();
  try {
    const left = row.amount - row.refunded_amount - row.charged_back_amount;
    if (row.paid_at === null || !row.provider_id || left <= 0) throw new RuleError('not_refundable', 'admin.error.not_refundable', 409);
    const amount = cents ?? left;
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > left) {
      throw new RuleError('amount', 'admin.error.refund_too_much', 400, { max: (left / 100).toFixed(2) }, { amount: 'admin.error.refund_too_much' });
    }
    const provider = await app.payments.provider();
    if (!provider || provider.name !== row.provider) throw new RuleError('provider', 'admin.error.provider_unavailable', 503);
    try {
      await provider.refund(row.provider_id, toProviderAmount(amount, row.currency), `Refund of payment ${row.id}`);
    } catch (err) {
      const status = (err as ProviderError).status ?? null;
      const refused = status !== null && status >= 400 && status < 500;
      app.logger.warn({ err, payment: row.id }, refused ? 'refund refused by the provider' : 'refund: provider unreachable');
      const reason = refused ? ((err as Error).message || `provider answered ${status}`) : 'provider unreachable';
      await db.transaction().execute(async (trx) => {
        await record(trx, { refused: reason, row, cents: amount });
        await release(trx);
      });
      throw refused ? new RuleError('refund_refused', 'admin.error.refund_refused', 409) : new RuleError('provider', 'admin.error.provider_unavailable', 502);
    }
    const fetched = await provider.getPayment(row.provider_id).catch(() => null);
    const out = await db.transaction().execute(async (trx) => {
      const applied = fetched ? await applyProviderPaymentIn(app, trx, row.id, fetched) : null;
      const after = applied?.row ?? row;
      await record(trx, { refused: null, row: after, cents: amount });
      await release(trx);
      return { row: after, events: applied?.events ?? [] };
    });
    if (out.events.length) await app.bus.publish(out.events);
    return out.row;
  } finally {
    // Whatever happened, the claim ends (a no-op when a transaction above already ended it).
    await release(db).catch(() => undefined);
  }
}

/** POST /api/webhooks/mollie.php — never trusts the body: re-fetches the payment by id from the provider. */
export async function handleWebhook(app: AppContext, site: Site, providerId: string): Promise<void> {
  const provider = await app.payments.provider();
  if (!provider) return;
  let row = await repo.findPaymentByProviderId(app.db.db, providerId);
  if (row && row.site_id !== site.id) return;
  let fetched: ProviderPayment;
  try {
    fetched = await provider.getPayment(providerId);
  } catch (err) {
    // Unknown or forged id: nothing to do. Provider down: answer 5xx so Mollie retries.
    if ((err as { status?: number | null }).status === 404 || (err as { status?: number | null }).status === 410) return;
    throw err;
  }
  if (!row) {
    // The webhook can beat the request that stores the provider id; the provider's metadata names our row.
    const id = (fetched.metadata as { payment_id?: unknown } | null)?.payment_id;
    const candidate = typeof id === 'number' ? await repo.findPaymentById(app.db.db, id) : undefined;
    if (!candidate || candidate.provider_id !== null || candidate.site_id !== site.id) return;
    row = candidate;
  }
  await applyProviderPayment(app, row.id, fetched);
}

/** Re-reads an unfinished payment from the provider (the return page asks; covers a missed webhook). */
async function refreshFromProvider(app: AppContext, row: PaymentRow): Promise<PaymentRow> {
  if (row.paid_at !== null || FINAL_FAILURES.has(row.status) || !row.provider_id) return row;
  const provider = await app.payments.provider();
  if (!provider || provider.name !== row.provider) return row;
  const fetched = await provider.getPayment(row.provider_id).catch(() => null);
  if (!fetched) return row;
  return (await applyProviderPayment(app, row.id, fetched)) ?? row;
}

/** GET /api/payments.php?id= — the return page's poll (own payments on this site only). */
export async function paymentStatus(app: AppContext, site: Site, user: User, id: number): Promise<PaymentStatusResponse> {
  const found = await repo.findMemberPayment(app.db.db, site.id, user.id, id);
  if (!found) throw new RuleError('payment_not_found', 'payments.payment_not_found', 404);
  const row = await refreshFromProvider(app, found);
  const fresh = await app.db.db.selectFrom('users').select(['credits', 'paid_user']).where('id', '=', user.id).executeTakeFirstOrThrow();
  return { payment: presentPayment(row), view: paymentView(row.status), credits: fresh.credits, paid_user: Boolean(fresh.paid_user) };
}

export async function listTransactions(app: AppContext, site: Site, user: User): Promise<TransactionsResponse> {
  return { transactions: (await repo.listMemberPayments(app.db.db, site.id, user.id)).map(presentPayment) };
}

/** GET /api/transactions.php?id= — one payment as a printable receipt with the seller's details. */
export async function transactionReceipt(app: AppContext, site: Site, user: User, id: number): Promise<TransactionResponse> {
  const row = await repo.findMemberPayment(app.db.db, site.id, user.id, id);
  if (!row) throw new RuleError('payment_not_found', 'payments.payment_not_found', 404);
  // A receipt only for money received: an open, pending, failed, cancelled or expired payment shows its state.
  if (row.paid_at === null) return { receipt: null, payment: presentPayment(row) };
  const c = site.company;
  const receipt: Receipt = {
    company: {
      name: c.name, address: c.address, city: c.city, country: c.country, kvk: c.kvk, vat_number: c.vat_numbers[0] ?? null,
      support_email: site.support_email, support_phone: c.support_phone,
    },
    site_name: site.name,
    number: `${site.id.slice(0, 3).toUpperCase()}-${new Date(row.created_at).getUTCFullYear()}-${String(row.id).padStart(6, '0')}`,
    payment: presentPayment(row),
    country_evidence: countryEvidenceOf(row),
  };
  return { receipt, payment: receipt.payment };
}

/** The country evidence stored with the order (null for payments made before it was kept). */
function countryEvidenceOf(row: PaymentRow): Receipt['country_evidence'] {
  const stored = (JSON.parse(row.metadata) as { country_evidence?: CountryEvidence | null }).country_evidence;
  return stored ? { ip: stored.ip, profile: stored.profile, iban: stored.iban ?? null } : null;
}

/**
 * POST /api/repeat-order.php — premium members buy their last bundle again with the stored card or
 * mandate, in one call. A declined card answers 402 card_failed ('Credit card payment failed').
 */
export async function repeatOrder(app: AppContext, caller: Caller & { country?: string | null }, user: User, input: { key?: string } = {}): Promise<RepeatOrderResponse> {
  const site = caller.site;
  if (!user.paid_user) throw new RuleError('premium_only', 'premium.only_feature', 403);
  // The same key again (a double click, a retry after a network error) is the same order.
  const replayed = input.key ? await repo.findOrderByKey(app.db.db, user.id, input.key) : undefined;
  if (replayed) return orderAnswer(app, user, replayed, { code: 'card_failed', key: 'payments.card_failed' });
  const last = await repo.lastRepeatablePayment(app.db.db, site.id, user.id);
  const bundle = last ? findBundle(site, last.bundle_id) : null;
  const quote = last && bundle ? quoteBundle(site, bundle, last.country, null) : null;
  if (!last || !bundle || !quote || bundle.trial) throw new RuleError('no_repeat', 'payments.no_repeat', 404);
  const provider = await requireProvider(app);
  if (provider.name !== last.provider) throw new RuleError('no_repeat', 'payments.no_repeat', 404);
  const { evidence } = await paymentCountryFor(app, caller, user, last.country);
  return chargeMandate(app, caller, user, provider, {
    bundle, quote, method: last.method as PaymentMethodId, customerId: last.customer_id as string, mandateId: last.mandate_id as string,
    mandateReference: last.mandate_reference, evidence, orderKey: input.key ?? null, declined: { code: 'card_failed', key: 'payments.card_failed' },
  });
}

/** A recurring charge's answer: the payment as it stands, or 402 when it was declined. */
async function orderAnswer(app: AppContext, user: User, row: PaymentRow, declined: { code: string; key: string }): Promise<RepeatOrderResponse> {
  if (FINAL_FAILURES.has(row.status)) throw new RuleError(declined.code, declined.key, 402, { bundle: row.bundle_id, country: row.country });
  const fresh = await app.db.db.selectFrom('users').select('credits').where('id', '=', user.id).executeTakeFirstOrThrow();
  return { payment: presentPayment(row), view: paymentView(row.status), credits: fresh.credits };
}

/** Creates a recurring payment on a mandate and applies its first answer at once (shared with direct debit). */
export async function chargeMandate(
  app: AppContext, caller: Caller, user: User, provider: PaymentProvider,
  order: {
    bundle: Bundle; quote: Quote; method: PaymentMethodId; customerId: string; mandateId: string; mandateReference: string | null;
    discountId?: number | null; discountCode?: string | null; offerKey?: string | null; orderKey?: string | null; evidence: CountryEvidence | null;
    declined: { code: string; key: string };
  },
): Promise<RepeatOrderResponse> {
  const site = caller.site;
  const now = app.clock.now();
  const { row, replay } = await insertOrder(app, {
    site_id: site.id, user_id: user.id, provider: provider.name, provider_id: null, checkout_url: null, bundle_id: order.bundle.id,
    trial: 0, credits: order.bundle.credits, country: order.quote.country, currency: order.quote.currency, list_amount: order.quote.list_amount,
    amount: order.quote.amount, vat_rate: order.quote.vat_rate, vat_amount: order.quote.vat_amount, method: order.method, issuer: null,
    sequence_type: 'recurring', customer_id: order.customerId, mandate_id: order.mandateId, mandate_reference: order.mandateReference,
    status: 'open', discount_id: order.discountId ?? null, discount_code: order.discountCode ?? null, offer_key: order.offerKey ?? null,
    order_key: order.orderKey ?? null, refunding_at: null, metadata: orderMetadata(now, order.evidence), created_at: now, updated_at: now, paid_at: null,
  });
  if (replay) return orderAnswer(app, user, row, order.declined);
  let created: ProviderPayment;
  try {
    created = await provider.createPayment({
      amount: toProviderAmount(row.amount, row.currency),
      description: description(site, caller.locale, row.credits),
      method: PAYMENT_METHODS[order.method].provider_method as string,
      ...webhookFor(provider, callbackOrigin(caller)),
      metadata: { payment_id: row.id, site_id: site.id, user_id: user.id },
      sequenceType: 'recurring',
      customerId: order.customerId,
      mandateId: order.mandateId,
    });
  } catch (err) {
    app.logger.warn({ err, payment: row.id }, 'recurring payment refused by the provider');
    await repo.updatePayment(app.db.db, row.id, { status: 'failed', updated_at: app.clock.now() });
    throw new RuleError(order.declined.code, order.declined.key, 402, { bundle: order.bundle.id, country: order.quote.country });
  }
  return orderAnswer(app, user, (await applyProviderPayment(app, row.id, created)) ?? row, order.declined);
}

/** Open and pending payments older than this are asked of the provider by the settlement job. */
export const SETTLE_AFTER_MS = 5 * 60_000;
/** At most this many payments per run (the next run takes the rest). */
const SETTLE_BATCH = 200;

/**
 * The settlement job (every 5 minutes, once across processes): asks the provider about open and
 * pending payments older than SETTLE_AFTER_MS and applies its answer through the webhook's own
 * exactly-once path. A payment paid while no webhook reached us (a crash, a lost call) is credited
 * without the member's help; one the provider let expire frees its reserved offer. The local
 * provider expires its own open payments when asked (as Mollie does by itself).
 */
export async function settleOpenPayments(app: AppContext): Promise<{ checked: number; changed: number }> {
  const provider = await app.payments.provider();
  if (!provider) return { checked: 0, changed: 0 };
  const rows = await repo.listUnsettled(app.db.db, app.clock.now() - SETTLE_AFTER_MS, SETTLE_BATCH);
  let changed = 0;
  for (const row of rows) {
    if (row.provider !== provider.name) continue;
    const fetched = row.provider_id ? await provider.getPayment(row.provider_id).catch(() => null) : null;
    if (!fetched) {
      // Never reached the provider (the process died between our insert and its answer): nothing can be paid.
      if (!row.provider_id && row.created_at < app.clock.now() - 4 * SETTLE_AFTER_MS) {
        await app.db.db.updateTable('payments').set({ status: 'expired', updated_at: app.clock.now() })
          .where('id', '=', row.id).where('provider_id', 'is', null).where('status', '=', 'open').execute();
        changed++;
      }
      continue;
    }
    const applied = await applyProviderPayment(app, row.id, fetched);
    if (applied && applied.status !== row.status) changed++;
  }
  return { checked: rows.length, changed };
}
