import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { getRequestListener } from '@hono/node-server';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABUSE_LIMITS } from '../../src/shared/constants';
import { getT } from '../../src/shared/i18n';
import { createApi } from '../../src/server/api/app';
import { createCompression } from '../../src/server/api/compression';
import { answerSend } from '../../src/server/api/send-fast';
import { requestEndpoint } from '../../src/server/context/request-context';
import type { BusEvent } from '../../src/server/events/bus';
import { activeMember, signupMember } from '../helpers/members';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

// POST /api/messages.php is answered on node:http before Hono on SQLite (src/server/api/send-fast.ts,
// src/server/chat/send-fast.ts), with a few prepared statements and one commit per batch of sends.
// Two twin apps (same members, same ids, same clock) get the same requests: one only through the Hono
// route, one through the node entry's order (fast path first). Answers, the rows every send writes and
// the events published must be the same, every refusal included.

const KINDRED = 'localhost';
const MAENNERHAFEN = 'gay.localhost';

type Raw = { status: number; headers: IncomingHttpHeaders; body: Buffer };
interface Req { cookie?: string; body: unknown; host?: string; headers?: Record<string, string> }

function send(server: Server, { cookie, body, host = KINDRED, headers = {} }: Req): Promise<Raw> {
  const { port } = server.address() as AddressInfo;
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1', port, path: '/api/messages.php', method: 'POST', agent: false,
      headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...(cookie ? { cookie } : {}), ...headers },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** What a client sees: status, every header but the date and connection, the (decoded) body. */
function seen(r: Raw) {
  const { date: _date, connection: _c, 'keep-alive': _k, ...headers } = r.headers;
  let body = r.body;
  if (headers['content-encoding'] === 'gzip') {
    body = gunzipSync(body);
    delete headers['content-length'];
    delete headers['transfer-encoding'];
  }
  return { status: r.status, headers, body: body.toString() };
}

interface Twin {
  t: TestApp;
  server: Server;
  published: BusEvent[];
  /** Push notices started (recorded, not sent), and the member with a subscription. */
  pushed: unknown[];
  pushUserId?: number;
  /** Requests the server handed to Hono, and all requests. */
  handedOn: number;
  requests: number;
}

async function twin(dialect: 'sqlite' | 'postgres', fast: boolean): Promise<Twin> {
  const t = await createTestApp(dialect);
  const published: BusEvent[] = [];
  const pushed: unknown[] = [];
  t.app.push.notify = (userId, type, build) => void pushed.push({ userId, type, payload: build(getT('en')) });
  const publish = t.app.bus.publish.bind(t.app.bus);
  t.app.bus.publish = (events, options) => {
    published.push(...events);
    return publish(events, options);
  };
  const api = getRequestListener(createApi(t.app).fetch);
  const compress = createCompression();
  const deps = { app: t.app, mailer: t.app.mailer, limits: t.app.limits };
  const around = (q: IncomingMessage, r: ServerResponse, next: () => void) => void compress(q as never, r as never, next);
  const self: Twin = { t, server: undefined as unknown as Server, published, pushed, handedOn: 0, requests: 0 };
  self.server = createServer((req, res) => {
    self.requests++;
    const toApi = () => {
      self.handedOn++;
      around(req, res, () => void api(req, res));
    };
    if (!fast) return toApi();
    const endpoint = requestEndpoint({ headers: req.headers, remoteAddress: req.socket.remoteAddress }, t.app.config);
    // As createApiNodeListener(app, compression, { encodesLikeAround: true }) in the server entry.
    if (!answerSend(deps, t.app.sites, req, res, endpoint, { around, encodes: true }, toApi)) toApi();
  });
  await new Promise<void>((r) => self.server.listen(0, '127.0.0.1', r));
  return self;
}

/** The member's message_minute count (rate_limits, the limiter's own row). */
async function limitCount(t: TestApp, userId: number) {
  const r = await sql<{ points: number }>`select points from rate_limits where key = ${`abuse_message_minute:${userId}`}`.execute(t.app.db.db);
  return Number(r.rows[0]?.points ?? 0);
}

/** The one member with a push subscription. */
const pushUser = (x: Twin) => x.pushUserId;

/** Every row a send writes or reads for its rules, in a comparable order. */
async function rows(t: TestApp) {
  const db = t.app.db.db;
  return {
    messages: await db.selectFrom('messages').selectAll().orderBy('id').execute(),
    conversations: await db.selectFrom('conversations').selectAll().orderBy('id').execute(),
    participants: await db.selectFrom('chat_participants').selectAll().orderBy('conversation_id').orderBy('profile_id').execute(),
    ledger: await db.selectFrom('credit_ledger').select(['id', 'user_id', 'delta', 'reason', 'idempotency_key', 'balance_after', 'created_at']).orderBy('id').execute(),
    events: await db.selectFrom('events').selectAll().orderBy('id').execute(),
    credits: await db.selectFrom('users').select(['id', 'credits', 'paid_user']).orderBy('id').execute(),
    digests: await db.selectFrom('mail_digests').selectAll().orderBy('user_id').orderBy('type').execute(),
    jobs: await db.selectFrom('jobs').select(['name', 'payload', 'run_at']).orderBy('id').execute(),
    // The abuse limits' counts (their expiry follows the wall clock, not the test clock).
    limits: await sql<{ key: string; points: number }>`select key, points from rate_limits order by key`.execute(db).then((r) => r.rows),
  };
}

for (const dialect of DIALECTS) {
  describe(`chat sends on node:http before Hono (${dialect})`, () => {
    let hono: Twin;
    let fast: Twin;
    beforeAll(async () => {
      [hono, fast] = await Promise.all([twin(dialect, false), twin(dialect, true)]);
    });
    afterAll(async () => {
      for (const x of [hono, fast]) {
        await new Promise((r) => x.server.close(r));
        await x.t.close();
      }
    });

    it('answers, stores, charges and publishes exactly what the Hono route does, refusals included', async () => {
      /**
       * The same members in both apps, created in the same order (same ids); returns the steps' requests
       * with the expected status of each, built from that app's cookies and ids.
       */
      const setup = async (t: TestApp) => {
        const db = t.app.db.db;
        const ann = await activeMember(t, 'Ann', { paid: true, credits: 1000 });
        const bob = await activeMember(t, 'Bob', { gender: 'male', credits: 100 });
        const cat = await activeMember(t, 'Cat', { credits: 0 });
        const dan = await activeMember(t, 'Dan', { gender: 'male', credits: 100 });
        const eve = await activeMember(t, 'Eve', { credits: 100 });
        const fay = await activeMember(t, 'Fay', { credits: 100 });
        const ivy = await activeMember(t, 'Ivy', { credits: 100 });
        const zed = await activeMember(t, 'Zed', { paid: true, credits: 1000 });
        const rae = await activeMember(t, 'Rae', { paid: true, credits: 1000 });
        await db.updateTable('profiles').set({ invisible: 1 }).where('id', '=', ivy.profileId).execute();
        const uma = await signupMember(t, 'Uma'); // not confirmed
        await db.updateTable('users').set({ credits: 100 }).where('id', '=', uma.userId).execute();
        await db.updateTable('profiles').set({ status: 'active', country: 'NL' }).where('id', '=', uma.profileId).execute();
        const off = await activeMember(t, 'Off', { credits: 100 });
        await db.updateTable('profiles').set({ status: 'disabled' }).where('id', '=', off.profileId).execute();
        const gone = await activeMember(t, 'Gone', { credits: 100 });
        await db.updateTable('profiles').set({ status: 'deleted' }).where('id', '=', gone.profileId).execute();
        // An operator-run profile: no member behind it, so only the sender's event.
        const fictional = await db.insertInto('profiles').values({
          site_id: t.app.sites.forHost(KINDRED).id, user_id: null, name: 'Fiona', gender: 'female', sexuality: 'hetero', birth_date: '1990-01-01', country: 'NL',
          region: null, city: null, hair_color: null, eye_color: null, body_type: null, relationship_status: null, tattoos: null, about: null,
          fictional: 1, invisible: 0, status: 'active', last_active_at: 0, created_at: 0,
        }).returning('id').executeTakeFirstOrThrow();
        // Männerhafen: premium members chat at zero credits there.
        const hansRes = await t.request('/api/signup.php', {
          host: `${MAENNERHAFEN}:4321`, method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=de' },
          body: JSON.stringify({ email: 'hans@example.com', name: 'Hans', password: 'correct horse battery', date_of_birth: '1990-05-01', gender: 'male' }),
        });
        const hansUser = (await hansRes.json()).user as { id: number; profile: { id: number } };
        const hans = { cookie: `${hansRes.headers.get('set-cookie')!.split(';')[0]}; lang=de`, profileId: hansUser.profile.id };
        const otto = await signupMember(t, 'Otto');
        for (const [u, paid] of [[hansUser.id, 1], [otto.userId, 0]] as const) {
          await db.updateTable('users').set({ status: 'confirmed', paid_user: paid, credits: 0 }).where('id', '=', u).execute();
        }
        await db.updateTable('profiles').set({ status: 'active', country: 'DE', site_id: t.app.sites.forHost(MAENNERHAFEN).id }).where('id', 'in', [otto.profileId, hans.profileId]).execute();
        await db.updateTable('users').set({ site_id: t.app.sites.forHost(MAENNERHAFEN).id }).where('id', '=', otto.userId).execute();
        // Bob gets push notices; Fay has a tab open (no notice mail then).
        await db.insertInto('push_subscriptions').values({ user_id: bob.userId, endpoint: 'https://push.example/bob', p256dh: 'k', auth: 'a', created_at: 0 }).execute();
        for (const x of [hono, fast]) if (x.t === t) x.pushUserId = bob.userId;
        await db.insertInto('member_presence').values({ process_id: 'elsewhere', user_id: fay.userId, seen_at: t.clock.now() }).execute();
        // Ann blocked Dan; Eve blocked Ann.
        await db.insertInto('blocks').values([
          { blocker_profile_id: ann.profileId, blocked_profile_id: dan.profileId, created_at: 0 },
          { blocker_profile_id: eve.profileId, blocked_profile_id: ann.profileId, created_at: 0 },
        ]).execute();

        const text = (to: Record<string, number>, id: string, words = `hello ${id}`) => ({ kind: 'text', client_id: `client-${id}`, text: words, ...to });
        const steps: [string, Req | ((conversations: number[]) => Req), number][] = [
          ['first message, new conversation', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a1') }, 201],
          ['the same client_id again: stored once, charged once', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a1') }, 201],
          ['a reply by conversation id, charged', (c) => ({ cookie: bob.cookie, body: text({ conversation: c[0] }, 'b1') }), 201],
          ['a gift', (c) => ({ cookie: bob.cookie, body: { kind: 'gift', gift: 'chocolates', client_id: 'client-b2', conversation: c[0] } }), 201],
          ['an unknown gift', (c) => ({ cookie: bob.cookie, body: { kind: 'gift', gift: 'yacht', client_id: 'client-b3', conversation: c[0] } }), 400],
          ['text with surrounding space, trimmed', (c) => ({ cookie: ann.cookie, body: text({ conversation: c[0] }, 'a2', '  trimmed  ') }), 201],
          ['a long text (answer above 1 KB, compressed)', (c) => ({ cookie: ann.cookie, body: text({ conversation: c[0] }, 'a3', 'x'.repeat(990)), headers: { 'accept-encoding': 'gzip' } }), 201],
          ['too long for the site', (c) => ({ cookie: ann.cookie, body: text({ conversation: c[0] }, 'a4', 'x'.repeat(1001)) }), 400],
          ['empty text', (c) => ({ cookie: ann.cookie, body: text({ conversation: c[0] }, 'a5', '   ') }), 400],
          ['no credits', { cookie: cat.cookie, body: text({ profile_id: ann.profileId }, 'c1') }, 402],
          ['free member, first started conversation', { cookie: bob.cookie, body: text({ profile_id: fay.profileId }, 'b4') }, 201],
          ['free member, second started conversation', { cookie: bob.cookie, body: text({ profile_id: dan.profileId }, 'b5') }, 201],
          ['free member, third started conversation: the limit', { cookie: bob.cookie, body: text({ profile_id: eve.profileId }, 'b6') }, 403],
          ['blocked', { cookie: ann.cookie, body: text({ profile_id: dan.profileId }, 'a6') }, 403],
          ['blocked by the partner', { cookie: ann.cookie, body: text({ profile_id: eve.profileId }, 'a7') }, 403],
          ['the blocked member writes', { cookie: dan.cookie, body: text({ profile_id: ann.profileId }, 'd1') }, 403],
          ['invisible members are not written to first', { cookie: ann.cookie, body: text({ profile_id: ivy.profileId }, 'a8') }, 403],
          ['an invisible member writes', { cookie: ivy.cookie, body: text({ profile_id: ann.profileId }, 'i1') }, 201],
          ['and is answered', { cookie: ann.cookie, body: text({ profile_id: ivy.profileId }, 'a9') }, 201],
          ['an unconfirmed member wrote: no answer until confirmed', { cookie: zed.cookie, body: text({ profile_id: uma.profileId }, 'a10') }, 403],
          ['a disabled profile', { cookie: zed.cookie, body: text({ profile_id: off.profileId }, 'a11') }, 403],
          ['a deleted profile', { cookie: zed.cookie, body: text({ profile_id: gone.profileId }, 'a12') }, 404],
          ['a fictional profile', { cookie: zed.cookie, body: text({ profile_id: fictional.id }, 'a13') }, 201],
          ['oneself', { cookie: zed.cookie, body: text({ profile_id: zed.profileId }, 'a14') }, 400],
          ['an unknown conversation', { cookie: zed.cookie, body: text({ conversation: 999_999 }, 'a15') }, 404],
          ['another member\'s conversation', (c) => ({ cookie: cat.cookie, body: text({ conversation: c[0] }, 'c2') }), 404],
          ['a profile of another site', { cookie: zed.cookie, body: text({ profile_id: otto.profileId }, 'a16') }, 404],
          ['a session of another site', { cookie: zed.cookie, host: MAENNERHAFEN, body: text({ profile_id: hans.profileId }, 'a17') }, 403],
          ['premium at zero credits where the site allows it', { cookie: hans.cookie, host: MAENNERHAFEN, body: text({ profile_id: otto.profileId }, 'h1') }, 201],
          ['free at zero credits there', { cookie: otto.cookie, host: MAENNERHAFEN, body: text({ profile_id: hans.profileId }, 'o1') }, 402],
          ['no session', { body: text({ profile_id: bob.profileId }, 'x1') }, 403],
          ['a body above the limit', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a18', 'y'.repeat(2_000_000)) }, 413],
          ['not JSON', { cookie: ann.cookie, body: '{"kind":' }, 400],
          ['wrong types: profile_id a string', { cookie: ann.cookie, body: { kind: 'text', client_id: 'client-a19', profile_id: String(bob.profileId), text: 'x' } }, 400],
          ['wrong types: text a number', { cookie: ann.cookie, body: { kind: 'text', client_id: 'client-a20', profile_id: bob.profileId, text: 42 } }, 400],
          ['wrong kind', { cookie: ann.cookie, body: { kind: 'image', client_id: 'client-a21', profile_id: bob.profileId } }, 400],
          ['both targets', (c) => ({ cookie: ann.cookie, body: { ...text({ profile_id: bob.profileId }, 'a22'), conversation: c[0] } }), 400],
          ['a short client_id', { cookie: ann.cookie, body: { kind: 'text', client_id: 'x', profile_id: bob.profileId, text: 'x' } }, 400],
          ['an array', { cookie: ann.cookie, body: [] }, 400],
          ['not JSON by type', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a23'), headers: { 'content-type': 'text/plain' } }, 415],
          ['cross-site', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a24'), headers: { 'sec-fetch-site': 'cross-site' } }, 403],
          ['another origin', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a25'), headers: { origin: 'https://evil.example' } }, 403],
          ['the same origin', { cookie: ann.cookie, body: text({ profile_id: bob.profileId }, 'a26'), headers: { origin: 'http://localhost' } }, 201],
          ['in German', { cookie: 'lang=de; ' + cat.cookie.split(';')[0], body: text({ profile_id: ann.profileId }, 'c3') }, 402],
        ];
        // Rate limit: 20 sends a minute per member (ABUSE_LIMITS.message_minute); the 21st is refused.
        for (let k = 0; k < 20; k++) steps.push([`rate ${k}`, { cookie: rae.cookie, body: text({ profile_id: bob.profileId }, `f${k}`) }, 201]);
        steps.push(['over the message rate', { cookie: rae.cookie, body: text({ profile_id: bob.profileId }, 'f-over') }, 429]);
        steps.push(['over the rate, a repeat is still answered', { cookie: rae.cookie, body: text({ profile_id: bob.profileId }, 'f0') }, 201]);
        return steps;
      };

      const run = async (x: Twin) => {
        const steps = await setup(x.t);
        const answers: { step: string; status: number; answer: ReturnType<typeof seen> }[] = [];
        const conversations: number[] = [];
        for (const [step, req, status] of steps) {
          const r = await send(x.server, typeof req === 'function' ? req(conversations) : req).catch((err) => {
            throw new Error(`${step}: ${err}`);
          });
          const answer = seen(r);
          if (r.status === 201 && conversations.length === 0) conversations.push(JSON.parse(answer.body).conversation_id);
          answers.push({ step, status, answer });
        }
        await x.t.app.push.idle();
        return answers;
      };
      // One after the other: the ids of both apps stay the same.
      const viaHono = await run(hono);
      const handedBefore = fast.handedOn;
      const viaFast = await run(fast);

      for (const [k, a] of viaHono.entries()) {
        expect(a.answer.status, a.step).toBe(a.status);
        expect(viaFast[k].answer, a.step).toEqual(a.answer);
      }
      // Translated refusals: the German member is told in German, the same in both.
      expect(JSON.parse(viaFast.find((a) => a.step === 'in German')!.answer.body).message).not.toBe(JSON.parse(viaFast.find((a) => a.step === 'no credits')!.answer.body).message);
      expect(await rows(fast.t)).toEqual(await rows(hono.t));
      expect(fast.published).toEqual(hono.published);
      // Push notices that reach someone: the push service sends only to members with a subscription (Bob);
      // for the others the fast path skips the call the service would end after its lookup.
      const reaching = (x: Twin) => x.pushed.filter((p) => (p as { userId: number }).userId === pushUser(x));
      expect(reaching(fast)).toEqual(reaching(hono));
      expect(reaching(hono).length).toBeGreaterThan(3);
      if (dialect === 'sqlite') expect(fast.pushed.every((p) => (p as { userId: number }).userId === pushUser(fast))).toBe(true);
      expect(fast.published.length).toBeGreaterThan(10);

      // Who answered: on SQLite every plain send of a member with a session is the fast path's; on PostgreSQL Hono answers all.
      const answeredFast = fast.requests - handedBefore - (fast.handedOn - handedBefore);
      const sent = viaFast.filter((a) => a.answer.status === 201).length;
      if (dialect === 'sqlite') {
        // The 201s, less the one through another origin (Hono compares it) — and nothing else.
        expect(answeredFast).toBe(sent - 1);
      } else {
        expect(answeredFast).toBe(0);
      }
    });

    // SQLite's one connection: the send waits for the open transaction (PostgreSQL reads beside it).
    it.runIf(dialect === 'sqlite')('checks the rules in the transaction that writes: a block committed while the send waited refuses it, counted once', async () => {
      const t = fast.t;
      const db = t.app.db.db;
      const sam = await activeMember(t, 'Sam', { paid: true, credits: 100 });
      const tia = await activeMember(t, 'Tia', { credits: 100 });
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      let opened!: () => void;
      const isOpen = new Promise<void>((r) => { opened = r; });
      // Tia blocks Sam in a transaction that commits while Sam's send waits for the connection.
      const blocking = db.transaction().execute(async (trx) => {
        await trx.insertInto('blocks').values({ blocker_profile_id: tia.profileId, blocked_profile_id: sam.profileId, created_at: 0 }).execute();
        opened();
        await held;
      });
      await isOpen;
      const handed = fast.handedOn;
      const answer = send(fast.server, { cookie: sam.cookie, body: { kind: 'text', client_id: 'client-race-1', profile_id: tia.profileId, text: 'hi' } });
      await new Promise((r) => setTimeout(r, 100));
      release();
      await blocking;
      const r = await answer;
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body.toString()).error).toBe('blocked_by');
      // The fast path refused it in its transaction, counting nothing, and the route answered it.
      expect(fast.handedOn).toBe(handed + 1);
      expect(await limitCount(t, sam.userId)).toBe(1);
      expect(await db.selectFrom('messages').select('id').where('client_id', '=', 'client-race-1').execute()).toEqual([]);
      expect((await db.selectFrom('users').select('credits').where('id', '=', sam.userId).executeTakeFirstOrThrow()).credits).toBe(100);
    });

    it('with the limit counted by the limiter first (its counts elsewhere, as with Redis), a block made meanwhile still refuses the send', async () => {
      const t = fast.t;
      const db = t.app.db.db;
      const sam = await activeMember(t, 'Sid', { paid: true, credits: 100 });
      const tia = await activeMember(t, 'Tea', { credits: 100 });
      const abuse = t.app.abuse;
      let counted = 0;
      t.app.abuse = {
        // No in-transaction count: the fast path counts through the limiter before it writes.
        async consume(name, key) {
          if (name === 'message_minute' && key === String(sam.userId)) {
            counted++;
            // Tia blocks Sam while Sam's send waits for the limiter (after its first check passed).
            if (counted === 1) await db.insertInto('blocks').values({ blocker_profile_id: tia.profileId, blocked_profile_id: sam.profileId, created_at: 0 }).execute();
          }
          return abuse.consume(name, key);
        },
      };
      try {
        const handed = fast.handedOn;
        const r = await send(fast.server, { cookie: sam.cookie, body: { kind: 'text', client_id: 'client-race-2', profile_id: tia.profileId, text: 'hi' } });
        expect(r.status).toBe(403);
        expect(JSON.parse(r.body.toString()).error).toBe('blocked_by');
        // The fast path let it go to the route, which counted the limit again (stricter, never looser).
        expect(fast.handedOn).toBe(handed + 1);
        expect(counted).toBe(dialect === 'sqlite' ? 2 : 1);
        expect(await db.selectFrom('messages').select('id').where('client_id', '=', 'client-race-2').execute()).toEqual([]);
        expect((await db.selectFrom('users').select('credits').where('id', '=', sam.userId).executeTakeFirstOrThrow()).credits).toBe(100);
        // And a plain send still works that way.
        const ok = await send(fast.server, { cookie: sam.cookie, body: { kind: 'text', client_id: 'client-race-3', profile_id: (await activeMember(t, 'Una', { credits: 0 })).profileId, text: 'hi' } });
        expect(ok.status).toBe(201);
        expect(counted).toBe(dialect === 'sqlite' ? 3 : 2);
      } finally {
        t.app.abuse = abuse;
      }
    });

    it('shares one message_minute counter with the Hono route, exactly as strict, in parallel too', async () => {
      const t = fast.t;
      const db = t.app.db.db;
      const { points } = ABUSE_LIMITS.message_minute;
      const wes = await activeMember(t, 'Wes', { paid: true, credits: 10_000 });
      const xia = await activeMember(t, 'Xia', { credits: 0 });
      const body = (id: string) => ({ kind: 'text', client_id: `client-shared-${id}`, profile_id: xia.profileId, text: `shared ${id}` });
      // Alternately through the route alone and through the fast path: one count.
      const handed = fast.handedOn;
      for (let k = 0; k < points; k++) {
        const r = k % 2 === 0
          ? await t.request('/api/messages.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: wes.cookie }, body: JSON.stringify(body(String(k))) })
          : await send(fast.server, { cookie: wes.cookie, body: body(String(k)) });
        expect(r.status, `send ${k}`).toBe(201);
      }
      if (dialect === 'sqlite') expect(fast.handedOn).toBe(handed);
      expect(await limitCount(t, wes.userId)).toBe(points);
      // Past the limit, through either: the route's 429 (counted once by the route), nothing stored.
      const over = await send(fast.server, { cookie: wes.cookie, body: body('over') });
      expect(over.status).toBe(429);
      expect(JSON.parse(over.body.toString()).error).toBe('rate_limited');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect(await limitCount(t, wes.userId)).toBe(points + 1);
      expect((await t.request('/api/messages.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: wes.cookie }, body: JSON.stringify(body('over-2')) })).status).toBe(429);
      expect(await limitCount(t, wes.userId)).toBe(points + 2);
      // A repeat is still answered, and not counted.
      expect((await send(fast.server, { cookie: wes.cookie, body: body('1') })).status).toBe(201);
      expect(await limitCount(t, wes.userId)).toBe(points + 2);
      expect(await db.selectFrom('messages').select('id').where('sender_profile_id', '=', wes.profileId).execute()).toHaveLength(points);

      // One member's parallel sends (most of them in one batch): exactly `points` stored, the rest the route's 429.
      const yve = await activeMember(t, 'Yve', { paid: true, credits: 10_000 });
      const answers = await Promise.all(Array.from({ length: points + 5 }, (_, k) =>
        send(fast.server, { cookie: yve.cookie, body: { ...body(`p${k}`), client_id: `client-parallel-limit-${k}` } })));
      expect(answers.map((a) => a.status).sort()).toEqual([...Array(points).fill(201), ...Array(5).fill(429)]);
      expect(await db.selectFrom('messages').select('id').where('sender_profile_id', '=', yve.profileId).execute()).toHaveLength(points);
      // (PostgreSQL's limiter store replaces the row when it blocks, so parallel counts past the limit may be lost there.)
      if (dialect === 'sqlite') expect(await limitCount(t, yve.userId)).toBe(points + 5);
    });

    it('waits for an open Kysely transaction and writes nothing into it (its rollback keeps the message)', async () => {
      const t = fast.t;
      const db = t.app.db.db;
      const uli = await activeMember(t, 'Uli', { paid: true, credits: 100 });
      const vic = await activeMember(t, 'Vic', { credits: 100 });
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      let opened!: () => void;
      const isOpen = new Promise<void>((r) => { opened = r; });
      // Another request's transaction, open across an await (as Kysely holds SQLite's one connection).
      const other = db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ credits: 7 }).where('id', '=', vic.userId).execute();
        opened();
        await held;
        throw new Error('rolled back');
      }).catch((err: Error) => err.message);
      await isOpen;
      const handed = fast.handedOn;
      const answer = send(fast.server, { cookie: uli.cookie, body: { kind: 'text', client_id: 'client-held-1', profile_id: vic.profileId, text: 'hi' } });
      await new Promise((r) => setTimeout(r, 100));
      release();
      expect(await other).toBe('rolled back');
      const r = await answer;
      expect(r.status).toBe(201);
      // On SQLite the fast path answered it itself, after the transaction ended.
      expect(fast.handedOn).toBe(dialect === 'sqlite' ? handed : handed + 1);
      expect(await db.selectFrom('messages').select('id').where('client_id', '=', 'client-held-1').execute()).toHaveLength(1);
      expect((await db.selectFrom('users').select('credits').where('id', '=', vic.userId).executeTakeFirstOrThrow()).credits).toBe(100);
      expect((await db.selectFrom('users').select('credits').where('id', '=', uli.userId).executeTakeFirstOrThrow()).credits).toBe(90);
    });

    // SQLite's checkpoints run on a worker thread (src/server/db/checkpointer.ts).
    it.runIf(dialect === 'sqlite')('writes nothing while a checkpoint runs, then answers', async () => {
      const t = fast.t;
      const db = t.app.db.db;
      const checkpoints = t.app.db.raw.checkpoints!;
      const running = checkpoints.running;
      const ada = await activeMember(t, 'Ada', { paid: true, credits: 100 });
      const ben = await activeMember(t, 'Ben', { credits: 0 });
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      let holding = true;
      checkpoints.running = () => (holding ? held : null);
      try {
        const answer = send(fast.server, { cookie: ada.cookie, body: { kind: 'text', client_id: 'client-ckpt-1', profile_id: ben.profileId, text: 'hi' } });
        await new Promise((r) => setTimeout(r, 100));
        expect(await db.selectFrom('messages').select('id').where('client_id', '=', 'client-ckpt-1').execute()).toEqual([]);
        holding = false;
        release();
        expect((await answer).status).toBe(201);
        expect(await db.selectFrom('messages').select('id').where('client_id', '=', 'client-ckpt-1').execute()).toHaveLength(1);
      } finally {
        checkpoints.running = running;
      }
    });

    it('charges exactly once and never below zero when one member sends in parallel', async () => {
      for (const x of [hono, fast]) {
        const t = x.t;
        const a = await activeMember(t, 'Paula', { credits: 35, paid: true });
        const b = await activeMember(t, 'Quinn', { credits: 0 });
        // Ten sends at once, five of them repeats of one client_id: 3 distinct paid messages fit (10 each).
        const bodies = Array.from({ length: 10 }, (_, k) => ({ kind: 'text', client_id: `parallel-${k < 5 ? 'same' : k}`, profile_id: b.profileId, text: `p${k}` }));
        const answers = await Promise.all(bodies.map((body) => send(x.server, { cookie: a.cookie, body })));
        const statuses = answers.map((r) => r.status).sort();
        const db = t.app.db.db;
        const messages = await db.selectFrom('messages').selectAll().where('sender_profile_id', '=', a.profileId).execute();
        const credits = (await db.selectFrom('users').select('credits').where('id', '=', a.userId).executeTakeFirstOrThrow()).credits;
        const ledger = await db.selectFrom('credit_ledger').select('delta').where('user_id', '=', a.userId).where('reason', '=', 'message').execute();
        expect(messages.length).toBe(3);
        expect(credits).toBe(5);
        expect(ledger.map((l) => l.delta)).toEqual([-10, -10, -10]);
        expect(statuses.filter((s) => s !== 201).every((s) => s === 402)).toBe(true);
        const sameAnswers = answers.slice(0, 5).filter((r) => r.status === 201).map((r) => JSON.parse(r.body.toString()).message.id);
        expect(new Set(sameAnswers).size).toBeLessThanOrEqual(1);
      }
    });
  });
}
