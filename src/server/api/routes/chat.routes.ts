import { Readable } from 'node:stream';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as v from 'valibot';
import { DeleteChatSchema, ReadChatSchema, SendMessageSchema, type SendMessageResponse } from '../../../shared/chat.contract';
import type { AppContext } from '../../app-context';
import * as chat from '../../chat/chat.service';
import { EVENTS_PATH, openEventStream, resumePoint } from '../../events/event-stream';
import { listLikes, nextPendingLike } from '../../likes/likes.service';
import { jsonError } from '../http-errors';
import { handler, requireUser, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';
import { IdTextSchema } from '../../../shared/ids';

const Id = IdTextSchema;
const OpenQuery = v.union([
  v.object({ conversation: Id, before: v.optional(Id) }),
  v.object({ profile_id: Id }),
]);
const ImageTarget = v.union([v.object({ conversation: Id }), v.object({ profile_id: Id })]);
const ClientId = v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9-]+$/));

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
    return c.json(await chat.openConversation(app, c.var.ctx.site, user, query.output, c.var.ctx.country));
  }));
  routes.post('/chat-read.php', handler({ member: true, schema: ReadChatSchema }, async (c, body, user) =>
    c.json({ unread_messages: await chat.markRead(app, user, body.conversation) })));

  routes.post('/messages.php', handler({ member: true, schema: SendMessageSchema }, async (c, body, user) =>
    announced(c, await chat.sendMessage(app, c.var.ctx.site, user, body as chat.OutgoingMessage))));

  // POST /api/chat-image.php?conversation=ID|profile_id=ID&client_id=… — the image is the body.
  routes.post('/chat-image.php', async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const target = v.safeParse(ImageTarget, c.req.query());
    const clientId = v.safeParse(ClientId, c.req.query('client_id'));
    if (!target.success || !clientId.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    try {
      const image = Buffer.from(await c.req.arrayBuffer());
      return announced(c, await chat.sendMessage(app, c.var.ctx.site, c.var.user!, { kind: 'image', ...target.output, client_id: clientId.output, image }));
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });
  routes.get('/chat-image.php', handler({ member: true }, async (c, _b, user) => {
    const id = v.safeParse(Id, c.req.query('message'));
    if (!id.success) return jsonError(c, 400, 'invalid_input', 'error.invalid_input');
    const key = await chat.chatImageFile(app, user, id.output, c.req.query('size') === 'thumb' ? 'thumb' : 'full');
    // Private: read from the store only after the member check above, never a URL into the store.
    const object = await app.storage.get(key);
    if (!object) return jsonError(c, 404, 'not_found', 'error.not_found');
    return new Response(Readable.toWeb(object.body) as ReadableStream, {
      headers: { 'Content-Type': 'image/webp', 'Content-Length': String(object.size), 'Cache-Control': 'private, max-age=300' },
    });
  }));

  routes.get('/gifts.php', (c) => c.json({ gifts: chat.giftCatalogue(c.var.ctx.site) }));

  routes.get('/likes.php', handler({ member: true }, async (c, _b, user) => c.json(await listLikes(app, c.var.ctx.site, user))));
  routes.get('/auto-like.php', handler({ member: true }, async (c, _b, user) => c.json(await nextPendingLike(app, c.var.ctx.site, user))));

  /**
   * Server-Sent Events for the member's open tabs, for in-process callers (the tests). The server
   * answers this path on node:http before Hono (src/server/api/event-stream-route.ts), with the same core.
   */
  routes.get(EVENTS_PATH.slice('/api'.length), async (c) => {
    const denied = requireUser(c);
    if (denied) return denied;
    const user = c.var.user!;
    const resumeFrom = resumePoint(c.req.header('last-event-id'), c.req.query('last_event_id'));
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const events = openEventStream(app, user.id, resumeFrom, { write: (chunk) => void stream.write(chunk).catch(() => undefined) });
      const done = new Promise<void>((resolve) => stream.onAbort(() => {
        events.close();
        resolve();
      }));
      await events.ready;
      await done;
    }, async (err, stream) => {
      app.logger.warn({ err }, 'event stream failed');
      await stream.close();
    });
  });

  return routes;
}

/**
 * A send's answer (201). Its events' bus publish, after the commit, already told every process that
 * both members changed (credits, unread badges): the session middleware need not say it again.
 */
function announced(c: Context<ApiEnv>, sent: SendMessageResponse) {
  c.set('announced', true);
  return c.json(sent, 201);
}
