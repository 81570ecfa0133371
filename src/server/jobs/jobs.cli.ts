import { createAppContext } from '../app-context';
import { readConfig } from '../config';
import { enqueueJob } from './job-queue';
import { createJobRunner, PERIODIC_JOBS } from './jobs';

// `npm run jobs -- status | run-due | run <periodic-name>`: look at the queue, or work it once by hand.
const [command, name] = process.argv.slice(2);
const usage = `Usage: npm run jobs -- status | run-due | run <${PERIODIC_JOBS.map((p) => p.name).join('|')}>`;
if (!['status', 'run-due', 'run'].includes(command ?? '') || (command === 'run' && !PERIODIC_JOBS.some((p) => p.name === name))) {
  console.error(usage);
  process.exit(2);
}
const app = await createAppContext(readConfig());
const db = app.db.db;
if (command === 'status') {
  const counts = await db.selectFrom('jobs').select(['name', 'status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['name', 'status']).orderBy('name').execute();
  for (const row of counts) console.log(`${row.name.padEnd(18)} ${row.status.padEnd(8)} ${Number(row.n)}`);
  const failed = await db.selectFrom('jobs').select(['id', 'name', 'attempts', 'last_error', 'finished_at']).where('status', '=', 'failed').orderBy('id', 'desc').limit(10).execute();
  for (const job of failed) console.log(`failed #${job.id} ${job.name} after ${job.attempts} attempts: ${(job.last_error ?? '').split('\n')[0]}`);
} else {
  const runner = createJobRunner(app);
  if (command === 'run') {
    // A one-off run of a periodic job now, beside its regular slots (its own unique key).
    await enqueueJob(db, { name: name as string, uniqueKey: `${name}:manual:${new Date(app.clock.now()).toISOString()}`, payload: { slot: `manual-${app.clock.now()}` }, runAt: app.clock.now() }, app.clock.now());
  }
  await runner.schedulePeriodic();
  console.log(`ran ${await runner.runDue()} jobs`);
}
await app.close();
process.exit(0);
