import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * The node request behind a Hono call while nothing has read its body yet; null for in-process calls
 * (`app.request`, the tests) and once something read it through the web Request.
 */
function untouchedIncoming(c: Context): IncomingMessage | null {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming && incoming.readableFlowing === null && !incoming.readableEnded ? incoming : null;
}

/**
 * Hono's `bodyLimit`, without making the web Request when the node request declares its length:
 * `hono/body-limit` reads `c.req.raw.body`, and for that @hono/node-server builds a whole undici
 * Request with a web stream over the socket (a tenth of a chat send's CPU, `bench:chat`). The answers
 * are Hono's: a declared length above `maxSize` is refused at once, one within it goes on (node:http
 * never hands over more bytes than declared); a chunked body goes through Hono's own counting.
 */
export function limitBody(options: { maxSize: number; onError: (c: Context) => Response | Promise<Response> }): MiddlewareHandler {
  const counted = bodyLimit(options);
  return async (c, next) => {
    const incoming = untouchedIncoming(c);
    const length = incoming?.headers['content-length'];
    if (!incoming || length === undefined || incoming.headers['transfer-encoding'] !== undefined) return counted(c, next);
    if (Number.parseInt(length, 10) > options.maxSize) return options.onError(c);
    await next();
  };
}

/**
 * A call's body as JSON, or undefined when it is not JSON (or the client went away while sending it).
 * Read straight from the node request when nothing read it yet, else through Hono (`c.req.json()`).
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const incoming = untouchedIncoming(c);
  if (!incoming) return c.req.json().catch(() => undefined);
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}
