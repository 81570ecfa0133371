import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeMember } from '../helpers/members';
import { createTestApp, listenOnNode, type TestApp } from '../helpers/test-app';

// Request bodies as the server reads them on node:http (src/server/api/request-body.ts): straight from the
// node request, with the body limit on the declared length, or counted by Hono when the body is chunked.
describe('request bodies over node:http', () => {
  const LIMIT = 4096;
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listenOnNode>>;
  let port: number;
  let ann: Awaited<ReturnType<typeof activeMember>>;
  let bob: Awaited<ReturnType<typeof activeMember>>;
  beforeAll(async () => {
    t = await createTestApp('sqlite', { BODY_LIMIT_BYTES: String(LIMIT) });
    ann = await activeMember(t, 'Ann', { paid: true, credits: 100 });
    bob = await activeMember(t, 'Bob', { gender: 'male' });
    server = await listenOnNode(t);
    port = server.port;
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  /** POSTs a message body as raw pieces: with its length declared, or chunked (no length). */
  const send = (pieces: (string | Buffer)[], declared: boolean) => new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const bytes = pieces.reduce((n, p) => n + Buffer.byteLength(p), 0);
    const req = request({
      host: '127.0.0.1', port, path: '/api/messages.php', method: 'POST',
      headers: { host: 'localhost:4321', 'content-type': 'application/json', cookie: ann.cookie, ...(declared ? { 'content-length': bytes } : {}) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
  const message = (clientId: string, text = 'Hello Bob') => JSON.stringify({ kind: 'text', profile_id: bob.profileId, client_id: clientId, text });
  const stored = async () => Number((await t.app.db.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('reads a JSON body of declared length, and a chunked one, alike', async () => {
    const declared = await send([message('body-declared-1')], true);
    expect(declared.status).toBe(201);
    const whole = message('body-chunked-1', 'Hello again');
    const chunked = await send([whole.slice(0, 20), whole.slice(20, 50), whole.slice(50)], false);
    expect(chunked.status).toBe(201);
    expect((chunked.body.message as { text: string }).text).toBe('Hello again');
    // A byte-order mark before the JSON is no part of it.
    expect((await send([`\uFEFF${message('body-bom-1')}`], true)).status).toBe(201);
  });

  it('refuses a body over the limit, declared or chunked, with the translated 413, storing nothing', async () => {
    const before = await stored();
    const big = message('body-big-1', 'x'.repeat(LIMIT));
    for (const declared of [true, false]) {
      const res = await send(declared ? [big] : [big.slice(0, 1000), big.slice(1000)], declared);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ error: 'payload_too_large' });
      expect(typeof res.body.message).toBe('string');
    }
    expect(await stored()).toBe(before);
  });

  it('answers a body that is not JSON with the translated 400, storing nothing', async () => {
    const before = await stored();
    for (const declared of [true, false]) {
      const res = await send(['{"kind":"text",', '"text": nope'], declared);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_input' });
    }
    expect(await stored()).toBe(before);
  });
});
