// A throwaway S3-compatible server for tests (s3rver: pure JavaScript, files in a temp folder).
//
//   node scripts/s3-test-server.mjs [--port 4590] [--bucket kindred-test] [--dir DIR]
//
// prints the app's settings (STORAGE_URL=…, S3_ENDPOINT=…, …) one per line, then READY, and runs
// until SIGTERM or SIGINT. Tests import startS3Server() from here (typed in tests/helpers/s3-server.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import S3rver from 's3rver';

/** s3rver checks request signatures against this one key pair. */
const KEY = 'S3RVER';

/**
 * Starts s3rver on a free port (or `port`) with a fresh `bucket`, files in a new temp folder
 * (or `directory`). `env` holds the variables that point the app at it.
 */
export async function startS3Server({ port = 0, host = '127.0.0.1', bucket = 'kindred-test', directory } = {}) {
  const dir = directory ?? mkdtempSync(path.join(tmpdir(), 'kindred-s3-'));
  const server = new S3rver({ port, address: host, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  const endpoint = `http://${host}:${address.port}`;
  const env = {
    STORAGE_URL: `s3://${bucket}`,
    S3_ENDPOINT: endpoint,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: KEY,
    S3_SECRET_ACCESS_KEY: KEY,
    S3_FORCE_PATH_STYLE: '1',
  };
  let stopped = false;
  return {
    url: env.STORAGE_URL,
    endpoint,
    bucket,
    region: env.S3_REGION,
    accessKeyId: KEY,
    secretAccessKey: KEY,
    directory: dir,
    env,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
      if (!directory) rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const s3 = await startS3Server({ port: Number(arg('port') ?? 0), bucket: arg('bucket'), directory: arg('dir') });
  for (const [name, value] of Object.entries(s3.env)) console.log(`${name}=${value}`);
  console.log('READY');
  const stop = () => s3.stop().then(() => process.exit(0), () => process.exit(1));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
