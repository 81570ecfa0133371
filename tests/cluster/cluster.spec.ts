import { randomUUID } from 'node:crypto';
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import sharp from 'sharp';
import { type Cluster, METRICS_TOKEN, linkFromMail, type ProcessName, startCluster } from './cluster';

// Issue 29: one member journey across two app processes behind nginx (round robin, no sticky
// sessions), on PostgreSQL, Redis and the bucket; then a rolling restart during a chat at 50 msg/s.
test.describe.configure({ mode: 'serial' });

const PASSWORD = 'correct horse battery staple';
const other = (name: ProcessName): ProcessName => (name === 'a' ? 'b' : 'a');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: Cluster;
interface Member { email: string; name: string; cookie: string; userId: number; profileId: number }

test.beforeAll(async () => {
  test.setTimeout(240_000);
  cluster = await startCluster();
  console.log(`cluster: nginx ${cluster.url}, processes on ${cluster.processes.a.port} and ${cluster.processes.b.port}, photos in the ${cluster.storage}`);
});
test.afterAll(async () => {
  test.setTimeout(60_000);
  await cluster?.close();
});

/** A request through nginx; `served` is the process that answered. */
async function viaNginx(path: string, init: RequestInit & { cookie?: string; base?: string } = {}) {
  const headers = new Headers(init.headers);
  headers.set('cookie', `${init.cookie ? `${init.cookie}; ` : ''}lang=en`);
  if (init.body && typeof init.body === 'string' && !headers.has('content-type')) headers.set('content-type', 'application/json');
  if (init.method && init.method !== 'GET') headers.set('x-requested-with', 'kindred-client');
  const res = await fetch(`${init.base ?? cluster.url}${path}`, { ...init, headers, redirect: 'manual' });
  return { res, served: cluster.nameOf(res.headers.get('x-upstream')) };
}

/** Round robin alternates: after an answer from the other process, the next request goes to `target`. */
async function steerTo(target: ProcessName) {
  for (let i = 0; i < 6; i++) {
    const { res, served } = await viaNginx('/healthz');
    await res.arrayBuffer();
    if (served !== target) return;
  }
  throw new Error(`nginx never answered from the other process than ${target}`);
}

/** A member signed up through nginx and made active with credits (the signup journey itself is the first test). */
async function member(name: string, gender: 'female' | 'male'): Promise<Member> {
  const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`;
  const { res } = await viaNginx('/api/signup.php', {
    method: 'POST', body: JSON.stringify({ email, name, password: PASSWORD, date_of_birth: gender === 'female' ? '1990-05-01' : '1988-03-03', gender }),
  });
  expect(res.status).toBe(200);
  const { user } = (await res.json()) as { user: { id: number; profile: { id: number } } };
  await cluster.db.query(`update users set status = 'confirmed', credits = 1000000 where id = $1`, [user.id]);
  await cluster.db.query(`update profiles set status = 'active' where user_id = $1`, [user.id]);
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('kd_session=')) as string;
  return { email, name, cookie, userId: user.id, profileId: user.profile.id };
}

/** Counts what the browser's EventSource receives (every connection, chat message ids, reconnect hints). */
function instrumentEventSource(page: Page) {
  return page.addInitScript(() => {
    const stats = { connections: 0, reconnectHints: 0, messageIds: [] as string[] };
    (window as unknown as { __sse: typeof stats }).__sse = stats;
    const Original = window.EventSource;
    window.EventSource = class extends Original {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        this.addEventListener('open', () => stats.connections++);
        this.addEventListener('reconnect', () => stats.reconnectHints++);
        this.addEventListener('message', (e) => stats.messageIds.push((e as MessageEvent).lastEventId));
      }
    } as typeof EventSource;
    localStorage.setItem('hide-entry-warning', String(Date.now()));
  });
}

async function memberPage(browser: Browser, m: Member): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: cluster.url, viewport: { width: 1280, height: 800 } });
  await context.addCookies([
    { name: 'kd_session', value: m.cookie.slice('kd_session='.length), domain: 'localhost', path: '/' },
    { name: 'lang', value: 'en', domain: 'localhost', path: '/' },
  ]);
  const page = await context.newPage();
  await instrumentEventSource(page);
  return { context, page };
}

const live = (page: Page) => expect(page.locator('html')).toHaveAttribute('data-realtime', 'open', { timeout: 15_000 });

/** Open event streams per process, from each one's /metrics. */
async function streamsPerProcess(): Promise<Record<ProcessName, number>> {
  const read = async (name: ProcessName) => {
    const text = await (await fetch(cluster.direct(name, '/metrics'), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    return Number(text.match(/^kindred_event_streams_open (\d+)/m)?.[1] ?? Number.NaN);
  };
  return { a: await read('a'), b: await read('b') };
}

test('health, readiness and metrics: for balancers any host, metrics only with the token', async () => {
  for (const name of ['a', 'b'] as const) {
    const healthz = await fetch(cluster.direct(name, '/healthz'), { headers: { host: '10.1.2.3:4321' } });
    expect(healthz.status).toBe(200);
    const readyz = await fetch(cluster.direct(name, '/readyz'), { headers: { host: '10.1.2.3:4321' } });
    expect(readyz.status).toBe(200);
    const body = (await readyz.json()) as { status: string; checks: Record<string, string> };
    expect(body).toEqual({ status: 'ready', checks: { database: 'ok', redis: 'ok', storage: 'ok' } });
    expect((await fetch(cluster.direct(name, '/metrics'))).status).not.toBe(200);
    expect((await fetch(cluster.direct(name, '/metrics'), { headers: { authorization: 'Bearer wrong' } })).status).not.toBe(200);
    const metrics = await fetch(cluster.direct(name, '/metrics'), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    for (const metric of ['kindred_http_request_duration_seconds_bucket', 'kindred_event_streams_open', 'kindred_event_bus_lag_seconds', 'kindred_jobs{state="pending"}',
      'kindred_job_queue_due', 'kindred_payments_last_24h{state="paid"}', 'kindred_mails_sent_total', 'kindred_photo_decodes{state="waiting"}']) {
      expect(text).toContain(metric);
    }
    // The bus probe went through Redis and came back.
    expect(Number(text.match(/^kindred_event_bus_lag_seconds (\S+)/m)?.[1])).toBeLessThan(2);
  }
  // The public balancer never shows the metrics.
  const { res } = await viaNginx('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(404);
});

test('signup through one process, activation from the mail through the other (Chromium)', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('hide-entry-warning', String(Date.now())));
  await page.goto('/en/');
  const email = `cleo-${randomUUID().slice(0, 8)}@example.com`;
  const signup = await page.evaluate(async ({ email, password }) => {
    const res = await fetch('/api/signup.php', {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'kindred-client' },
      body: JSON.stringify({ email, name: 'Cleo', password, date_of_birth: '1991-02-02', gender: 'female' }),
    });
    return { status: res.status, upstream: res.headers.get('x-upstream') };
  }, { email, password: PASSWORD });
  expect(signup.status).toBe(200);
  const signedUpOn = cluster.nameOf(signup.upstream) as ProcessName;
  expect(signedUpOn).not.toBeNull();
  const link = await linkFromMail(cluster.mail.mails, email, '/api/activate.php?token=');
  await steerTo(other(signedUpOn));
  const activation = page.waitForResponse((r) => r.url().includes('/api/activate.php'));
  await page.goto(link.replace(/^https?:\/\/[^/]+/, ''));
  const activatedOn = cluster.nameOf((await activation).headers()['x-upstream'] ?? null);
  expect(activatedOn).toBe(other(signedUpOn));
  const { rows } = await cluster.db.query('select status from users where email = $1', [email]);
  expect(rows[0]?.status).toBe('confirmed');
  console.log(`signup answered by ${signedUpOn}, activation by ${activatedOn}`);
});

let ann: Member;
let bob: Member;
let annPage: Page;
let bobPage: Page;
let conversationId: number;

test('a chat between two members whose streams sit on different processes, with a photo seen through both', async ({ browser }) => {
  ann = await member('Ann', 'female');
  bob = await member('Bob', 'male');
  annPage = (await memberPage(browser, ann)).page;
  bobPage = (await memberPage(browser, bob)).page;

  await annPage.goto(`/members/${bob.profileId}/chat`);
  await live(annPage);
  const composer = (page: Page) => page.locator('.composer textarea, .composer [role="textbox"]').first();
  await composer(annPage).fill('Hello Bob, across the balancer');
  await composer(annPage).press('Enter');
  await expect(annPage).toHaveURL(/\/chats\/\d+$/);
  conversationId = Number(annPage.url().split('/').pop());

  // Bob's tab connects; reloaded until its stream sits on the other process than Ann's.
  let streams: Record<ProcessName, number> = { a: 0, b: 0 };
  for (let i = 0; i < 10; i++) {
    await bobPage.goto(`/chats/${conversationId}`);
    await live(bobPage);
    await expect.poll(async () => { streams = await streamsPerProcess(); return streams.a + streams.b; }).toBe(2);
    if (streams.a === 1 && streams.b === 1) break;
  }
  expect(streams).toEqual({ a: 1, b: 1 });
  await expect(bobPage.locator('.bubble-row.theirs')).toContainText('Hello Bob, across the balancer');

  await composer(bobPage).fill('Hi Ann, I hear you fine');
  await composer(bobPage).press('Enter');
  await expect(annPage.locator('.bubble-row.theirs')).toContainText('Hi Ann, I hear you fine', { timeout: 5000 });

  // A photo sent through one process shows on the other member's screen, and both processes serve it.
  const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 40, g: 120, b: 200 } } }).png().toBuffer();
  await bobPage.locator('.composer input[type="file"]').setInputFiles({ name: 'lake.png', mimeType: 'image/png', buffer: photo });
  const picture = annPage.locator('.bubble-row.theirs[data-kind="image"] img');
  await expect(picture).toBeVisible({ timeout: 15_000 });
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
  const src = (await picture.getAttribute('src')) as string;
  const bodies: Record<string, string> = {};
  for (const target of ['a', 'b'] as const) {
    await steerTo(target);
    const { res, served } = await viaNginx(src.replace(/^https?:\/\/[^/]+/, ''), { cookie: ann.cookie });
    expect(served).toBe(target);
    expect(res.status).toBe(200);
    bodies[target] = Buffer.from(await res.arrayBuffer()).toString('base64');
  }
  expect(bodies.a).toBe(bodies.b);
  expect(bodies.a.length).toBeGreaterThan(100);
});

test('a payment created through one process, its webhook answered by the other', async () => {
  const buyer = await member('Pia', 'female');
  const credits = (await (await viaNginx('/api/credits.php?country=NL', { cookie: buyer.cookie })).res.json()) as { offers: { bundle: { id: number } }[] };
  for (let attempt = 1; ; attempt++) {
    // By the machine's name: the provider calls webhooks on that origin, not on localhost.
    const created = await viaNginx('/api/payments.php', {
      method: 'POST', cookie: buyer.cookie, base: cluster.namedUrl, body: JSON.stringify({ bundle: credits.offers[0].bundle.id, method: 'ideal', country: 'NL', consent: true }),
    });
    expect(created.res.status).toBe(201);
    const { payment_id, checkout_url } = (await created.res.json()) as { payment_id: number; checkout_url: string };
    const checkout = checkout_url.replace(/^https?:\/\/[^/]+/, '');
    await (await viaNginx(checkout, { base: cluster.namedUrl })).res.text();
    const before = cluster.accessLog().length;
    const chosen = await viaNginx(checkout, {
      base: cluster.namedUrl,
      method: 'POST', body: new URLSearchParams({ outcome: 'paid', issuer: 'ideal_INGBNL2A' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    });
    expect(chosen.res.status).toBeLessThan(400);
    await expect.poll(async () => (await cluster.db.query('select status from payments where id = $1', [payment_id])).rows[0]?.status, { timeout: 15_000 }).toBe('paid');
    const webhook = cluster.accessLog().slice(before).find((line) => line.includes('POST /api/webhooks/mollie.php'));
    const answeredBy = cluster.nameOf(webhook?.match(/upstream=(\S+)/)?.[1] ?? null);
    console.log(`payment ${payment_id} created by ${created.served}, webhook answered by ${answeredBy}`);
    if (answeredBy === other(created.served as ProcessName) || attempt === 3) {
      expect(answeredBy).toBe(other(created.served as ProcessName));
      break;
    }
  }
  const { rows } = await cluster.db.query('select credits from users where id = $1', [buyer.userId]);
  expect(Number(rows[0].credits)).toBeGreaterThan(1_000_000);
});

test('an abuse limit counted across both processes: failed logins block the account on either', async () => {
  // LOGIN_ACCOUNT_FAILURES (5) wrong passwords an account may get, wherever they land; counted per process
  // the block would only come after twice as many (round robin alternates).
  const victim = await member('Vic', 'female');
  const statuses: string[] = [];
  for (let i = 0; i < 10 && !statuses.some((s) => s.startsWith('429')); i++) {
    const { res, served } = await viaNginx('/api/user.php', { method: 'POST', body: JSON.stringify({ email: victim.email, password: 'not the password' }) });
    await res.arrayBuffer();
    statuses.push(`${res.status} ${served}`);
  }
  console.log(`failed logins: ${statuses.join(', ')}`);
  const refused = statuses.filter((s) => s.startsWith('401'));
  expect(new Set(refused.map((s) => s.split(' ')[1]))).toEqual(new Set(['a', 'b']));
  expect(refused.length).toBeLessThanOrEqual(5);
  expect(statuses.at(-1)?.startsWith('429')).toBe(true);
  // Blocked on both, even with the right password.
  for (const target of ['a', 'b'] as const) {
    await steerTo(target);
    const { res, served } = await viaNginx('/api/user.php', { method: 'POST', body: JSON.stringify({ email: victim.email, password: PASSWORD }) });
    expect(served).toBe(target);
    expect(res.status).toBe(429);
  }
});

test('a job held by a process killed with SIGKILL is taken over by the other', async () => {
  const cid = await member('Cid', 'male');
  const dee = await member('Dee', 'female');
  // Dee has an unread message and no open tab: her reminder mail is due. Its mail server holds the answer.
  cluster.mail.stall(dee.email);
  const sent = await viaNginx('/api/messages.php', {
    method: 'POST', cookie: cid.cookie, body: JSON.stringify({ kind: 'text', client_id: randomUUID(), profile_id: dee.profileId, text: 'Are you there?' }),
  });
  expect(sent.res.status).toBe(201);
  const now = Date.now();
  const { rows } = await cluster.db.query(
    `insert into jobs (name, unique_key, payload, status, run_at, attempts, max_attempts, locked_by, lease_until, last_error, created_at, finished_at)
     values ('reminder_mail', $1, $2, 'pending', $3, 0, 5, null, null, null, $3, null) returning id`,
    [`cluster:${randomUUID()}`, JSON.stringify({ userId: dee.userId }), now],
  );
  const jobId = rows[0].id as number;
  let holder: ProcessName | null = null;
  await expect.poll(async () => {
    const job = (await cluster.db.query('select status, locked_by from jobs where id = $1', [jobId])).rows[0];
    const pid = Number(String(job?.locked_by ?? '').split('-')[1]);
    holder = (['a', 'b'] as const).find((name) => cluster.processes[name].child?.pid === pid) ?? null;
    return job?.status === 'running' && holder !== null && cluster.mail.heldCount(dee.email) > 0;
  }, { timeout: 20_000 }).toBe(true);
  const killed = holder as unknown as ProcessName;
  const worker = (await cluster.db.query('select locked_by from jobs where id = $1', [jobId])).rows[0].locked_by as string;
  expect(await cluster.stop(killed, 'SIGKILL')).toBeNull();
  cluster.mail.release(dee.email);
  const mailsBefore = cluster.mail.mails.filter((m) => m.to.includes(dee.email.toLowerCase())).length;

  await expect.poll(async () => (await cluster.db.query('select status from jobs where id = $1', [jobId])).rows[0].status, { timeout: 30_000 }).toBe('done');
  const job = (await cluster.db.query('select locked_by, attempts from jobs where id = $1', [jobId])).rows[0];
  expect(job.locked_by).not.toBe(worker);
  expect(Number(String(job.locked_by).split('-')[1])).toBe(cluster.processes[other(killed)].child?.pid);
  expect(Number(job.attempts)).toBe(2);
  expect(cluster.mail.mails.filter((m) => m.to.includes(dee.email.toLowerCase())).length).toBeGreaterThan(mailsBefore);
  console.log(`job ${jobId}: process ${killed} killed holding it, taken over by ${other(killed)} (attempt 2)`);
  await cluster.start(killed);
});

test('rolling restart of each process during a chat at 50 msg/s: nothing lost, nothing twice on the screens', async () => {
  test.setTimeout(180_000);
  // Both screens on the conversation, connected again after the kill above.
  for (const page of [annPage, bobPage]) {
    await page.goto(`/chats/${conversationId}`);
    await live(page);
  }
  const before = { ann: await screenTexts(annPage), bob: await screenTexts(bobPage) };
  expect(before.ann.filter((t) => /^m[ab]\d+$/.test(t))).toEqual([]);

  // 50 messages a second in all: Ann and Bob on the screens (one in five), the rest in four more conversations
  // between members without a screen. One conversation's sends queue behind each other on PostgreSQL (each locks
  // both participants' rows and the sender's credits), so one pair alone cannot carry 50 a second.
  const pairs: [Member, Member][] = [];
  for (let k = 0; k < 4; k++) pairs.push([await member(`Pa${k}`, 'female'), await member(`Pb${k}`, 'male')]);
  const acked = new Set<string>();
  let retries = 0;
  let failed = 0;
  let sending = true;
  let rate = 0;
  const inFlight = new Set<Promise<void>>();
  async function send(from: Member, to: Member, text: string) {
    const clientId = randomUUID();
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        const { res } = await viaNginx('/api/messages.php', { method: 'POST', cookie: from.cookie, body: JSON.stringify({ kind: 'text', client_id: clientId, profile_id: to.profileId, text }) });
        await res.arrayBuffer();
        if (res.status === 201 || res.status === 200) {
          acked.add(text);
          return;
        }
        if (res.status < 500) throw new Error(`send ${text}: ${res.status}`);
      } catch (err) {
        if (String(err).includes('send ')) throw err;
      }
      retries++;
      await sleep(100);
    }
    failed++;
  }
  const sender = (async () => {
    let seq = 0;
    const started = Date.now();
    while (sending) {
      // At most 50 sends unanswered: a slow machine lowers the rate (printed) instead of piling up requests.
      if (inFlight.size >= 50) {
        await Promise.race([...inFlight]);
        continue;
      }
      seq++;
      // Every fifth send is Ann's or Bob's in turn; each send on its own (a slow answer does not hold the next one).
      const pair = pairs[seq % 5 === 0 ? 0 : (seq % 5) - 1] as [Member, Member];
      const [from, to, text] = seq % 5 === 0
        ? (seq % 10 === 0 ? [bob, ann, `mb${seq}`] : [ann, bob, `ma${seq}`])
        : (seq % 2 ? [pair[0], pair[1], `x${seq}`] : [pair[1], pair[0], `x${seq}`]);
      const p = send(from, to, text).finally(() => inFlight.delete(p));
      inFlight.add(p);
      const next = started + seq * 20;
      await sleep(Math.max(0, next - Date.now()));
    }
    rate = seq / ((Date.now() - started) / 1000);
    return seq;
  })();

  const restarts: string[] = [];
  await sleep(3000);
  for (const name of ['a', 'b'] as const) {
    const t0 = Date.now();
    const code = await cluster.stop(name, 'SIGTERM');
    const stopped = Date.now() - t0;
    await cluster.start(name);
    restarts.push(`${name}: exit ${code} after ${stopped} ms, back after ${Date.now() - t0} ms`);
    expect(code).toBe(0);
    await sleep(3000);
  }
  sending = false;
  const total = await sender;
  await Promise.all([...inFlight]);

  const onScreens = [...acked].filter((t) => /^m[ab]\d+$/.test(t));
  const expected = { ann: onScreens, bob: onScreens };
  const settle = async (page: Page) => {
    await expect.poll(async () => new Set((await screenTexts(page)).filter((t) => acked.has(t))).size, { timeout: 30_000 }).toBe(onScreens.length).catch(() => undefined);
    return screenTexts(page);
  };
  const report: Record<string, unknown>[] = [];
  for (const [who, page] of [['ann', annPage], ['bob', bobPage]] as const) {
    const shown = (await settle(page)).filter((t) => /^m[ab]\d+$/.test(t));
    const unique = new Set(shown);
    const sse = await page.evaluate(() => (window as unknown as { __sse: { connections: number; reconnectHints: number; messageIds: string[] } }).__sse);
    report.push({
      screen: who, sent: expected[who].length, delivered: unique.size, lost: expected[who].filter((t) => !unique.has(t)).length,
      duplicated: shown.length - unique.size, stream_connections: sse.connections, reconnect_hints: sse.reconnectHints,
      stream_events: sse.messageIds.length, stream_unique_events: new Set(sse.messageIds).size,
    });
  }
  console.log(`rolling restart: ${rate.toFixed(1)} msg/s in all (${onScreens.length} of them between Ann and Bob, on the screens), ${total} sends started, ${acked.size} acknowledged, ${retries} retried through the balancer, ${failed} given up; ${restarts.join('; ')}`);
  console.table(report);
  expect(failed).toBe(0);
  expect(acked.size).toBe(total);
  for (const row of report) {
    expect(row.lost).toBe(0);
    expect(row.duplicated).toBe(0);
    // The streams really were sent away and came back (more than the first connection).
    expect(Number(row.stream_connections)).toBeGreaterThan(1);
  }
});

/** The texts of the bubbles on a member's screen (both sides of the conversation). */
function screenTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => [...document.querySelectorAll('.bubble-row:not(.pending) .bubble-text')].map((text) => (text.textContent ?? '').trim()));
}
