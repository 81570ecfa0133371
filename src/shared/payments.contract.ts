import * as v from 'valibot';
import { IdTextSchema } from './ids';

/**
 * Payments contract (issue 10; SPEC §2 credits/transactions/directdebit/premium, §3 Payment,
 * Discount code, Time bonus, §4 payment states, §5 direct debit, §8 messages, §9 constants).
 * Shared by the API routes and the client stores. Money is always integer cents (minor units);
 * every price shown to a member includes VAT.
 */

// ─── Payment methods (SPEC §9: the 24 methods) ──────────────────────────────────────────────

/** Our method ids, one per SPEC §9 method, in the order of the spec. */
export const PAYMENT_METHOD_IDS = [
  'directdebit', 'przelewy24', 'blik', 'banktransfer', 'giropay', 'mastercard', 'visa', 'creditcard',
  'dankort', 'mobilepay', 'swish', 'twint', 'satispay', 'vipps', 'cartebancaire', 'nexi', 'ideal',
  'bancontact', 'applepay', 'paysafecard', 'maestro', 'paypal', 'sofort', 'eps',
] as const;
export type PaymentMethodId = (typeof PAYMENT_METHOD_IDS)[number];

export const CURRENCIES = ['EUR', 'GBP', 'PLN', 'SEK', 'DKK', 'NOK', 'CHF', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

export interface PaymentMethodDefinition {
  id: PaymentMethodId;
  /** The Mollie method that carries it (card brands → creditcard); null when no provider has it any more. */
  provider_method: string | null;
  /** False for methods whose scheme was discontinued (Giropay, SOFORT: 2024). */
  enabled: boolean;
  /** The member picks a bank (issuer) before checkout. */
  has_issuers: boolean;
  currencies: readonly Currency[];
  /** Catalog key of the method's display name. */
  label_key: string;
  /** Logo under /payment-logos/<id>.svg (served from public/). */
  logo: string;
}

const ALL: readonly Currency[] = CURRENCIES;
const EUR: readonly Currency[] = ['EUR'];
const def = (
  id: PaymentMethodId, provider: string | null, currencies: readonly Currency[], extra: Partial<PaymentMethodDefinition> = {},
): PaymentMethodDefinition => ({
  id, provider_method: provider, enabled: provider !== null, has_issuers: false, currencies,
  label_key: `payments.method.${id}`, logo: `/payment-logos/${id}.svg`, ...extra,
});

/** Every method of SPEC §9 and how it reaches the provider. */
export const PAYMENT_METHODS: Record<PaymentMethodId, PaymentMethodDefinition> = {
  directdebit: def('directdebit', 'directdebit', EUR),
  przelewy24: def('przelewy24', 'przelewy24', ['PLN', 'EUR']),
  blik: def('blik', 'blik', ['PLN']),
  banktransfer: def('banktransfer', 'banktransfer', EUR),
  giropay: def('giropay', null, EUR),
  mastercard: def('mastercard', 'creditcard', ALL),
  visa: def('visa', 'creditcard', ALL),
  creditcard: def('creditcard', 'creditcard', ALL),
  dankort: def('dankort', 'creditcard', ['DKK', 'EUR']),
  mobilepay: def('mobilepay', 'mobilepay', ['DKK', 'EUR', 'NOK', 'SEK']),
  swish: def('swish', 'swish', ['SEK']),
  twint: def('twint', 'twint', ['CHF']),
  satispay: def('satispay', 'satispay', EUR),
  vipps: def('vipps', 'vipps', ['NOK']),
  cartebancaire: def('cartebancaire', 'creditcard', EUR),
  nexi: def('nexi', 'creditcard', EUR),
  ideal: def('ideal', 'ideal', EUR, { has_issuers: true }),
  bancontact: def('bancontact', 'bancontact', EUR),
  applepay: def('applepay', 'applepay', ALL),
  paysafecard: def('paysafecard', 'paysafecard', ['EUR', 'GBP', 'CHF', 'PLN', 'USD']),
  maestro: def('maestro', 'creditcard', ALL),
  paypal: def('paypal', 'paypal', ALL),
  sofort: def('sofort', null, EUR),
  eps: def('eps', 'eps', EUR),
};

/** A method as offered to the member for one payment country and bundle. */
export interface PaymentMethodInfo {
  id: PaymentMethodId;
  /** False: show it greyed out (discontinued, or not for this currency/discount). */
  enabled: boolean;
  provider_method: string | null;
  has_issuers: boolean;
  label_key: string;
  logo: string;
}

/** A bank (or other issuer) for methods with has_issuers (iDEAL). */
export interface PaymentIssuer {
  id: string;
  name: string;
  /** Logo URL from the provider (may be remote). */
  image: string | null;
}

// ─── Bundles, quotes, discounts ─────────────────────────────────────────────────────────────

export const BUNDLE_BADGES = ['most_chosen', 'best_value'] as const;
export type BundleBadge = (typeof BUNDLE_BADGES)[number];

/** A credit bundle from the site YAML (SPEC §2 /credits). */
export interface Bundle {
  id: number;
  credits: number;
  /** Price including VAT, in cents, per currency. */
  prices: Partial<Record<Currency, number>>;
  badge: BundleBadge | null;
  /** The trial package (deletion alternative "trial package"): hidden from the normal list, once per member. */
  trial: boolean;
}

/** What the member would pay for one bundle in the payment country (all cents, VAT included). */
export interface Quote {
  bundle_id: number;
  credits: number;
  currency: Currency;
  country: string;
  /** List price of the bundle (incl. VAT). */
  list_amount: number;
  /** The discount applied: old (list) and new price, or null when none applies. */
  discount: { code: string; percentage: number; old_amount: number; new_amount: number } | null;
  /** What is charged (incl. VAT): list_amount, or discount.new_amount. */
  amount: number;
  /** VAT rate in percent (e.g. 21, 25.5). */
  vat_rate: number;
  /** VAT contained in `amount`. */
  vat_amount: number;
  /** amount − vat_amount. */
  net_amount: number;
  /** Price of one message (site message_credits) at this bundle, in cents (may be fractional → rounded). */
  price_per_message: number;
}

export interface BundleOffer {
  bundle: Bundle;
  quote: Quote;
}

export const DISCOUNT_VALIDITIES = ['once-per-user', 'unlimited'] as const;
export type DiscountValidity = (typeof DISCOUNT_VALIDITIES)[number];

/** Discount code (SPEC §3 fields). */
export interface DiscountCode {
  code: string;
  /** Only for this payment country, or null for all. */
  country: string | null;
  /** Only for this member, or null for all. */
  user_id: number | null;
  /** ISO timestamp, or null when it never expires. */
  expires: string | null;
  /** e.g. 25.0 */
  value_percentage: number;
  /** Only in this currency, or null for all. */
  currency: Currency | null;
  /** Minimum order value in cents of the order's currency (0 = none). */
  minimum_order_value: number;
  status: 'active' | 'inactive';
  validity: DiscountValidity;
  expired: boolean;
  /** Allowed method ids; empty = all methods. */
  paymentmethods: PaymentMethodId[];
  /** value_percentage rounded for display (25 → "25%"). */
  percentage: number;
}

/** The welcome code (used when no time bonus runs) is offered this many days after signup, until the first purchase. */
export const WELCOME_DISCOUNT_DAYS = 7;

/** Time bonus (SPEC §3, §4, §9). The countdown is computed from `deadline`, never restarted. */
export interface TimeBonus {
  isVisible: boolean;
  /** Epoch ms: signup_date + 14,400 s, from the server clock. */
  deadline: number;
  /** Server clock when answered (epoch ms): the client offsets its countdown by (server_now − Date.now()). */
  server_now: number;
  discount: DiscountCode;
}

// ─── Payments ───────────────────────────────────────────────────────────────────────────────

export const PAYMENT_STATUSES = ['open', 'pending', 'paid', 'failed', 'canceled', 'expired', 'refunded', 'charged_back'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Return-page state of SPEC §4 for a payment status. */
export type PaymentView = 'loading' | 'pending' | 'completed' | 'failed';
export function paymentView(status: PaymentStatus): PaymentView {
  if (status === 'open') return 'loading';
  if (status === 'pending') return 'pending';
  if (status === 'paid' || status === 'refunded' || status === 'charged_back') return 'completed';
  return 'failed';
}
/** The return page polls GET /api/payments.php?id= at this interval while loading/pending. */
export const PAYMENT_POLL_MS = 2_000;

/** A member's payment (SPEC §3 Payment: payment_id, credits, payment method; plus what a receipt needs). */
export interface Payment {
  /** Our id (used in /transactions/{id} and the return page). */
  payment_id: number;
  status: PaymentStatus;
  bundle_id: number;
  credits: number;
  method: PaymentMethodId;
  issuer: string | null;
  currency: Currency;
  country: string;
  /** Charged, incl. VAT (cents). */
  amount: number;
  vat_rate: number;
  vat_amount: number;
  net_amount: number;
  /** Before discount (cents). */
  list_amount: number;
  discount_code: string | null;
  refunded_amount: number;
  charged_back_amount: number;
  /** ISO timestamps. */
  created: string;
  paid: string | null;
  /** Direct debit / recurring: the SEPA mandate reference. */
  mandate_reference: string | null;
}

/** Seller data printed on a receipt (SPEC §3 Company info). */
export interface Receipt {
  company: { name: string; address: string; city: string; country: string; kvk: string; vat_number: string | null; support_email: string; support_phone: string };
  site_name: string;
  /** Receipt number, e.g. "KIN-2026-000123". */
  number: string;
  payment: Payment;
  /**
   * Why this country's VAT applies: the visitor's country (GeoIP/CDN), the profile's and, for direct
   * debit, the IBAN's, as recorded with the order (null for older payments).
   */
  country_evidence: { ip: string | null; profile: string | null; iban: string | null } | null;
}

// ─── Endpoints ──────────────────────────────────────────────────────────────────────────────

export const PAYMENTS_PATHS = {
  credits: '/api/credits.php',
  methods: '/api/payment-methods.php',
  payments: '/api/payments.php',
  transactions: '/api/transactions.php',
  repeatOrder: '/api/repeat-order.php',
  directDebit: '/api/directdebit.php',
  discount: '/api/discount.php',
  timeBonus: '/api/time-bonus.php',
  mollieWebhook: '/api/webhooks/mollie.php',
  /** The local provider: Mollie v2 REST subset + hosted checkout (default without MOLLIE_API_KEY). */
  localMollie: '/api/local-mollie/v2/',
} as const;

/**
 * "Try another method" after a payment that did not go through: the same bundle, country and discount
 * code (an entered code is never dropped on the way; an automatic one applies again by itself).
 */
export function retryPath(payment: Pick<Payment, 'bundle_id' | 'country' | 'discount_code'>): string {
  const params = new URLSearchParams({ country: payment.country });
  if (payment.discount_code) params.set('discount', payment.discount_code);
  return `/credits/${payment.bundle_id}?${params}`;
}

/** Page the provider returns the buyer to: `${RETURN_PATH}?id=<payment_id>`. */
export const RETURN_PATH = '/credits/return';

const CountryCode = v.pipe(v.string(), v.regex(/^[A-Z]{2}$/));
const BundleId = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000));
/** A discount code as typed (case-insensitive). */
export const DiscountCodeSchema = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64), v.regex(/^[A-Za-z0-9_-]+$/));

/**
 * GET /api/credits.php?country=XX&discount=CODE — everything /credits needs (logged out too, for /pricing:
 * then credits/paid_user are null and no member discount applies).
 * `country` optional: default GeoIP → profile country → first site country; `discount` optional.
 */
export const CreditsQuerySchema = v.object({
  country: v.optional(CountryCode),
  discount: v.optional(DiscountCodeSchema),
});
export interface CreditsResponse {
  /** The payment country used, and the ones the member may switch to (with their currency). */
  country: string;
  countries: { code: string; currency: Currency }[];
  currency: Currency;
  /** Bundles priced in the country's currency, the active discount applied. */
  offers: BundleOffer[];
  /** Methods for the payment country, in local order. */
  methods: PaymentMethodInfo[];
  /** Active discount: the given code, else the time bonus if present, else the welcome code; or null. */
  discount: DiscountCode | null;
  time_bonus: TimeBonus | null;
  credits: number | null;
  paid_user: boolean | null;
  message_credits: number;
  /** Repeat order possible (premium with a stored card or mandate): the bundle it would buy. */
  repeat: { bundle_id: number; method: PaymentMethodId; quote: Quote } | null;
  refund_days: number;
}

/** GET /api/payment-methods.php?bundle=ID&country=XX&discount=CODE — methods (+ iDEAL banks) for one bundle. */
export const MethodsQuerySchema = v.object({
  bundle: v.pipe(v.string(), v.regex(/^\d{1,7}$/), v.transform(Number), BundleId),
  country: v.optional(CountryCode),
  discount: v.optional(DiscountCodeSchema),
});
export interface MethodsResponse {
  country: string;
  offer: BundleOffer;
  methods: (PaymentMethodInfo & { issuers: PaymentIssuer[] })[];
  discount: DiscountCode | null;
  /** Quote per method id where the discount does not apply to every method (else same as offer.quote). */
  quotes: Partial<Record<PaymentMethodId, Quote>>;
}

/**
 * POST /api/payments.php — start a checkout. `consent` is the EU withdrawal-waiver for digital content
 * (must be true). Answer: where to send the buyer (provider checkout), and our payment id.
 */
export const CreatePaymentSchema = v.object({
  bundle: BundleId,
  method: v.picklist(PAYMENT_METHOD_IDS),
  issuer: v.optional(v.pipe(v.string(), v.maxLength(64), v.regex(/^[A-Za-z0-9_.-]+$/))),
  country: CountryCode,
  discount: v.optional(DiscountCodeSchema),
  consent: v.literal(true),
});
export type CreatePaymentInput = v.InferOutput<typeof CreatePaymentSchema>;
export interface CreatePaymentResponse { payment_id: number; checkout_url: string }

/** GET /api/payments.php?id=ID — the return page's status poll (own payments only). */
export const PaymentIdQuerySchema = v.object({
  id: IdTextSchema,
});
export interface PaymentStatusResponse { payment: Payment; view: PaymentView; credits: number; paid_user: boolean }

/** GET /api/transactions.php — the member's payments, newest first. ?id=ID — one, as a receipt. */
export interface TransactionsResponse { transactions: Payment[] }
/** `receipt` only once the money was received (paid, refunded, charged back); else null and the payment's state. */
export interface TransactionResponse { receipt: Receipt | null; payment: Payment }

/**
 * POST /api/repeat-order.php — premium only: the last bundle again with the stored card/mandate.
 * Declined → 402 { error: 'card_failed', message: 'Credit card payment failed', retry: {bundle, country} }
 * so the UI offers "try again" and "pay with PayPal" (/credits/{bundle}/paypal).
 */
export const RepeatOrderSchema = v.object({
  consent: v.literal(true),
  /** Idempotency key made by the page for one intended order: a double click or a retry is the same order. */
  key: v.optional(v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9-]+$/))),
});
export interface RepeatOrderResponse { payment: Payment; view: PaymentView; credits: number }

// ─── Direct debit (SPEC §5) ─────────────────────────────────────────────────────────────────

/** SMS code: 6 digits, valid 10 minutes, 5 tries; resend after 60 s, 5 sends per hour. */
export const SMS_CODE_LENGTH = 6;
export const SMS_CODE_TTL_MS = 10 * 60_000;
export const SMS_CODE_MAX_TRIES = 5;
export const SMS_RESEND_AFTER_MS = 60_000;
export const SMS_MAX_PER_HOUR = 5;
/** Direct debit limits per member per 30 days (count; the amount cap comes from the site YAML). */
export const DD_WINDOW_DAYS = 30;

const Text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1, 'payments.dd.required'), v.maxLength(max, 'payments.dd.too_long'));

/** POST /api/directdebit.php?sms=1 — send the SMS code to this mobile number. */
export const DirectDebitSmsSchema = v.object({
  mobile: v.pipe(v.string(), v.trim(), v.minLength(1, 'payments.dd.required'), v.minLength(4, 'payments.dd.mobile_invalid'), v.maxLength(32, 'payments.dd.mobile_invalid')),
  country: CountryCode,
});
export interface DirectDebitSmsResponse { sent: true; expires_at: number; resend_after: number }

/**
 * POST /api/directdebit.php — the SEPA direct debit form (SPEC §5: account holder, IBAN, street, house
 * number, postal code, city, mobile number, SMS code, authorization checkbox) plus the order.
 * The IBAN is checked per country (ibantools) and the mobile number (libphonenumber-js) on the server.
 */
export const DirectDebitSchema = v.object({
  bundle: BundleId,
  country: CountryCode,
  discount: v.optional(DiscountCodeSchema),
  account_holder: Text(70),
  // An empty field is "required" like the others, not "invalid" (the first message of a field is the one shown).
  iban: v.pipe(v.string(), v.trim(), v.minLength(1, 'payments.dd.required'), v.minLength(15, 'payments.dd.iban_invalid'), v.maxLength(42, 'payments.dd.iban_invalid')),
  street: Text(70),
  house_number: Text(16),
  postal_code: Text(16),
  city: Text(70),
  mobile: v.pipe(v.string(), v.trim(), v.minLength(1, 'payments.dd.required'), v.minLength(4, 'payments.dd.mobile_invalid'), v.maxLength(32, 'payments.dd.mobile_invalid')),
  sms_code: v.pipe(v.string(), v.trim(), v.minLength(1, 'payments.dd.required'), v.regex(/^\d{6}$/, 'payments.sms_invalid')),
  authorization: v.literal(true, 'payments.dd.authorization_required'),
  consent: v.literal(true, 'payments.consent_required'),
});
export type DirectDebitInput = v.InferOutput<typeof DirectDebitSchema>;

/** Mandate text data (shown beside the authorization checkbox). */
export interface MandateInfo {
  creditor_name: string;
  creditor_id: string;
  /** Reference the mandate will get (stable per member). */
  mandate_reference: string;
  creditor_address: string;
}

/** GET /api/directdebit.php?bundle=ID&country=XX — form data: mandate text, limits, the quote. */
export interface DirectDebitInfoResponse {
  mandate: MandateInfo;
  blocked: boolean;
  limit_reached: boolean;
  /** Remaining direct-debit payments in the current 30-day window. */
  remaining: number;
  offer: BundleOffer | null;
}
export interface DirectDebitResponse { payment: Payment; view: PaymentView; mandate: MandateInfo }

// ─── Discount and time bonus ────────────────────────────────────────────────────────────────

/**
 * GET /api/discount.php?code=CODE → { discount } (404 code_not_found, 409 code_used).
 * GET /api/discount.php?welcome=true → { discount } the time bonus or welcome code, or null (never an error).
 */
export const DiscountQuerySchema = v.union([
  v.object({ code: DiscountCodeSchema }),
  v.object({ welcome: v.literal('true') }),
]);
export interface DiscountResponse { discount: DiscountCode | null }

/** GET /api/time-bonus.php → the time bonus or null. Call on login (and on boot when logged in). */
export interface TimeBonusResponse { time_bonus: TimeBonus | null }

// ─── Realtime and errors ────────────────────────────────────────────────────────────────────

/**
 * SSE event on /api/events.php after a payment/refund/chargeback commits (all the member's tabs).
 * Payments always send paid_user, payment_id and status; chat spending sends only credits.
 */
export interface CreditsEvent { type: 'credits'; credits: number; paid_user?: boolean; payment_id?: number; status?: PaymentStatus }

/**
 * Error answers are `{ error: code, message }` (message translated). Codes → catalog keys.
 * SPEC §8 texts: payment_failed, card_failed, code_not_found, code_used, dd_blocked, dd_limit, sms_invalid.
 */
export const PAYMENT_ERRORS = {
  payment_failed: 'payments.failed', // 'Payment failed or has been cancelled.'
  card_failed: 'payments.card_failed', // 'Credit card payment failed'
  code_not_found: 'payments.code_not_found', // 'Code not found'
  code_used: 'payments.code_used', // 'Code already used'
  dd_blocked: 'payments.dd_blocked', // 'Your account is blocked for direct debit payments.'
  dd_limit: 'payments.dd_limit', // 'Your limit for direct debit payments has been reached...'
  sms_invalid: 'payments.sms_invalid', // 'Code invalid'
  sms_expired: 'payments.sms_expired',
  sms_resend_limit: 'payments.sms_resend_limit',
  code_expired: 'payments.code_expired',
  code_not_applicable: 'payments.code_not_applicable', // country/currency/method/minimum order
  bundle_not_found: 'payments.bundle_not_found',
  method_unavailable: 'payments.method_unavailable',
  issuer_invalid: 'payments.issuer_invalid',
  country_unavailable: 'payments.country_unavailable',
  consent_required: 'payments.consent_required',
  payment_not_found: 'payments.payment_not_found',
  premium_only: 'premium.only_feature',
  no_repeat: 'payments.no_repeat',
  iban_invalid: 'payments.dd.iban_invalid',
  mobile_invalid: 'payments.dd.mobile_invalid',
  provider_error: 'payments.provider_error',
} as const;
export type PaymentErrorCode = keyof typeof PAYMENT_ERRORS;
