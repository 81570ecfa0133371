import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { ABUSE_LIMITS, type AbuseLimitName } from '../../shared/constants';
import type { LimiterStore } from '../accounts/login-limiter';
import { RuleError } from '../rule-error';

/** The translated text of each limit's 429 ({{minutes}} / {{seconds}} until the next try). */
const MESSAGE_KEYS: Record<AbuseLimitName, string> = {
  signup_ip: 'limits.signup_ip',
  mail_address: 'limits.mail_address',
  mail_ip: 'limits.mail_ip',
  report_day: 'limits.report_day',
  message_minute: 'limits.message_minute',
  upload_hour: 'limits.upload_hour',
  lander_view_ip: 'limits.lander_view_ip',
};

/** Too many requests: a 429 whose answer carries Retry-After. */
export class RateLimitError extends RuleError {
  constructor(key: string, readonly retryAfterS: number, code = 'rate_limited') {
    super(code, key, 429, { minutes: Math.max(1, Math.ceil(retryAfterS / 60)), seconds: retryAfterS });
  }
}

/** Retry-After in whole seconds (at least 1) from a limiter's milliseconds. */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export interface AbuseLimits {
  /** Counts one request under `key` (a member id, an address, an IP); throws RateLimitError past the limit. A null key (no IP known) is not counted. */
  consume(name: AbuseLimitName, key: string | null): Promise<void>;
}

/** The abuse limits (signups, mails, reports, messages, uploads) on the shared limiter store. */
export async function createAbuseLimits(store: LimiterStore, factor = 1): Promise<AbuseLimits> {
  const limiters = new Map<AbuseLimitName, RateLimiterAbstract>();
  for (const [name, limit] of Object.entries(ABUSE_LIMITS) as [AbuseLimitName, (typeof ABUSE_LIMITS)[AbuseLimitName]][]) {
    limiters.set(name, await store.create({ keyPrefix: `abuse_${name}`, points: Math.max(1, Math.round(limit.points * factor)), duration: limit.seconds }));
  }
  return {
    async consume(name, key) {
      if (key === null) return;
      try {
        await (limiters.get(name) as RateLimiterAbstract).consume(key);
      } catch (rejected) {
        // The store failing is an error; a refusal is a RateLimiterRes.
        if (rejected instanceof Error) throw rejected;
        throw new RateLimitError(MESSAGE_KEYS[name], retryAfterSeconds((rejected as { msBeforeNext: number }).msBeforeNext));
      }
    },
  };
}
