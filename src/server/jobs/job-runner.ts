import type { AppContext } from '../app-context';
import type { Job } from '../db/schema';
import { claimJob, completeJob, enqueueJob, failJob, JOB_LEASE_MS, newWorkerId } from './job-queue';

/** Does one job's work. It may run again after a crash or a lost lease, so it must be idempotent. */
export type JobHandler = (app: AppContext, payload: Record<string, unknown>, job: Job) => Promise<void>;

/** A job queued once per time slot: `slot(now)` names the slot now running (e.g. `2026-W48`). */
export interface PeriodicJob {
  name: string;
  slot(now: number): { key: string; runAt: number };
  maxAttempts?: number;
}

export interface JobRunnerOptions {
  handlers: Record<string, JobHandler>;
  periodic?: PeriodicJob[];
  workerId?: string;
  leaseMs?: number;
  /** How often `start()` looks for due jobs. */
  pollMs?: number;
}

/** The runners polling in this process: woken when a job is queued that a member is waiting for. */
const startedRunners = new Set<JobRunner>();

/** Asks this process's runners for a round now instead of at their next poll (a no-op without one). */
export function wakeJobRunners(): void {
  for (const runner of startedRunners) runner.wake();
}

/**
 * Runs queued jobs from the `jobs` table (one Kysely code path for SQLite and PostgreSQL):
 * claims each under a lease, retries failures with backoff up to their attempts, and queues each
 * periodic job once per slot across every process (the slot is the job's unique key).
 */
export class JobRunner {
  readonly workerId: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  /** Set by stop(): the round in hand ends after its current job. */
  private stopping = false;
  private readonly scheduled = new Map<string, string>();
  /** A round asked for by wake() has not begun yet. */
  private woken = false;

  constructor(private readonly app: AppContext, private readonly options: JobRunnerOptions) {
    this.workerId = options.workerId ?? newWorkerId();
    this.leaseMs = options.leaseMs ?? JOB_LEASE_MS;
    this.pollMs = options.pollMs ?? 5_000;
  }

  /** Queues the current slot of every periodic job (a slot already queued by anyone is left alone). */
  async schedulePeriodic(): Promise<void> {
    const now = this.app.clock.now();
    for (const periodic of this.options.periodic ?? []) {
      const { key, runAt } = periodic.slot(now);
      const uniqueKey = `${periodic.name}:${key}`;
      if (this.scheduled.get(periodic.name) === uniqueKey) continue;
      await enqueueJob(this.app.db.db, { name: periodic.name, uniqueKey, runAt, maxAttempts: periodic.maxAttempts, payload: { slot: key } }, now);
      this.scheduled.set(periodic.name, uniqueKey);
    }
  }

  /** Runs due jobs one after another until none is left (or `limit`); returns how many ran. */
  async runDue(limit = 1000): Promise<number> {
    let ran = 0;
    while (ran < limit && !this.stopping) {
      const job = await claimJob(this.app.db.db, this.workerId, this.app.clock.now(), this.leaseMs);
      if (!job) break;
      ran++;
      await this.runOne(job);
    }
    return ran;
  }

  private async runOne(job: Job): Promise<void> {
    const db = this.app.db.db;
    const handler: JobHandler | undefined = this.options.handlers[job.name];
    // A job whose last runner died after its final attempt is not tried once more.
    if (handler === undefined || job.attempts > job.max_attempts) {
      await failJob(db, { ...job, attempts: job.max_attempts }, this.workerId, handler !== undefined ? 'lease expired after the last attempt' : `no handler for ${job.name}`, this.app.clock.now());
      return;
    }
    try {
      await handler(this.app, JSON.parse(job.payload) as Record<string, unknown>, job);
      await completeJob(db, job, this.workerId, this.app.clock.now());
    } catch (err) {
      const outcome = await failJob(db, job, this.workerId, String((err as Error)?.stack ?? err), this.app.clock.now());
      this.app.logger[outcome === 'failed' ? 'error' : 'warn']({ err, job: job.name, id: job.id, attempt: job.attempts }, `job ${outcome === 'failed' ? 'failed for good' : 'will be retried'}`);
    }
  }

  /** One round: queue periodic slots, then run what is due. */
  tick(): Promise<unknown> {
    this.running = this.running
      .then(() => this.schedulePeriodic())
      .then(() => this.runDue())
      .catch((err) => this.app.logger.error({ err }, 'job runner round failed'));
    return this.running;
  }

  /** Runs due jobs once the round in hand is over (one extra round, however often it is asked for). */
  wake(): void {
    if (this.stopped || this.woken) return;
    this.woken = true;
    this.running = this.running
      .then(() => {
        this.woken = false;
        return this.runDue();
      })
      .catch((err) => this.app.logger.error({ err }, 'job runner round failed'));
  }

  /** Polls every `pollMs` until `stop()`. */
  start(): void {
    if (!this.stopped) return;
    startedRunners.add(this);
    this.stopped = false;
    this.stopping = false;
    const loop = () => {
      if (this.stopped) return;
      void this.tick().then(() => {
        if (this.stopped) return;
        this.timer = setTimeout(loop, this.pollMs);
        this.timer.unref();
      });
    };
    loop();
  }

  /** Stops polling and waits for the job in hand to finish. */
  async stop(): Promise<void> {
    startedRunners.delete(this);
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
