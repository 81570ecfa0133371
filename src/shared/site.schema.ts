import * as v from 'valibot';
import { LOCALES } from './locales';
import { PROFILE_NOTES } from './profile-options';
import { BUNDLE_BADGES, CURRENCIES, PAYMENT_METHOD_IDS } from './payments.contract';

const Localized = v.union([v.string(), v.record(v.picklist(LOCALES), v.string())]);
const CountryCode = v.pipe(v.string(), v.regex(/^[A-Z]{2}$/));
const Colour = v.pipe(v.string(), v.regex(/^#[0-9a-fA-F]{6}$/));
const YesNo = v.picklist(['yes', 'no']);

/** Company behind a site (SPEC §3 Company info). */
export const CompanySchema = v.object({
  name: v.string(),
  address: v.string(),
  kvk: v.string(),
  city: v.string(),
  /** ISO 3166-1 alpha-2 code (NL); pages show the country's name in their language. */
  country: v.pipe(v.string(), v.regex(/^[A-Z]{2}$/, 'company.country must be an ISO 3166-1 alpha-2 code such as NL')),
  tradenames: v.array(v.string()),
  vat_numbers: v.array(v.string()),
  support_phone: v.string(),
  delete_discount: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
  added: v.pipe(v.string(), v.isoTimestamp()),
});

const Cents = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000_000));

/** A credit bundle: id (used in /credits/{id}), credits, price incl. VAT in cents per currency. */
export const BundleSchema = v.object({
  id: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
  credits: v.pipe(v.number(), v.integer(), v.minValue(1)),
  prices: v.record(v.picklist(CURRENCIES), v.pipe(Cents, v.minValue(1))),
  badge: v.optional(v.nullable(v.picklist(BUNDLE_BADGES)), null),
  /** Trial package (deletion alternative): not listed on /credits, at most one purchase per member. */
  trial: v.optional(v.boolean(), false),
});

/** Payment country: its currency, VAT rate in percent, and methods in the order people there expect. */
export const PaymentCountrySchema = v.object({
  currency: v.picklist(CURRENCIES),
  vat: v.pipe(v.number(), v.minValue(0), v.maxValue(30)),
  methods: v.pipe(v.array(v.picklist(PAYMENT_METHOD_IDS)), v.minLength(1)),
});

/** Everything money of one site (issue 10): bundles, countries, SEPA creditor and direct-debit limits. */
export const PaymentsConfigSchema = v.pipe(
  v.object({
    bundles: v.pipe(v.array(BundleSchema), v.minLength(1)),
    countries: v.record(CountryCode, PaymentCountrySchema),
    /** SEPA creditor shown in the mandate text. */
    // address: street and city; country: ISO code (default the company's), named in the reader's language.
    creditor: v.object({ name: v.string(), id: v.pipe(v.string(), v.regex(/^[A-Z]{2}\d{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/)), address: v.string(), country: v.optional(CountryCode) }),
    direct_debit: v.object({
      /** Direct-debit payments a member may make per 30 days. */
      max_per_30_days: v.pipe(v.number(), v.integer(), v.minValue(0)),
      /** Total direct-debit amount (EUR cents) per member per 30 days. */
      max_amount_per_30_days: Cents,
    }),
    /** Welcome discount (SPEC §9: 25%) for new members when no time bonus is active; 0 = none. */
    welcome_discount_percentage: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100)), 25),
    /** Marketing claim on /premium (SPEC §9: 46% higher chance). */
    premium_chance_percent: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000)), 46),
    /** Whether premium members may chat at zero credits on this site. */
    premium_chat_at_zero: v.optional(v.boolean(), false),
  }),
  v.check((p) => new Set(p.bundles.map((b) => b.id)).size === p.bundles.length, 'bundle ids must be unique'),
  v.check(
    (p) => Object.values(p.countries).every((c) => p.bundles.every((b) => b.prices[c.currency] !== undefined)),
    'every bundle needs a price in every payment country currency',
  ),
);

/** One branded site as described in content/sites/<id>.yaml. */
export const SiteSchema = v.object({
  name: v.string(),
  domains: v.pipe(v.array(v.string()), v.minLength(1)),
  /**
   * The canonical public origin (`https://kindred.example`) that links in mails and push messages
   * use in production. SITE_ORIGINS overrides it; a demo deployment uses the local domain instead.
   */
  public_origin: v.optional(v.pipe(v.string(), v.url(), v.regex(/^https?:\/\/[^/]+$/, 'scheme://host[:port], no path'))),
  niche: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(7)),
  domain_language: v.string(),
  countries: v.pipe(v.array(CountryCode), v.minLength(1)),
  entry_warning_countries: v.optional(v.array(CountryCode)),
  theme: v.object({ primary: Colour, secondary: Colour, surface: v.optional(Colour) }),
  logo_text: v.optional(v.string()),
  index_title: Localized,
  description: Localized,
  company_id: v.number(),
  company: CompanySchema,
  mail_name: v.string(),
  support_email: v.pipe(v.string(), v.email()),
  cdn_prefix: v.optional(v.string(), ''),
  signups: v.picklist(['all', 'with_trafficsource']),
  logged_out_search: v.boolean(),
  logged_out_search_trafficsource: v.boolean(),
  enable_site_entry_popup: YesNo,
  member_resell: v.boolean(),
  message_credits: v.pipe(v.number(), v.integer(), v.minValue(0)),
  signup_credits: v.pipe(v.number(), v.integer(), v.minValue(0)),
  photo_credits: v.pipe(v.number(), v.integer(), v.minValue(0)),
  gift_credits: v.pipe(v.number(), v.integer(), v.minValue(0)),
  message_length: v.pipe(v.number(), v.integer(), v.minValue(1)),
  /** Conversations a free (non-paid) member may start (SPEC §6: up to 2). */
  free_conversations: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 2),
  /** Text messages a free member may send without credits. */
  free_messages: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  minimum_message_costs: v.record(CountryCode, v.object({ costs: v.number(), currency: v.string() })),
  refund_days: v.pipe(v.number(), v.integer(), v.minValue(0)),
  fictional_warning: Localized,
  fictional_singular: Localized,
  fictional_plural: Localized,
  fictional_icon: v.string(),
  visible_profile_fields: v.array(v.string()),
  /** Free-text notes shown on profiles and editable on /profile (SPEC §3 settings); see PROFILE_NOTES. */
  visible_profile_notes: v.optional(v.array(v.picklist(PROFILE_NOTES)), []),
  search_fields: v.array(v.string()),
  payments: PaymentsConfigSchema,
  /** SPEC §1: the US footer variant (age statement, privacy choices link), shown for locale en only. */
  us_footer: v.optional(v.boolean(), false),
  /** SPEC §1: live cam profile cards in the member search, marked as such, linking to this partner (https). */
  live_cams: v.optional(v.object({
    partner_url: v.pipe(v.string(), v.url(), v.startsWith('https://')),
    /** The card follows this many results (or ends a shorter page). */
    after: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(24)), 6),
  })),
});
export type SiteInput = v.InferOutput<typeof SiteSchema>;
export type Company = v.InferOutput<typeof CompanySchema>;
export type PaymentsConfig = v.InferOutput<typeof PaymentsConfigSchema>;
export type PaymentCountry = v.InferOutput<typeof PaymentCountrySchema>;
export type Site = SiteInput & { id: string };
export type LocalizedText = v.InferOutput<typeof Localized>;
