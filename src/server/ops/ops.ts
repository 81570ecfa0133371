import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AppContext } from '../app-context';
import { drainServer } from './drain';
import { createReadiness, sendJson } from './health';
import { createMetrics, metricsAllowed } from './metrics';

/**
 * The operator's side of a process: `/healthz` (alive), `/readyz` (database, Redis and storage
 * reachable; 503 while draining), `/metrics` (Prometheus, only with METRICS_TOKEN), request metrics,
 * and the drain on SIGTERM. Answered before the host check: balancers ask by address, not by site.
 */
export function createOps(app: AppContext) {
  const readiness = createReadiness(app);
  const metrics = createMetrics(app);
  let inFlight = 0;
  let draining: Promise<void> | null = null;

  return {
    draining: () => draining !== null,
    /** Answers the ops paths (true), or counts the request and lets the server answer it (false). */
    handle(req: IncomingMessage, res: ServerResponse): boolean {
      const url = req.url ?? '/';
      const path = url.split('?', 1)[0];
      if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
        sendJson(res, 200, { status: 'alive' });
        return true;
      }
      if (path === '/readyz' && (req.method === 'GET' || req.method === 'HEAD')) {
        if (draining) sendJson(res, 503, { status: 'draining' });
        else void readiness.check().then(({ ok, checks }) => sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not_ready', checks }));
        return true;
      }
      // Without the token /metrics is an unknown path like any other.
      if (path === '/metrics' && req.method === 'GET' && metricsAllowed(req, app.config.metricsToken)) {
        void metrics.send(res);
        return true;
      }
      inFlight++;
      res.once('close', () => inFlight--);
      metrics.observe(req, res);
      // A draining process answers what it has, then the connection closes: the next request goes elsewhere.
      if (draining) res.setHeader('Connection', 'close');
      return false;
    },
    /** Drains the server (see drain.ts); called once, later calls get the same promise. */
    drain(server: Server, stopJobs: () => Promise<unknown>): Promise<void> {
      draining ??= (async () => {
        app.logger.info('draining: not ready, finishing what is in flight');
        await drainServer({ server, logger: app.logger, inFlight: () => inFlight, stopJobs, delayMs: app.config.drainDelayMs, timeoutMs: app.config.drainTimeoutMs });
        readiness.close();
        metrics.close();
      })();
      return draining;
    },
    close() {
      readiness.close();
      metrics.close();
    },
  };
}
