import type { AppContext } from '../app-context';
import { eraseExpiredAccounts } from '../accounts/accounts.service';
import { pruneEvents } from '../events/events.service';
import {
  deliverNoticeMail, deliverUnreadReminder, deliverWeeklyUpdate, queueUnreadReminders, queueWeeklyUpdates,
} from '../notifications/notifications.service';
import { pruneStalePresence } from '../notifications/presence';
import { SETTLE_AFTER_MS, settleOpenPayments } from '../payments/payments.service';
import { pruneSafety } from '../safety/safety.service';
import { pruneImageScores, runImageScoreJob, SCORE_IMAGE_JOB } from '../safety/images.service';
import { pruneJobs } from './job-queue';
import { type JobHandler, JobRunner, type JobRunnerOptions, type PeriodicJob } from './job-runner';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Daily reminders go out from this UTC hour (or at once when the slot is queued later that day). */
const REMINDER_HOUR_UTC = 17;
/** Weekly updates go out on Monday from this UTC hour. */
const WEEKLY_HOUR_UTC = 10;

const iso = (ms: number) => new Date(ms).toISOString();

/** ISO 8601 week of a moment (UTC), as `2026-W48`, and the Monday 00:00 it starts on. */
export function isoWeek(ms: number): { key: string; start: number } {
  const dayStart = ms - (ms % DAY);
  const weekday = (new Date(dayStart).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const monday = dayStart - weekday * DAY;
  const thursday = monday + 3 * DAY; // the week belongs to the year of its Thursday
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY)) + 1;
  return { key: `${year}-W${String(week).padStart(2, '0')}`, start: monday };
}

/** The periodic jobs: each queued once per slot (hour, day or ISO week) across all processes. */
export const PERIODIC_JOBS: PeriodicJob[] = [
  { name: 'erase_accounts', slot: (now) => ({ key: iso(now).slice(0, 13), runAt: now - (now % HOUR) }) },
  // Every 5 minutes: payments paid at the provider whose webhook never came are credited (see settleOpenPayments).
  { name: 'settle_payments', slot: (now) => { const start = now - (now % SETTLE_AFTER_MS); return { key: iso(start).slice(0, 16), runAt: start }; } },
  { name: 'prune', slot: (now) => ({ key: iso(now).slice(0, 13), runAt: now - (now % HOUR) }) },
  { name: 'unread_reminders', slot: (now) => ({ key: iso(now).slice(0, 10), runAt: now - (now % DAY) + REMINDER_HOUR_UTC * HOUR }) },
  { name: 'weekly_update', slot: (now) => { const week = isoWeek(now); return { key: week.key, runAt: week.start + WEEKLY_HOUR_UTC * HOUR }; } },
];

/** What each job name does. */
export const JOB_HANDLERS: Record<string, JobHandler> = {
  async erase_accounts(app) {
    const erased = await eraseExpiredAccounts(app);
    if (erased > 0) app.logger.info({ erased }, 'erased deleted accounts');
  },
  async prune(app) {
    const now = app.clock.now();
    await pruneEvents(app.db.db, now);
    await pruneJobs(app.db.db, now);
    await pruneStalePresence(app.db.db, now);
    // Safety signals after 90 days, spam fingerprints after a day (issue 26).
    await pruneSafety(app.db.db, now);
    await pruneImageScores(app.db.db, now);
  },
  async settle_payments(app) {
    const settled = await settleOpenPayments(app);
    if (settled.changed > 0) app.logger.info(settled, 'settled open payments with the provider');
  },
  unread_reminders: queueUnreadReminders,
  reminder_mail: deliverUnreadReminder,
  weekly_update: queueWeeklyUpdates,
  weekly_mail: deliverWeeklyUpdate,
  notice_mail: deliverNoticeMail,
  [SCORE_IMAGE_JOB]: runImageScoreJob,
};

/** The app's runner: every handler and periodic job above. */
export function createJobRunner(app: AppContext, options: Partial<JobRunnerOptions> = {}): JobRunner {
  return new JobRunner(app, { handlers: JOB_HANDLERS, periodic: PERIODIC_JOBS, leaseMs: app.config.jobLeaseMs, ...options });
}
