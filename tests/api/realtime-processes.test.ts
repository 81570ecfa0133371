import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/server/db/database';
import { openTestDatabase, schemaUrl } from '../helpers/test-app';
import { readEvents } from '../helpers/sse';

// Two app processes share PostgreSQL and Redis: a message sent through one reaches an SSE client
// connected to the other. Runs when TEST_DATABASE_URL and TEST_REDIS_URL are set (.ci/run sets both
// when the local services answer).
const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

function startProcess(port: number, databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'tests/helpers/api-process.ts'], {
    env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, REDIS_URL: process.env.TEST_REDIS_URL, NODE_ENV: 'test', SEED_ON_EMPTY: '0', DATA_DIR: `/tmp/kindred-proc-${port}`,
      // The shared Redis keeps abuse-limit counters between runs: this test is not about them.
      RATE_LIMIT_FACTOR: '1000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process on ${port} did not start`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`process on ${port} exited with ${code}`)));
  });
}

describe.skipIf(!enabled)('realtime across two app processes (PostgreSQL + Redis)', () => {
  const processes: ChildProcess[] = [];
  let drop: () => Promise<void>;
  let setup: Db;
  const portA = 4710 + Math.floor(Math.random() * 100);
  const portB = portA + 200;
  const headers = (cookie = '') => ({ 'content-type': 'application/json', host: 'localhost', cookie: `${cookie}; lang=en` });
  const url = (port: number, path: string) => `http://127.0.0.1:${port}${path}`;

  beforeAll(async () => {
    const db = await openTestDatabase('postgres');
    drop = db.drop;
    const databaseUrl = schemaUrl(db.handle.schema as string);
    await db.handle.db.destroy().catch(() => undefined);
    // One after the other, so only the first one runs the migrations.
    processes.push(await startProcess(portA, databaseUrl));
    processes.push(await startProcess(portB, databaseUrl));
    // The test's own handle was closed above; reopen one for setup queries.
    setup = openDatabase(databaseUrl);
  }, 60_000);
  afterAll(async () => {
    for (const child of processes) child.kill('SIGTERM');
    await setup?.db.destroy();
    await drop?.().catch(() => undefined);
  });

  async function member(port: number, name: string) {
    const res = await fetch(url(port, '/api/signup.php'), {
      method: 'POST', headers: headers(),
      body: JSON.stringify({ email: `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`, name, password: 'correct horse battery', date_of_birth: '1990-05-01', gender: 'female' }),
    });
    expect(res.status).toBe(200);
    const { user } = (await res.json()) as { user: { id: number; profile: { id: number } } };
    await setup.db.updateTable('users').set({ status: 'confirmed', credits: 100 }).where('id', '=', user.id).execute();
    await setup.db.updateTable('profiles').set({ status: 'active' }).where('user_id', '=', user.id).execute();
    return { cookie: (res.headers.get('set-cookie') as string).split(';')[0], profileId: user.profile.id };
  }

  it('delivers a message sent through process A to a stream on process B, once', async () => {
    const ann = await member(portA, 'Ann');
    const bob = await member(portB, 'Bob');
    const abort = new AbortController();
    const stream = await fetch(url(portB, '/api/events.php'), { headers: headers(bob.cookie), signal: abort.signal });
    expect(stream.status).toBe(200);
    const reading = readEvents(stream, 1, abort);
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const sent = await fetch(url(portA, '/api/messages.php'), {
      method: 'POST', headers: headers(ann.cookie),
      body: JSON.stringify({ kind: 'text', client_id: randomUUID(), profile_id: bob.profileId, text: 'across processes' }),
    });
    expect(sent.status).toBe(201);
    const [event] = await reading;
    expect(event?.data).toMatchObject({ type: 'message', message: { text: 'across processes', sender_profile_id: ann.profileId } });
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);
});
