import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { endEventStreams } from '../events/event-stream';

/** Browsers sent away by a draining process reconnect after this long, spread so they do not all arrive at once. */
export const RECONNECT_HINT_MS = { min: 200, spread: 1000 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface DrainOptions {
  server: Server;
  logger: Logger;
  /** Requests (event streams included) not yet answered in this process. */
  inFlight(): number;
  /** Stops the job runner after the job in hand. */
  stopJobs(): Promise<unknown>;
  /** How long `/readyz` says 503 while the listener still accepts (balancers with active health checks). */
  delayMs: number;
  /** How long requests in flight and the job in hand may take. */
  timeoutMs: number;
}

/**
 * A rolling restart's stop (SIGTERM): the caller has set the process draining (`/readyz` 503); after
 * `delayMs` the listener closes (the balancer's next connect goes to another process), idle keep-alive
 * connections close, every event stream ends with a reconnect hint (the browser comes back through the
 * balancer with Last-Event-ID and catches up from the event log), the answers in flight and the job in
 * hand finish (at most `timeoutMs`), then the rest of the connections are cut. The caller closes the app.
 */
export async function drainServer(o: DrainOptions): Promise<void> {
  const started = Date.now();
  if (o.delayMs > 0) await sleep(o.delayMs);
  const closed = new Promise<void>((resolve) => o.server.close(() => resolve()));
  o.server.closeIdleConnections();
  const streams = endEventStreams(() => RECONNECT_HINT_MS.min + Math.floor(Math.random() * RECONNECT_HINT_MS.spread));
  const jobs = o.stopJobs();
  const deadline = Date.now() + o.timeoutMs;
  while (o.inFlight() > 0 && Date.now() < deadline) {
    // A keep-alive connection that just finished an answer is idle now: close it before it takes another request.
    o.server.closeIdleConnections();
    await sleep(25);
  }
  const unfinished = o.inFlight();
  o.server.closeAllConnections();
  const jobsDone = await Promise.race([jobs.then(() => true), sleep(Math.max(0, deadline - Date.now())).then(() => false)]);
  await Promise.race([closed, sleep(1000)]);
  o.logger.info({ streams, unfinished, jobsDone, ms: Date.now() - started }, 'drained');
}
