import { randomUUID } from 'node:crypto';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStreamCount, sseFrame } from '../../src/server/events/event-stream';
import { recordEvents } from '../../src/server/events/events.service';
import { activeMember, post } from '../helpers/members';
import { readEvents } from '../helpers/sse';
import { createTestApp, DIALECTS, listenOnNode, type TestApp } from '../helpers/test-app';

// The server answers /api/events.php on node:http (not through Hono's web streams): the same
// rules as the Hono route the other API tests call, over a real socket.
for (const dialect of DIALECTS) {
  describe(`event stream on node:http (${dialect})`, () => {
    let t: TestApp;
    let server: Awaited<ReturnType<typeof listenOnNode>>;
    let base: string;
    let ann: Awaited<ReturnType<typeof activeMember>>;
    let bob: Awaited<ReturnType<typeof activeMember>>;
    beforeAll(async () => {
      t = await createTestApp(dialect);
      server = await listenOnNode(t);
      base = server.base;
      ann = await activeMember(t, 'Ann', { paid: true, credits: 100 });
      bob = await activeMember(t, 'Bob', { gender: 'male', paid: true, credits: 100 });
    });
    afterAll(async () => {
      await server.close();
      await t.close();
    });

    const open = (cookie: string, signal: AbortSignal, headers: Record<string, string> = {}, host = 'localhost') =>
      fetch(`${base}/api/events.php`, { headers: { cookie, host, ...headers }, signal });
    const send = (cookie: string, profileId: number, text: string) =>
      t.request('/api/messages.php', post(cookie, { kind: 'text', client_id: randomUUID(), profile_id: profileId, text }));
    const waitFor = async (check: () => boolean) => {
      for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
      return check();
    };

    it('streams a member’s events live, resumes from Last-Event-ID, and releases the stream on close', async () => {
      const before = openStreamCount();
      const tab = new AbortController();
      const res = await open(bob.cookie, tab.signal);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-encoding')).toBeNull();
      const reading = readEvents(res, 1, tab, ['message']);
      expect(await waitFor(() => openStreamCount() === before + 1)).toBe(true);
      expect((await send(ann.cookie, bob.profileId, 'live on node')).status).toBe(201);
      const [live] = await reading;
      expect(live.data).toMatchObject({ type: 'message', message: { text: 'live on node' } });
      // Closing the tab releases the subscription and the heartbeat entry.
      expect(await waitFor(() => openStreamCount() === before)).toBe(true);

      expect((await send(ann.cookie, bob.profileId, 'missed')).status).toBe(201);
      const again = new AbortController();
      const resumed = await readEvents(await open(bob.cookie, again.signal, { 'last-event-id': String(live.id) }), 1, again, ['message'], (e) => e.id > live.id);
      expect(resumed.filter((e) => e.id > live.id).map((e) => (e.data as { message: { text: string } }).message.text)).toEqual(['missed']);
      expect(new Set(resumed.map((e) => e.id)).size).toBe(resumed.length);
    });

    it('records several events in one statement with each id on its own row, in the given order per member', async () => {
      const entries = [
        { userId: ann.userId, event: { type: 'credits', credits: 1 } },
        { userId: bob.userId, event: { type: 'credits', credits: 2 } },
        { userId: ann.userId, event: { type: 'credits', credits: 3 } },
      ] as unknown as Parameters<typeof recordEvents>[1];
      const recorded = await recordEvents(t.app.db.db, entries, t.app.clock.now());
      expect(recorded.map((e) => [e.userId, JSON.parse(e.data).credits])).toEqual([[ann.userId, 1], [bob.userId, 2], [ann.userId, 3]]);
      expect(recorded[0].id).toBeLessThan(recorded[2].id);
      const stored = await t.app.db.db.selectFrom('events').select(['id', 'user_id', 'data']).where('id', 'in', recorded.map((e) => e.id)).execute();
      for (const e of recorded) expect(stored.find((row) => row.id === e.id)).toEqual({ id: e.id, user_id: e.userId, data: e.data });
      expect(await recordEvents(t.app.db.db, [], t.app.clock.now())).toEqual([]);
    });

    it('answers 403 authentication_required without a valid session, and for another site’s session', async () => {
      // node:http rather than fetch, which does not let a caller set Host.
      const status = (cookie: string, host: string, path = '/api/events.php') => new Promise<{ status: number; body: string }>((resolve, reject) => {
        get(`${base}${path}`, { headers: { cookie, host } }, (res) => {
          let body = '';
          res.on('data', (chunk) => { body += chunk; });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }).on('error', reject);
      });
      for (const [cookie, host] of [['lang=en', 'localhost'], ['kd_session=not-a-session; lang=en', 'localhost'], [bob.cookie, 'gay.localhost']]) {
        const res = await status(cookie, host);
        expect(res.status, `${cookie} @ ${host}`).toBe(403);
        expect(JSON.parse(res.body)).toMatchObject({ authentication_required: true });
      }
      // Only the stream's own path is taken: a longer path is the API's 404.
      expect((await status(bob.cookie, 'localhost', '/api/events.phpx')).status).toBe(404);
    });

    it('never carries another member’s events', async () => {
      const cat = await activeMember(t, 'Cat', { paid: true, credits: 100 });
      const tab = new AbortController();
      const reading = readEvents(await open(ann.cookie, tab.signal), 1, tab, ['message']);
      await waitFor(() => openStreamCount() > 0);
      expect((await send(cat.cookie, bob.profileId, 'cat to bob')).status).toBe(201);
      expect((await send(bob.cookie, cat.profileId, 'bob to cat')).status).toBe(201);
      expect((await send(bob.cookie, ann.profileId, 'to ann')).status).toBe(201);
      const [event] = await reading;
      expect((event.data as { message: { text: string } }).message.text).toBe('to ann');
    });
  });
}

describe('SSE frames', () => {
  it('writes id, event, data and retry lines, splitting data on line breaks', () => {
    expect(sseFrame(7, 'message', '{"a":1}')).toBe('id: 7\nevent: message\ndata: {"a":1}\n\n');
    expect(sseFrame(null, 'ready', '{}', 3000)).toBe('event: ready\ndata: {}\nretry: 3000\n\n');
    expect(sseFrame(1, 'x', 'a\nb')).toBe('id: 1\nevent: x\ndata: a\ndata: b\n\n');
  });
});
