// One app process serving the API (no pages): `tsx tests/helpers/api-process.ts` with PORT,
// DATABASE_URL and REDIS_URL in the environment. Prints "ready <port>" once it listens.
import { serve } from '@hono/node-server';
import pino from 'pino';
import { createApi } from '../../src/server/api/app';
import { createAppContext } from '../../src/server/app-context';
import { readConfig } from '../../src/server/config';

const config = readConfig(process.env);
const app = await createAppContext(config, { logger: pino({ level: 'warn' }) });
const server = serve({ fetch: createApi(app).fetch, port: config.port, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`ready ${info.port}\n`);
});
const stop = async () => {
  server.close();
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
