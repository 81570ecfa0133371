import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql } from 'kysely';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../app-context';
import { EVENTS_PATH, openStreamCount } from '../events/event-stream';
import { photoDecodeLoad } from '../photos/photos.service';

/** How long the bus probe waits for its own event before it counts as lost. */
export const BUS_PROBE_TIMEOUT_MS = 2000;

/** What a request is, for the request metrics: a handful of values, never the path itself. */
export type RouteKind = 'api' | 'events' | 'page' | 'static' | 'uploads';

export function routeKind(url: string): RouteKind {
  if (url.startsWith(EVENTS_PATH) && (url.length === EVENTS_PATH.length || url[EVENTS_PATH.length] === '?')) return 'events';
  if (url.startsWith('/api/') || url === '/api') return 'api';
  if (url.startsWith('/uploads/')) return 'uploads';
  const path = url.split('?', 1)[0] ?? url;
  if (path.startsWith('/_astro/') || /\.[a-z0-9]{1,12}$/i.test(path)) return 'static';
  return 'page';
}

/** True when the request carries `Authorization: Bearer <METRICS_TOKEN>`; always false without a token. */
export function metricsAllowed(req: IncomingMessage, token: string | null): boolean {
  if (!token) return false;
  const given = req.headers.authorization;
  if (typeof given !== 'string' || !given.startsWith('Bearer ')) return false;
  const a = Buffer.from(given.slice('Bearer '.length).trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

/** A gauge read from the database keeps its last value when the query fails: the other metrics still go out. */
function guarded<T>(logger: AppContext['logger'], name: string, collect: (this: T) => Promise<void>) {
  return async function (this: T) {
    try {
      await collect.call(this);
    } catch (err) {
      logger.warn({ err, metric: name }, 'metric not collected');
    }
  };
}

/**
 * The process's Prometheus metrics (prom-client, one registry per server). What each one means
 * and when to alert: docs/operations.md.
 */
export function createMetrics(app: AppContext) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const db = app.db.db;

  const requests = new Histogram({
    name: 'kindred_http_request_duration_seconds',
    help: 'Time from a request to the end of its answer, by route kind (api, page, static, uploads) and status class; event streams are counted in kindred_event_streams_opened_total instead',
    labelNames: ['kind', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const streamsOpened = new Counter({
    name: 'kindred_event_streams_opened_total', help: 'Event stream requests (GET /api/events.php) this process answered', registers: [registry],
  });
  new Gauge({
    name: 'kindred_event_streams_open', help: 'Event streams (open member tabs) connected to this process', registers: [registry],
    collect() {
      this.set(openStreamCount());
    },
  });

  // The bus lag: a probe event published to this process's own channel and timed until it arrives (through Redis when configured).
  const probeUser = -Math.max(1, process.pid);
  const waiting = new Map<string, (at: number) => void>();
  let probe: ReturnType<AppContext['bus']['subscribe']> | null = null;
  const busProbeFailures = new Counter({
    name: 'kindred_event_bus_probe_failures_total', help: `Bus probes that did not come back within ${BUS_PROBE_TIMEOUT_MS} ms`, registers: [registry],
  });
  new Gauge({
    name: 'kindred_event_bus_lag_seconds', help: 'Time an event took from publish to delivery in this process, measured by a probe at each scrape', registers: [registry],
    collect: guarded<Gauge>(app.logger, 'kindred_event_bus_lag_seconds', async function () {
      probe ??= app.bus.subscribe(probeUser, (event) => waiting.get(event.data)?.(Date.now()));
      await probe.ready;
      const token = `${Date.now()}-${Math.random()}`;
      const sent = Date.now();
      const arrived = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), BUS_PROBE_TIMEOUT_MS);
        waiting.set(token, (at) => {
          clearTimeout(timer);
          resolve(at);
        });
        app.bus.publish([{ userId: probeUser, id: 0, type: 'probe', data: token }]).catch(() => undefined);
      });
      waiting.delete(token);
      if (arrived === null) busProbeFailures.inc();
      this.set(((arrived ?? sent + BUS_PROBE_TIMEOUT_MS) - sent) / 1000);
    }),
  });

  new Gauge({
    name: 'kindred_jobs', help: 'Jobs in the queue by state (pending, running, failed; done ones are not counted), all processes', labelNames: ['state'] as const, registers: [registry],
    collect: guarded<Gauge>(app.logger, 'kindred_jobs', async function () {
      const rows = await db.selectFrom('jobs').select(['status', sql<number>`count(*)`.as('n')]).where('status', '!=', 'done').groupBy('status').execute();
      this.reset();
      for (const state of ['pending', 'running', 'failed']) this.set({ state }, 0);
      for (const row of rows) this.set({ state: row.status }, Number(row.n));
    }),
  });
  new Gauge({
    name: 'kindred_job_queue_due', help: 'Jobs due now and not yet taken (their time has come, or their runner died), all processes', registers: [registry],
    collect: guarded<Gauge>(app.logger, 'kindred_job_queue_due', async function () {
      const now = app.clock.now();
      const row = await db.selectFrom('jobs').select(sql<number>`count(*)`.as('n'))
        .where((eb) => eb.or([
          eb.and([eb('status', '=', 'pending'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)]),
        ])).executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    }),
  });
  new Gauge({
    name: 'kindred_job_queue_oldest_due_seconds', help: 'How long the oldest pending due job has waited (0: none waits)', registers: [registry],
    collect: guarded<Gauge>(app.logger, 'kindred_job_queue_oldest_due_seconds', async function () {
      const now = app.clock.now();
      const row = await db.selectFrom('jobs').select(sql<number | null>`min(run_at)`.as('oldest'))
        .where('status', '=', 'pending').where('run_at', '<=', now).executeTakeFirst();
      this.set(row?.oldest == null ? 0 : Math.max(0, (now - Number(row.oldest)) / 1000));
    }),
  });
  new Gauge({
    name: 'kindred_jobs_failed_last_hour', help: 'Jobs that failed for good (every attempt used) in the last hour, all processes', registers: [registry],
    collect: guarded<Gauge>(app.logger, 'kindred_jobs_failed_last_hour', async function () {
      const since = app.clock.now() - 3600_000;
      const row = await db.selectFrom('jobs').select(sql<number>`count(*)`.as('n')).where('status', '=', 'failed').where('finished_at', '>=', since).executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    }),
  });

  const PAYMENT_STATES = ['open', 'pending', 'paid', 'failed', 'canceled', 'expired', 'refunded', 'charged_back'];
  new Gauge({
    name: 'kindred_payments_last_24h', help: 'Payments created in the last 24 hours by their state now, all sites', labelNames: ['state'] as const, registers: [registry],
    collect: guarded<Gauge>(app.logger, 'kindred_payments_last_24h', async function () {
      const since = app.clock.now() - 24 * 3600_000;
      const rows = await db.selectFrom('payments').select(['status', sql<number>`count(*)`.as('n')]).where('created_at', '>=', since).groupBy('status').execute();
      this.reset();
      for (const state of PAYMENT_STATES) this.set({ state }, 0);
      for (const row of rows) this.set({ state: row.status }, Number(row.n));
    }),
  });

  const mailsSent = new Counter({ name: 'kindred_mails_sent_total', help: 'Mails this process handed to the mail server (or the development mailbox)', registers: [registry] });
  const mailFailures = new Counter({ name: 'kindred_mail_failures_total', help: 'Mails the mail server refused or could not take from this process', registers: [registry] });
  const send = app.mailer.send.bind(app.mailer);
  app.mailer.send = async (mail) => {
    try {
      await send(mail);
      mailsSent.inc();
    } catch (err) {
      mailFailures.inc();
      throw err;
    }
  };

  new Gauge({
    name: 'kindred_photo_decodes', help: 'Photo and chat-image decodes in this process: running, and waiting for a slot (PHOTO_DECODE_CONCURRENCY)', labelNames: ['state'] as const, registers: [registry],
    collect() {
      const load = photoDecodeLoad();
      this.set({ state: 'running' }, load.running);
      this.set({ state: 'waiting' }, load.waiting);
    },
  });

  return {
    registry,
    /** Times a request from now to the end of its answer (event streams are only counted). */
    observe(req: IncomingMessage, res: ServerResponse) {
      const kind = routeKind(req.url ?? '/');
      if (kind === 'events') {
        streamsOpened.inc();
        return;
      }
      const end = requests.startTimer({ kind });
      res.once('finish', () => end({ status: statusClass(res.statusCode) }));
    },
    async send(res: ServerResponse) {
      try {
        const body = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(body);
      } catch (err) {
        app.logger.error({ err }, 'metrics failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end('metrics failed');
      }
    },
    close() {
      probe?.close();
      probe = null;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
