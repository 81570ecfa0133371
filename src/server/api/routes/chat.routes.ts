import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import { DeleteChatSchema, ReadChatSchema, SendMessageSchema } from '../../../shared/chat.contract';
import type { AppContext } from '../../app-context';
import * as chat from '../../chat/chat.service';
import type { BusEvent } from '../../events/bus';
import { eventsSince } from '../../events/events.service';
import { listLikes, nextPendingLike } from '../../likes/likes.service';
import { jsonError } from '../http-errors';
import { handler, requireUser, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';

const Id = v.pipe(v.string(), v.regex(/^\d{1,10}$/), v.transform(Number), v.minValue(1), v.maxValue(2 ** 31 - 1));
const OpenQuery = v.union([
  v.object({ conversation: Id, before: v.optional(Id) }),
  v.object({ profile_id: Id }),
]);
const ImageTarget = v.union([v.object({ conversation: Id }), v.object({ profile_id: Id })]);
const ClientId = v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9-]+$/));
/** Comment line that keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 25_000;

/** Chats, messages, gifts, chat images, likes lists, auto-like and the realtime event stream. */
export function chatRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();

  routes.get('/chats.php', handler({ member: true }, async (c, _b, user) => c.json(await chat.listChats(app, c.var.ctx.site, user))));
  routes.delete('/chats.php', handler({ member: true, schema: DeleteChatSchema }, async (c, body, user) => {
    await chat.deleteChat(app, user, body.conversation);
    return c.json({ deleted: true });
  }));

  routes.get('/chat.php', handler({ member: true }, async (c, _b, user) => {
    const query = v.safeParse(OpenQuery, c.req.query());
    if (!query.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    return c.json(await chat.openConversation(app, c.var.ctx.site, user, query.output));
  }));
  routes.post('/chat-read.php', handler({ member: true, schema: ReadChatSchema }, async (c, body, user) =>
    c.json({ unread_messages: await chat.markRead(app, user, body.conversation) })));

  routes.post('/messages.php', handler({ member: true, schema: SendMessageSchema }, async (c, body, user) =>
    c.json(await chat.sendMessage(app, c.var.ctx.site, user, body as chat.OutgoingMessage), 201)));

  // POST /api/chat-image.php?conversation=ID|profile_id=ID&client_id=… — the image is the body.
  routes.post('/chat-image.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const target = v.safeParse(ImageTarget, c.req.query());
    const clientId = v.safeParse(ClientId, c.req.query('client_id'));
    if (!target.success || !clientId.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    try {
      const image = Buffer.from(await c.req.arrayBuffer());
      return c.json(await chat.sendMessage(app, c.var.ctx.site, c.var.user!, { kind: 'image', ...target.output, client_id: clientId.output, image }), 201);
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });
  routes.get('/chat-image.php', handler({ member: true }, async (c, _b, user) => {
    const id = v.safeParse(Id, c.req.query('message'));
    if (!id.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    const file = await chat.chatImageFile(app, user, id.output, c.req.query('size') === 'thumb' ? 'thumb' : 'full');
    const info = await stat(file).catch(() => null);
    if (!info) return jsonError(c, 404, 'not_found', 'error.not_found');
    return new Response(Readable.toWeb(createReadStream(file)) as ReadableStream, {
      headers: { 'Content-Type': 'image/webp', 'Content-Length': String(info.size), 'Cache-Control': 'private, max-age=300' },
    });
  }));

  routes.get('/gifts.php', (c) => c.json({ gifts: chat.giftCatalogue(c.var.ctx.site) }));

  routes.get('/likes.php', handler({ member: true }, async (c, _b, user) => c.json(await listLikes(app, c.var.ctx.site, user))));
  routes.get('/auto-like.php', handler({ member: true }, async (c, _b, user) => c.json(await nextPendingLike(app, c.var.ctx.site, user))));

  /**
   * Server-Sent Events for the member's open tabs. A reconnect sends Last-Event-ID and gets what it
   * missed from the event log; the bus subscription starts first so nothing falls between the two.
   */
  routes.get('/events.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const user = c.var.user!;
    const given = c.req.header('last-event-id') ?? c.req.query('last_event_id');
    const resumeFrom = given && /^\d{1,15}$/.test(given) ? Number(given) : null;
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const buffered: BusEvent[] = [];
      let live = false;
      let closed = false;
      // Ids replayed from the log, so the same event arriving on the bus is not sent twice. Not a
      // high-water mark: concurrent transactions commit (and publish) out of id order, and skipping
      // every id below the last one sent dropped those events for good (PostgreSQL, bench/chat.ts).
      const replayed = new Set<number>();
      const write = (event: BusEvent) => {
        if (closed || replayed.has(event.id)) return;
        void stream.writeSSE({ id: String(event.id), event: event.type, data: event.data }).catch(() => undefined);
      };
      const subscription = app.bus.subscribe(user.id, (event) => (live ? write(event) : buffered.push(event)));
      // While a stream is open the member counts as on the site: no notification mails (presence.ts).
      const present = app.presence.open(user.id);
      const done = new Promise<void>((resolve) => stream.onAbort(() => {
        closed = true;
        subscription.close();
        void app.presence.close(user.id);
        resolve();
      }));
      await Promise.all([subscription.ready, present]);
      await stream.writeSSE({ event: 'ready', data: '{}', retry: 3000 });
      if (resumeFrom !== null) {
        for (const event of await eventsSince(app.db.db, user.id, resumeFrom)) {
          write(event);
          replayed.add(event.id);
        }
      }
      // Only events published after the subscription started are buffered: all new to this connection.
      for (const event of buffered.sort((a, b) => a.id - b.id)) write(event);
      buffered.length = 0;
      live = true;
      const heartbeat = setInterval(() => void stream.write(': ping\n\n').catch(() => undefined), HEARTBEAT_MS);
      await done;
      clearInterval(heartbeat);
    }, async (err, stream) => {
      app.logger.warn({ err }, 'event stream failed');
      await stream.close();
    });
  });

  return routes;
}
