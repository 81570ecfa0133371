// One job-runner process for tests/api/jobs.test.ts: `tsx tests/helpers/job-process.ts` with DATABASE_URL
// and JOB_LOG. Prints "ready", works the queue after a line on stdin, appends "<job id> <worker>" per
// job it ran to JOB_LOG, prints "done" once the queue stayed empty, and exits.
import { appendFileSync } from 'node:fs';
import pino from 'pino';
import type { AppContext } from '../../src/server/app-context';
import { openDatabase } from '../../src/server/db/database';
import { JobRunner } from '../../src/server/jobs/job-runner';

const db = openDatabase(process.env.DATABASE_URL as string);
const log = process.env.JOB_LOG as string;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const app = { db, clock: { now: () => Date.now() }, logger: pino({ level: 'warn' }) } as unknown as AppContext;
const runner = new JobRunner(app, {
  handlers: {
    async record(_app, _payload, job) {
      await pause(3);
      appendFileSync(log, `${job.id} ${runner.workerId}\n`);
    },
  },
});
process.stdout.write('ready\n');
process.stdin.once('data', async () => {
  let idle = 0;
  while (idle < 3) {
    idle = (await runner.runDue()) > 0 ? 0 : idle + 1;
    await pause(30);
  }
  await db.db.destroy();
  process.stdout.write('done\n');
  process.exit(0);
});
