import type { Generated, Insertable, Selectable } from 'kysely';
import type { SignalKind } from '../../shared/safety.contract';

/** A member's or an operator-run profile. Booleans are 0/1 so SQLite and PostgreSQL agree. */
export interface ProfileTable {
  id: Generated<number>;
  site_id: string;
  user_id: number | null;
  name: string;
  gender: 'male' | 'female';
  sexuality: 'hetero' | 'gay' | 'lesbian' | 'bi';
  birth_date: string;
  country: string;
  region: string | null;
  city: string | null;
  hair_color: string | null;
  eye_color: string | null;
  body_type: string | null;
  relationship_status: string | null;
  tattoos: string | null;
  about: string | null;
  fictional: number;
  invisible: number;
  /** 1 when the main photo is approved; kept by the photo service, used to rank search results. */
  has_photo: Generated<number>;
  status: 'active' | 'disabled' | 'deleted';
  last_active_at: number;
  created_at: number;
}
export type Profile = Selectable<ProfileTable>;
export type NewProfile = Insertable<ProfileTable>;

export interface ProfileInterestTable {
  profile_id: number;
  interest: string;
}

/** Photos; 'active' is public, 'under inspection' waits for a moderator. */
export interface PhotoTable {
  id: Generated<number>;
  profile_id: number;
  filename: string;
  thumb_filename: string;
  status: 'active' | 'under inspection' | 'rejected';
  is_main: number;
  created_at: number;
}
export type Photo = Selectable<PhotoTable>;

export interface UserTable {
  id: Generated<number>;
  site_id: string;
  email: string;
  email_normalized: string;
  password_hash: string | null;
  status: 'not_confirmed' | 'confirmed';
  role: 'member' | 'staff';
  credits: number;
  paid_user: number;
  language: string;
  /** JSON: notification type → on/off, for e-mail and push. */
  email_prefs: string;
  push_prefs: string;
  /** JSON: network, ref, sub1, sub2, sub3 from the landing URL. */
  tracking: string | null;
  signup_message: string | null;
  target_profile_id: number | null;
  api_signup: number;
  created_at: number;
  confirmed_at: number | null;
  deleted_at: number | null;
  erased_at: number | null;
  /** Staff suspended the account until then (login refused; the access-ban page explains). */
  suspended_until: Generated<number | null>;
  /** Staff banned the account for good. */
  banned_at: Generated<number | null>;
  /** 1: explicit chat images arrive unblurred (settings; docs/safety-images.md). */
  show_explicit_images: Generated<number>;
}
export type User = Selectable<UserTable>;

export interface SessionTable {
  token_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  user_agent: string | null;
}

export type TokenKind = 'activation' | 'reset' | 'mail_change' | 'reactivate' | 'complete_signup';
export interface UserTokenTable {
  token_hash: string;
  user_id: number;
  kind: TokenKind;
  payload: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface MailTable {
  id: Generated<number>;
  site_id: string;
  to_address: string;
  subject: string;
  html: string;
  text: string;
  created_at: number;
}

export interface NotificationTable {
  id: Generated<number>;
  user_id: number;
  type: string;
  payload: string;
  created_at: number;
  read_at: number | null;
}

export interface CreditLedgerTable {
  id: Generated<number>;
  user_id: number;
  delta: number;
  reason: 'signup_bonus' | 'message' | 'gift' | 'photo' | 'purchase' | 'refund' | 'admin';
  idempotency_key: string;
  balance_after: number;
  created_at: number;
}

export interface BlockTable {
  blocker_profile_id: number;
  blocked_profile_id: number;
  created_at: number;
}

export interface ReportTable {
  id: Generated<number>;
  reporter_profile_id: number;
  profile_id: number;
  reason: string;
  details: string | null;
  status: 'open' | 'resolved';
  message_id: number | null;
  created_at: number;
}

export interface LikeTable {
  liker_profile_id: number;
  liked_profile_id: number;
  source: string;
  is_new: number;
  /** When the match/like modal showed this received like (auto-like shows each once). */
  shown_at: number | null;
  created_at: number;
}

/** A conversation between two profiles (lower id first, one per pair). */
export interface ConversationTable {
  id: Generated<number>;
  site_id: string;
  profile_low_id: number;
  profile_high_id: number;
  starter_profile_id: number;
  created_at: number;
}

/** One side of a conversation: its unread count, what it deleted, and its list position. */
export interface ChatParticipantTable {
  conversation_id: number;
  profile_id: number;
  partner_profile_id: number;
  unread_count: Generated<number>;
  cleared_message_id: Generated<number>;
  hidden: Generated<number>;
  last_message_id: Generated<number>;
  last_message_at: number;
}

export interface MessageTable {
  id: Generated<number>;
  conversation_id: number;
  sender_profile_id: number;
  kind: 'text' | 'image' | 'gift';
  body: string | null;
  gift: string | null;
  /** JSON {file, thumb, width, height} of a chat image. */
  image: string | null;
  credits: number;
  client_id: string;
  created_at: number;
  /** The staff member who wrote it as a fictional profile (operator inbox); null for members. */
  operator_user_id: Generated<number | null>;
}
export type Message = Selectable<MessageTable>;

/** What the safety classifiers noticed (issue 26): a text flag, spam, an explicit image. */
export interface SafetySignalTable {
  id: Generated<number>;
  site_id: string;
  kind: SignalKind;
  /** The account the signal is about (the sender). */
  user_id: number;
  profile_id: number;
  message_id: number | null;
  conversation_id: number | null;
  /** MinHash signature of the text (spam). */
  fingerprint: string | null;
  /** A classifier's score (explicit images). */
  score: number | null;
  status: 'open' | 'dismissed' | 'actioned';
  created_at: number;
}
export type SafetySignal = Selectable<SafetySignalTable>;

/** MinHash signatures of recent texts per sender and recipient (the spam rule). */
export interface MessageFingerprintTable {
  sender_profile_id: number;
  recipient_profile_id: number;
  fingerprint: string;
  created_at: number;
}

/** The per-member event log behind /api/events.php (ids are the SSE ids). */
export interface EventTable {
  id: Generated<number>;
  user_id: number;
  type: string;
  data: string;
  created_at: number;
}

export interface SwipeTable {
  swiper_profile_id: number;
  target_profile_id: number;
  /** UTC day number (epoch ms / 86,400,000). */
  day: number;
  decision: 'like' | 'pass';
  created_at: number;
}

/** A browser's web-push subscription for a member. */
export interface PushSubscriptionTable {
  id: Generated<number>;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
}

/** Keys the app makes once and shares between processes (the VAPID key pair). */
export interface AppKeyTable {
  name: string;
  value: string;
}

/** A payment of a credit bundle (issue 10). Amounts in cents, VAT included. */
export interface PaymentTable {
  id: Generated<number>;
  site_id: string;
  user_id: number;
  provider: 'mollie' | 'local';
  provider_id: string | null;
  checkout_url: string | null;
  bundle_id: number;
  trial: number;
  credits: number;
  country: string;
  currency: string;
  list_amount: number;
  amount: number;
  vat_rate: number;
  vat_amount: number;
  method: string;
  issuer: string | null;
  sequence_type: 'oneoff' | 'first' | 'recurring';
  customer_id: string | null;
  mandate_id: string | null;
  mandate_reference: string | null;
  status: 'open' | 'pending' | 'paid' | 'failed' | 'canceled' | 'expired' | 'refunded' | 'charged_back';
  discount_id: number | null;
  discount_code: string | null;
  metadata: string;
  refunded_amount: Generated<number>;
  charged_back_amount: Generated<number>;
  credits_taken_back: Generated<number>;
  /** Credits a refund or chargeback could not take back (the balance was already spent). */
  credits_owed: Generated<number>;
  /** The one-time offer this order holds (`discount:<id>`, `trial`): reserved while open, consumed when paid. */
  offer_key: string | null;
  /** The client's idempotency key (repeat orders). */
  order_key: string | null;
  /** Set while a refund is being asked of the provider. */
  refunding_at: number | null;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
}
export type PaymentRow = Selectable<PaymentTable>;

export interface DiscountCodeTable {
  id: Generated<number>;
  site_id: string;
  /** Upper-case. */
  code: string;
  kind: 'standard' | 'welcome' | 'time_bonus' | 'retention';
  country: string | null;
  user_id: number | null;
  expires_at: number | null;
  value_percentage: number;
  currency: string | null;
  minimum_order_value: number;
  status: 'active' | 'inactive';
  validity: 'once-per-user' | 'unlimited';
  /** JSON array of method ids; [] = all. */
  paymentmethods: string;
  created_at: number;
}
export type DiscountCodeRow = Selectable<DiscountCodeTable>;

export interface DiscountRedemptionTable {
  discount_id: number;
  user_id: number;
  payment_id: number;
  created_at: number;
}

export interface PaymentCustomerTable {
  user_id: number;
  provider: string;
  customer_id: string;
  created_at: number;
}

export interface DdMandateTable {
  id: Generated<number>;
  user_id: number;
  provider: string;
  mandate_id: string;
  mandate_reference: string;
  account_holder: string;
  iban_last4: string;
  iban_country: string;
  /** JSON {street, house_number, postal_code, city}. */
  address: string;
  mobile: string;
  created_at: number;
}

export interface SmsCodeTable {
  id: Generated<number>;
  user_id: number;
  /** E.164. */
  mobile: string;
  code_hash: string;
  tries: Generated<number>;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface DdBlockTable {
  user_id: number;
  reason: 'chargeback' | 'failed_collection' | 'staff';
  payment_id: number | null;
  created_at: number;
}

export interface LocalMollieObjectTable {
  id: string;
  kind: 'payment' | 'customer' | 'mandate' | 'refund' | 'chargeback';
  parent_id: string | null;
  data: string;
  created_at: number;
}

/** Lander funnel counters per site × lander × slug × network ('' when the visit had none). */
export interface LanderFunnelTable {
  site_id: string;
  lander: string;
  slug: string;
  network: string;
  views: Generated<number>;
  signups_started: Generated<number>;
  accounts_created: Generated<number>;
  activated: Generated<number>;
  first_purchases: Generated<number>;
  bounces: Generated<number>;
}
export type LanderFunnelStep = 'views' | 'signups_started' | 'accounts_created' | 'activated' | 'first_purchases' | 'bounces';

export type StaffRole = 'admin' | 'moderator' | 'operator' | 'finance';

/** A staff member of one site: role and TOTP second factor. */
export interface StaffAccountTable {
  user_id: number;
  site_id: string;
  role: StaffRole;
  totp_secret: string | null;
  /** Secret shown during enrolment, until the first code confirms it. */
  totp_pending_secret: string | null;
  totp_enabled_at: number | null;
  /** Last TOTP time step accepted: a code is never accepted twice. */
  totp_last_step: number | null;
  created_at: number;
}

/** A member session that passed the staff second factor. */
export interface StaffSessionTable {
  token_hash: string;
  user_id: number;
  verified_at: number;
}

export interface StaffRecoveryCodeTable {
  id: Generated<number>;
  user_id: number;
  code_hash: string;
  used_at: number | null;
}

/** Every staff action; append-only (database triggers refuse UPDATE and DELETE). */
export interface StaffAuditLogTable {
  id: Generated<number>;
  site_id: string;
  staff_user_id: number;
  staff_email: string;
  staff_role: string;
  action: string;
  target_type: string | null;
  target_id: number | null;
  reason: string | null;
  before: string | null;
  after: string | null;
  ip: string | null;
  created_at: number;
}

/** One row per member and UTC day with any signed-in activity (daily active members). */
export interface DailyActiveTable {
  site_id: string;
  day: number;
  user_id: number;
}

/** A queued job (src/server/jobs): pending → running (leased) → done, or back to pending to retry, or failed. */
export interface JobTable {
  id: Generated<number>;
  name: string;
  unique_key: string | null;
  payload: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  run_at: number;
  attempts: Generated<number>;
  max_attempts: number;
  locked_by: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}
export type Job = Selectable<JobTable>;

/** A member with an open tab (SSE stream) in one process; `seen_at` is refreshed while it stays open. */
export interface MemberPresenceTable {
  process_id: string;
  user_id: number;
  seen_at: number;
}

/** Batched notification mails per member and type: what waits to be mailed, and when the last went. */
export interface MailDigestTable {
  user_id: number;
  type: string;
  pending_since: number | null;
  pending_count: Generated<number>;
  last_actor: string | null;
  last_sent_at: number | null;
}

/** nsfwjs scores of a chat image or profile photo (src/server/safety/images.ts); kept 90 days. */
export interface ImageSafetyScoreTable {
  subject: 'chat' | 'photo';
  /** messages.id for 'chat', photos.id for 'photo'. */
  subject_id: number;
  site_id: string;
  status: 'pending' | 'scored' | 'failed';
  drawing: number | null;
  hentai: number | null;
  neutral: number | null;
  porn: number | null;
  sexy: number | null;
  explicit: number | null;
  error: string | null;
  created_at: number;
  scored_at: number | null;
}

/** The operator inbox's state of one conversation: the claim of the operator answering it, and notes. */
export interface OperatorConversationTable {
  conversation_id: number;
  site_id: string;
  claimed_by: number | null;
  claim_expires_at: number | null;
  notes: string | null;
  notes_by: number | null;
  notes_updated_at: number | null;
}

export interface Database {
  operator_conversations: OperatorConversationTable;
  safety_signals: SafetySignalTable;
  message_fingerprints: MessageFingerprintTable;
  image_safety_scores: ImageSafetyScoreTable;
  jobs: JobTable;
  member_presence: MemberPresenceTable;
  mail_digests: MailDigestTable;
  staff_accounts: StaffAccountTable;
  staff_sessions: StaffSessionTable;
  staff_recovery_codes: StaffRecoveryCodeTable;
  staff_audit_log: StaffAuditLogTable;
  daily_active: DailyActiveTable;
  lander_funnel: LanderFunnelTable;
  payments: PaymentTable;
  discount_codes: DiscountCodeTable;
  discount_redemptions: DiscountRedemptionTable;
  payment_customers: PaymentCustomerTable;
  dd_mandates: DdMandateTable;
  sms_codes: SmsCodeTable;
  dd_blocks: DdBlockTable;
  local_mollie_objects: LocalMollieObjectTable;
  push_subscriptions: PushSubscriptionTable;
  app_keys: AppKeyTable;
  conversations: ConversationTable;
  chat_participants: ChatParticipantTable;
  messages: MessageTable;
  events: EventTable;
  swipes: SwipeTable;
  blocks: BlockTable;
  reports: ReportTable;
  likes: LikeTable;
  users: UserTable;
  sessions: SessionTable;
  user_tokens: UserTokenTable;
  mails: MailTable;
  notifications: NotificationTable;
  credit_ledger: CreditLedgerTable;
  profiles: ProfileTable;
  profile_interests: ProfileInterestTable;
  photos: PhotoTable;
}
