// One app process serving the API (no pages): `tsx tests/helpers/api-process.ts` with PORT,
// DATABASE_URL and REDIS_URL in the environment. Prints "ready <port>" once it listens.
import { createServer } from 'node:http';
import pino from 'pino';
import { createApiNodeListener } from '../../src/server/api/node-listener';
import { createAppContext } from '../../src/server/app-context';
import { readConfig } from '../../src/server/config';

const config = readConfig(process.env);
const app = await createAppContext(config, { logger: pino({ level: 'warn' }) });
// The API as the server entry mounts it (event stream and user.php on node:http, the rest through Hono).
const server = createServer(createApiNodeListener(app)).listen(config.port, '127.0.0.1', () => {
  process.stdout.write(`ready ${config.port}\n`);
});
const stop = async () => {
  server.close();
  server.closeAllConnections();
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
