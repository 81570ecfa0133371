import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestEndpoint } from './context/request-context';

/** One request on its way through the node entry's steps (src/server/main.ts). */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path and query as the client sent them. */
  url: string;
  endpoint: RequestEndpoint;
  /** The request reached the site over HTTPS (or its site is only served so). */
  secure: boolean;
}

/** Answers the request (true), or leaves it to the next step (false). */
export type Step = (exchange: Exchange) => boolean | Promise<boolean>;

/**
 * Runs named steps in order until one answers. A step that throws (or rejects) is handed to `failed` with
 * its name; so is a request no step answered. Steps that answer at once run without a promise between
 * them (a static file is sent in the tick its request arrived).
 */
export function pipeline(steps: Record<string, Step>, failed: (exchange: Exchange, step: string, err: unknown) => void) {
  const list = Object.entries(steps);
  const from = (exchange: Exchange, first: number): void => {
    for (let i = first; i < list.length; i++) {
      const [name, step] = list[i];
      let answered: boolean | Promise<boolean>;
      try {
        answered = step(exchange);
      } catch (err) {
        failed(exchange, name, err);
        return;
      }
      if (answered === true) return;
      if (answered !== false) {
        answered.then((done) => (done ? undefined : from(exchange, i + 1)), (err) => failed(exchange, name, err));
        return;
      }
    }
    failed(exchange, 'none', new Error(`no step answered ${exchange.url}`));
  };
  return (exchange: Exchange): void => from(exchange, 0);
}
