import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/server/app-context';
import { type Db, type Dialect, openDatabase } from '../../src/server/db/database';
import { migrateToLatest } from '../../src/server/db/migrate';
import { claimJob, enqueueJob } from '../../src/server/jobs/job-queue';
import { type JobHandler, JobRunner, type PeriodicJob } from '../../src/server/jobs/job-runner';
import { createJobRunner, isoWeek, PERIODIC_JOBS } from '../../src/server/jobs/jobs';
import { activeMember } from '../helpers/members';
import { createTestApp, DIALECTS } from '../helpers/test-app';

/** Two handles on one database (one SQLite file, or one PostgreSQL schema): two processes' view of it. */
async function twoHandles(dialect: Dialect): Promise<{ a: Db; b: Db; url: string; close(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'kindred-jobs-')), 'jobs.db');
    const a = openDatabase(`sqlite:${file}`);
    await migrateToLatest(a);
    const b = openDatabase(`sqlite:${file}`);
    return { a, b, url: `sqlite:${file}`, close: async () => { await a.db.destroy(); await b.db.destroy(); } };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const base = process.env.TEST_DATABASE_URL as string;
  const admin = openDatabase(base);
  await admin.db.schema.createSchema(schema).execute();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const a = { ...openDatabase(url.toString()), schema };
  await migrateToLatest(a);
  const b = { ...openDatabase(url.toString()), schema };
  return {
    a, b, url: url.toString(),
    async close() {
      await a.db.destroy();
      await b.db.destroy();
      await admin.db.schema.dropSchema(schema).cascade().execute();
      await admin.db.destroy();
    },
  };
}

const clock = { value: Date.parse('2026-11-25T08:00:00Z'), now() { return this.value; } };
const appOn = (db: Db) => ({ db, clock, logger: pino({ level: 'silent' }) }) as unknown as AppContext;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A job-runner process (tests/helpers/job-process.ts) on the database; resolves once it is ready. */
function jobProcess(databaseUrl: string, log: string): Promise<{ child: ChildProcess; done: Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/helpers/job-process.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, JOB_LOG: log }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const seen = (word: string) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`job process did not say ${word}`)), 60_000);
    const check = () => {
      if (!output.includes(word)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString(); check(); });
    check();
  });
  return seen('ready').then(() => ({ child, done: seen('done') }));
}

for (const dialect of DIALECTS) {
  describe(`job runner (${dialect})`, () => {
    let handles: Awaited<ReturnType<typeof twoHandles>>;
    const ran: { name: string; key: unknown; worker: string }[] = [];
    let failures = 0;
    const handlers = (worker: string): Record<string, JobHandler> => ({
      async work(_app, payload) {
        await pause(2); // long enough for the other runner to try the same job
        ran.push({ name: 'work', key: payload.n, worker });
      },
      async flaky() {
        failures++;
        throw new Error(`flaky attempt ${failures}`);
      },
      async slot(_app, payload) {
        ran.push({ name: 'slot', key: payload.slot, worker });
      },
    });
    const hourly: PeriodicJob = { name: 'slot', slot: (now) => ({ key: new Date(now).toISOString().slice(0, 13), runAt: now }) };
    let one: JobRunner;
    let two: JobRunner;

    beforeAll(async () => {
      clock.value = Date.parse('2026-11-25T08:00:00Z');
      handles = await twoHandles(dialect);
      one = new JobRunner(appOn(handles.a), { handlers: handlers('one'), periodic: [hourly], workerId: 'one' });
      two = new JobRunner(appOn(handles.b), { handlers: handlers('two'), periodic: [hourly], workerId: 'two' });
    });
    afterAll(() => handles.close());
    beforeEach(async () => {
      ran.length = 0;
      await handles.a.db.deleteFrom('jobs').execute();
    });

    it('runs each job exactly once when two runners on two handles race for them', async () => {
      for (let n = 0; n < 30; n++) await enqueueJob(handles.a.db, { name: 'work', payload: { n }, runAt: clock.now() }, clock.now());
      const [byOne, byTwo] = await Promise.all([one.runDue(), two.runDue()]);
      expect(byOne + byTwo).toBe(30);
      expect(ran.map((r) => r.key).sort((x, y) => Number(x) - Number(y))).toEqual([...Array(30).keys()]);
      const states = await handles.b.db.selectFrom('jobs').select(['status', 'attempts']).execute();
      expect(states.every((s) => s.status === 'done' && s.attempts === 1)).toBe(true);
    });

    it('runs each job exactly once with two runner processes on one database', async () => {
      for (let n = 0; n < 40; n++) await enqueueJob(handles.a.db, { name: 'record', payload: { n }, runAt: 0 }, clock.now());
      const log = path.join(mkdtempSync(path.join(tmpdir(), 'kindred-job-log-')), 'ran.log');
      const workers = await Promise.all([jobProcess(handles.url, log), jobProcess(handles.url, log)]);
      for (const { child } of workers) child.stdin?.write('go\n');
      await Promise.all(workers.map((w) => w.done));
      const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => l.split(' '));
      expect(lines).toHaveLength(40);
      expect(new Set(lines.map(([id]) => id)).size).toBe(40);
      // Both took part (each job takes a few milliseconds, so neither drains the queue alone).
      expect(new Set(lines.map(([, worker]) => worker)).size).toBe(2);
      const states = await handles.a.db.selectFrom('jobs').select('status').where('name', '=', 'record').execute();
      expect(states.filter((s) => s.status === 'done')).toHaveLength(40);
    }, 90_000);

    it('queues a periodic slot once across runners, and the next slot once more', async () => {
      await Promise.all([one.schedulePeriodic(), two.schedulePeriodic(), one.schedulePeriodic()]);
      await Promise.all([one.runDue(), two.runDue()]);
      await Promise.all([one.tick(), two.tick()]);
      expect(ran.filter((r) => r.name === 'slot').map((r) => r.key)).toEqual(['2026-11-25T08']);
      clock.value += 3600_000;
      await Promise.all([two.tick(), one.tick()]);
      expect(ran.filter((r) => r.name === 'slot').map((r) => r.key)).toEqual(['2026-11-25T08', '2026-11-25T09']);
      const keys = await handles.a.db.selectFrom('jobs').select('unique_key').orderBy('id').execute();
      expect(keys.map((k) => k.unique_key)).toEqual(['slot:2026-11-25T08', 'slot:2026-11-25T09']);
      // A job with a key already used is not queued again, even after it ran.
      expect(await enqueueJob(handles.b.db, { name: 'slot', uniqueKey: 'slot:2026-11-25T08', runAt: clock.now() }, clock.now())).toBe(false);
    });

    it('retries a failing job with growing backoff, then marks it failed with the error', async () => {
      failures = 0;
      await enqueueJob(handles.a.db, { name: 'flaky', runAt: clock.now(), maxAttempts: 3 }, clock.now());
      expect(await one.runDue()).toBe(1);
      let job = await handles.a.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'pending', attempts: 1, run_at: clock.now() + 30_000, locked_by: null });
      expect(job.last_error).toContain('flaky attempt 1');
      expect(await two.runDue()).toBe(0); // not before its time
      clock.value += 30_000;
      expect(await two.runDue()).toBe(1);
      job = await handles.a.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'pending', attempts: 2, run_at: clock.now() + 60_000 });
      clock.value += 60_000;
      expect(await one.runDue()).toBe(1);
      job = await handles.a.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'failed', attempts: 3, finished_at: clock.now() });
      expect(job.last_error).toContain('flaky attempt 3');
      clock.value += 3600_000;
      expect(await one.runDue()).toBe(0);
      expect(failures).toBe(3);
    });

    it('survives a restart: a job whose runner died is taken over once its lease runs out', async () => {
      await enqueueJob(handles.a.db, { name: 'work', payload: { n: 99 }, runAt: clock.now() }, clock.now());
      // Runner "one" claims it and dies before finishing (the process is gone; only the row remains).
      const claimed = await claimJob(handles.a.db, 'dead-process', clock.now(), 60_000);
      expect(claimed?.status).toBe('running');
      const restarted = new JobRunner(appOn(handles.b), { handlers: handlers('restarted'), workerId: 'restarted', leaseMs: 60_000 });
      expect(await restarted.runDue()).toBe(0); // the lease still holds
      clock.value += 60_001;
      expect(await restarted.runDue()).toBe(1);
      expect(ran).toEqual([{ name: 'work', key: 99, worker: 'restarted' }]);
      const job = await handles.a.db.selectFrom('jobs').selectAll().executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'done', attempts: 2, locked_by: 'restarted' });
    });

    it('does not run a job after its last attempt died with its runner', async () => {
      await enqueueJob(handles.a.db, { name: 'work', payload: { n: 7 }, runAt: clock.now(), maxAttempts: 1 }, clock.now());
      await claimJob(handles.a.db, 'dead-process', clock.now(), 1000);
      clock.value += 1001;
      expect(await two.runDue()).toBe(1);
      expect(ran).toEqual([]);
      expect(await handles.a.db.selectFrom('jobs').select(['status', 'last_error']).executeTakeFirstOrThrow()).toMatchObject({ status: 'failed', last_error: 'lease expired after the last attempt' });
    });

    it('stops cleanly: start polls, stop waits for the round in hand', async () => {
      await enqueueJob(handles.a.db, { name: 'work', payload: { n: 1 }, runAt: clock.now() }, clock.now());
      const runner = new JobRunner(appOn(handles.a), { handlers: handlers('poller'), pollMs: 10 });
      runner.start();
      await pause(100);
      await runner.stop();
      expect(ran).toEqual([{ name: 'work', key: 1, worker: 'poller' }]);
    });
  });
}

describe('periodic slots', () => {
  it('names ISO weeks and the app slots', () => {
    expect(isoWeek(Date.parse('2026-11-25T08:00:00Z')).key).toBe('2026-W48');
    expect(new Date(isoWeek(Date.parse('2026-11-25T08:00:00Z')).start).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(isoWeek(Date.parse('2027-01-01T12:00:00Z')).key).toBe('2026-W53');
    expect(isoWeek(Date.parse('2025-12-29T00:00:00Z')).key).toBe('2026-W01');
    const now = Date.parse('2026-11-25T08:33:00Z');
    expect(Object.fromEntries(PERIODIC_JOBS.map((p) => [p.name, p.slot(now).key]))).toEqual({
      settle_payments: '2026-11-25T08:30', erase_accounts: '2026-11-25T08', prune: '2026-11-25T08', unread_reminders: '2026-11-25', weekly_update: '2026-W48',
    });
  });
});

for (const dialect of DIALECTS) {
  describe(`the app's periodic jobs (${dialect})`, () => {
    it('erase accounts deleted more than 14 days ago and prune old events, once an hour, from the runner', async () => {
      const t = await createTestApp(dialect);
      try {
        const gone = await activeMember(t, 'Gone');
        const recent = await activeMember(t, 'Recent');
        const db = t.app.db.db;
        const day = 24 * 3600_000;
        await db.updateTable('users').set({ deleted_at: t.clock.now() - 15 * day }).where('id', '=', gone.userId).execute();
        await db.updateTable('users').set({ deleted_at: t.clock.now() - day }).where('id', '=', recent.userId).execute();
        await db.insertInto('events').values([
          { user_id: recent.userId, type: 'read', data: '{}', created_at: t.clock.now() - 4 * day },
          { user_id: recent.userId, type: 'read', data: '{}', created_at: t.clock.now() - 60_000 },
        ]).execute();
        await createJobRunner(t.app).tick();
        const erased = await db.selectFrom('users').select(['id', 'email', 'erased_at']).where('id', 'in', [gone.userId, recent.userId]).orderBy('id').execute();
        expect(erased.map((u) => u.erased_at !== null)).toEqual([true, false]);
        expect(erased[0].email).toBe(`erased-${gone.userId}@invalid`);
        expect((await db.selectFrom('events').select('created_at').where('user_id', '=', recent.userId).execute()).length).toBe(1);
        const jobs = await db.selectFrom('jobs').select(['unique_key', 'status']).where('name', 'in', ['erase_accounts', 'prune']).orderBy('unique_key').execute();
        expect(jobs).toEqual([{ unique_key: 'erase_accounts:2026-11-22T12', status: 'done' }, { unique_key: 'prune:2026-11-22T12', status: 'done' }]);
      } finally {
        await t.close();
      }
    });
  });
}
