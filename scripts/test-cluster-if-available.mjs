// The last step of `npm test`: the cluster test (npm run test:cluster) when PostgreSQL and Redis
// answer (the local ones, or TEST_DATABASE_URL / TEST_REDIS_URL); otherwise it says why it is skipped.
import { spawnSync } from 'node:child_process';
import { portAnswers } from './port-answers.mjs';

const pg = new URL(process.env.CLUSTER_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const redis = new URL(process.env.CLUSTER_REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

const missing = [];
if (!(await portAnswers(pg.hostname, Number(pg.port || 5432)))) missing.push(`PostgreSQL at ${pg.hostname}:${pg.port || 5432}`);
if (!(await portAnswers(redis.hostname, Number(redis.port || 6379)))) missing.push(`Redis at ${redis.hostname}:${redis.port || 6379}`);
if (missing.length) {
  console.log(`Cluster test skipped: no ${missing.join(' and no ')} (start them, or run \`npm run test:cluster\` where they run).`);
  process.exit(0);
}
const result = spawnSync('npm', ['run', 'test:cluster'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
