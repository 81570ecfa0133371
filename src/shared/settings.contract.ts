import type { Company } from './site.schema';

/** GET /api/settings.php — the site-wide Settings object (SPEC §3). */
export const SETTINGS_PATH = '/api/settings.php';

export interface RegionOption {
  code: string;
  name: string;
}

export interface Settings {
  countries: string[];
  name: string;
  index_title: string;
  description: string;
  visible_profile_fields: string[];
  visible_profile_notes: string[];
  geoip_country: string | null;
  geoip_selected_country: string;
  cdn_prefix: string;
  message_credits: number;
  signup_credits: number;
  photo_credits: number;
  gift_credits: number;
  message_length: number;
  minimum_message_costs: Record<string, { costs: number; currency: string }>;
  support_email: string;
  support_phone: string;
  enable_site_entry_popup: 'yes' | 'no';
  entry_warning_countries: string[];
  push_public_key: string | null;
  search_fields: string[];
  domain: string;
  domain_language: string;
  fictional_warning: string;
  fictional_singular: string;
  fictional_plural: string;
  fictional_icon: string;
  refund_days: number;
  signups: 'all' | 'with_trafficsource';
  /** Whether this visitor may sign up now (signups rule applied to the request's tracking network). */
  signups_open: boolean;
  logged_out_search: boolean;
  logged_out_search_trafficsource: boolean;
  /** Whether this visitor may search while logged out (both flags applied to the tracking network). */
  logged_out_search_allowed: boolean;
  member_resell: boolean;
  niche: number;
  company_id: number;
  company: Company;
  mail_name: string;
  interests: string[];
  region_data: Record<string, RegionOption[]>;
  theme: { primary: string; secondary: string; surface?: string };
  locale: string;
}
