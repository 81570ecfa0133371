import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely, Transaction } from 'kysely';
import type { Database, Job } from '../db/schema';

type Q = Kysely<Database> | Transaction<Database>;

/** How long a claimed job belongs to its runner; past it another runner may take it over. */
export const JOB_LEASE_MS = 5 * 60_000;
/** First retry after this long, doubling per attempt, at most `MAX_BACKOFF_MS`. */
export const BASE_BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 3600_000;
export const DEFAULT_MAX_ATTEMPTS = 5;
/** Finished jobs are kept this long (periodic slots of the past stay unique while kept). */
export const JOB_RETENTION_MS = 30 * 24 * 3600_000;

export interface NewJob {
  name: string;
  payload?: unknown;
  runAt: number;
  /** Never two jobs with one key (a periodic slot such as `weekly_update:2026-W48`). */
  uniqueKey?: string;
  maxAttempts?: number;
}

const jobRow = (job: NewJob, now: number) => ({
  name: job.name, unique_key: job.uniqueKey ?? null, payload: JSON.stringify(job.payload ?? {}), status: 'pending' as const, run_at: job.runAt,
  attempts: 0, max_attempts: job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, locked_by: null, lease_until: null, last_error: null, created_at: now, finished_at: null,
});

/** Queues a job; false when a job with the same unique key already exists (in any state). */
export async function enqueueJob(db: Q, job: NewJob, now: number): Promise<boolean> {
  const inserted = await db.insertInto('jobs').values(jobRow(job, now)).onConflict((oc) => oc.column('unique_key').doNothing()).executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Queues many jobs, 200 rows a statement; jobs whose unique key exists are skipped. */
export async function enqueueJobs(db: Q, jobs: NewJob[], now: number): Promise<void> {
  for (let i = 0; i < jobs.length; i += 200) {
    await db.insertInto('jobs').values(jobs.slice(i, i + 200).map((job) => jobRow(job, now))).onConflict((oc) => oc.column('unique_key').doNothing()).execute();
  }
}

/** Due: pending and its time has come, or running under a lease that ran out (its runner died). */
const due = (now: number) => (eb: ExpressionBuilder<Database, 'jobs'>) =>
  eb.or([
    eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
    eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
  ]);

/**
 * Takes one due job for `worker`. The UPDATE repeats the due condition, so of several runners
 * (processes, database handles) racing for the same row exactly one changes it: on PostgreSQL the
 * losers wait for the row lock and then no longer match; SQLite runs writes one at a time.
 */
export async function claimJob(db: Q, worker: string, now: number, leaseMs = JOB_LEASE_MS): Promise<Job | null> {
  const candidates = await db.selectFrom('jobs').select('id').where(due(now)).orderBy('run_at').orderBy('id').limit(10).execute();
  for (const { id } of candidates) {
    const claimed = await db
      .updateTable('jobs')
      .set((eb) => ({ status: 'running', locked_by: worker, lease_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where(due(now))
      .returningAll()
      .executeTakeFirst();
    if (claimed) return claimed;
  }
  return null;
}

/** Marks a job the worker still holds as done. False when its lease was lost to another runner. */
export async function completeJob(db: Q, job: Job, worker: string, now: number): Promise<boolean> {
  const done = await db
    .updateTable('jobs')
    .set({ status: 'done', finished_at: now, lease_until: null, last_error: null })
    .where('id', '=', job.id).where('locked_by', '=', worker).where('status', '=', 'running')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** The delay before attempt `attempts + 1`. */
export function backoffMs(attempts: number): number {
  return Math.min(BASE_BACKOFF_MS * 2 ** Math.max(0, attempts - 1), MAX_BACKOFF_MS);
}

/** A failed attempt: back to pending after the backoff, or failed for good after the last attempt. */
export async function failJob(db: Q, job: Job, worker: string, error: string, now: number): Promise<'retry' | 'failed'> {
  const final = job.attempts >= job.max_attempts;
  await db
    .updateTable('jobs')
    .set(final
      ? { status: 'failed', finished_at: now, lease_until: null, locked_by: null, last_error: error.slice(0, 2000) }
      : { status: 'pending', run_at: now + backoffMs(job.attempts), lease_until: null, locked_by: null, last_error: error.slice(0, 2000) })
    .where('id', '=', job.id).where('locked_by', '=', worker).where('status', '=', 'running')
    .execute();
  return final ? 'failed' : 'retry';
}

/** Drops finished jobs past the retention window (run by the hourly prune job). */
export async function pruneJobs(db: Q, now: number) {
  await db.deleteFrom('jobs').where('status', 'in', ['done', 'failed']).where('finished_at', '<', now - JOB_RETENTION_MS).execute();
}

/** A name for one runner, unique across processes and restarts. */
export const newWorkerId = () => `w-${process.pid}-${randomUUID().slice(0, 8)}`;
