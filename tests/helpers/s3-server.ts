/**
 * A real S3-compatible server for tests (s3rver, in-process, on a free port, objects in a temp
 * folder) with a fresh bucket. `startS3Server().env` points the app at it:
 *
 *   const s3 = await startS3Server();
 *   const t = await createTestApp('sqlite', s3.env);
 *   …
 *   await s3.stop();
 *
 * Another process can run it too: `node scripts/s3-test-server.mjs` prints the same variables.
 */
export { startS3Server, type S3TestServer } from '../../scripts/s3-test-server.mjs';
