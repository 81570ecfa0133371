import type { Context } from 'hono';
import { Hono } from 'hono';
import * as v from 'valibot';
import {
  ConfirmSchema, DiscountCreateSchema, DiscountStatusSchema, FictionalProfileSchema, InboxClaimSchema, InboxNotesSchema, InboxReplySchema, MemberActionSchema, type Permission,
  STATS_MAX_DAYS, STAT_METRICS, VerifySchema, ACTION_PERMISSION, permissionsOf,
} from '../../../shared/admin.contract';
import type { AppContext } from '../../app-context';
import { createDiscount, listDiscountUse, listPayments, PaymentFilterSchema, setDiscountActive } from '../../admin/finance.service';
import {
  answerAsFictional, claimConversation, inboxConversation, inboxQueue, listFictional, queueSummary, releaseConversation, saveFictional, saveNotes,
} from '../../admin/inbox.service';
import { memberDetail, runMemberAction, searchMembers } from '../../admin/members.service';
import { runSafetyAction, safetyQueue } from '../../admin/safety.service';
import { SafetyActionSchema } from '../../../shared/safety.contract';
import {
  StaffError, type StaffCaller, confirmEnrolment, findStaff, listAudit, requirePermission, startEnrolment, verifySecondFactor,
} from '../../admin/staff.service';
import { dayNumber, siteStat, toCsv } from '../../admin/stats.service';
import { dashboardTiles } from '../../admin/dashboard.service';
import { fieldErrors } from '../../../shared/accounts.contract';
import { parseBody, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';
import { authenticationRequired } from '../http-errors';
import { parseId } from '../../../shared/ids';

type C = Context<ApiEnv>;

/** The operator console's API under /api/admin: staff of the request's site only, second factor first, then the role's rights. */
export function adminRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  const staffOf = (c: C) => findStaff(app, c.var.ctx.site, c.var.user, c.var.sessionToken, c.var.ip);

  /** A staff endpoint: permission (null = any staff, second factor not needed yet), optional body schema. */
  function staffRoute<S extends v.GenericSchema | undefined = undefined>(
    permission: Permission | null | ((body: S extends v.GenericSchema ? v.InferOutput<S> : undefined) => Permission),
    schema: S,
    run: (c: C, staff: StaffCaller, body: S extends v.GenericSchema ? v.InferOutput<S> : undefined) => Promise<Response>,
  ) {
    return async (c: C) => {
      try {
        if (!c.var.user) return authenticationRequired(c);
        const staff = await staffOf(c);
        if (!staff) throw new StaffError('forbidden', 'admin.error.forbidden', 403);
        if (permission !== null && !staff.verified) throw new StaffError('staff_2fa_required', 'admin.error.two_factor_required', 403);
        if (typeof permission === 'string') requirePermission(staff, permission);
        const body = schema ? await parseBody(c, schema) : undefined;
        if (body instanceof Response) return body;
        if (typeof permission === 'function') requirePermission(staff, permission(body as never));
        return await run(c, staff, body as never);
      } catch (err) {
        return ruleErrorResponse(c, err);
      }
    };
  }
  const parseQuery = <S extends v.GenericSchema>(c: C, schema: S): v.InferOutput<S> | Response => {
    const result = v.safeParse(schema, c.req.query());
    if (result.success) return result.output;
    const fields = Object.fromEntries(Object.entries(fieldErrors(result.issues)).map(([f, key]) => [f, c.var.t(key)]));
    return c.json({ error: 'invalid_input', message: Object.values(fields)[0] ?? c.var.t('error.invalid_input'), fields }, 400);
  };
  const idQuery = (c: C, name = 'id') => {
    return parseId(c.req.query(name));
  };
  const badId = (c: C) => c.json({ error: 'invalid_input', message: c.var.t('admin.error.invalid') }, 400);

  routes.get('/admin/me.php', staffRoute(null, undefined, async (c, staff) =>
    c.json({ staff: { email: staff.email, role: staff.role, enrolled: staff.enrolled, verified: staff.verified, permissions: staff.verified ? permissionsOf(staff.role) : [] } })));
  routes.post('/admin/totp-enrol.php', staffRoute(null, undefined, async (c, staff) => c.json(await startEnrolment(app, c.var.ctx.site, staff))));
  routes.post('/admin/totp-confirm.php', staffRoute(null, ConfirmSchema, async (c, staff, body) =>
    c.json({ recovery_codes: await confirmEnrolment(app, c.var.ctx.site, staff, c.var.sessionToken as string, body.code) })));
  routes.post('/admin/verify.php', staffRoute(null, VerifySchema, async (c, staff, body) => {
    await verifySecondFactor(app, c.var.ctx.site, staff, c.var.sessionToken as string, body);
    return c.json({ verified: true, permissions: permissionsOf(staff.role) });
  }));

  routes.get('/admin/members.php', staffRoute('members', undefined, async (c, staff) => {
    const q = (c.req.query('q') ?? '').slice(0, 200);
    return c.json({ members: await searchMembers(app, staff, q) });
  }));
  routes.get('/admin/member.php', staffRoute('members', undefined, async (c, staff) => {
    const id = idQuery(c);
    return id === null ? badId(c) : c.json(await memberDetail(app, staff, id));
  }));
  routes.post('/admin/member-action.php', staffRoute((body) => ACTION_PERMISSION[body.action], MemberActionSchema, async (c, staff, body) =>
    c.json({ done: body.action, result: await runMemberAction(app, staff, body) })));

  // The safety queue (issue 26): moderators and admins of this site.
  routes.get('/admin/safety.php', staffRoute('moderation', undefined, async (c, staff) =>
    c.json({ accounts: await safetyQueue(app, staff, c.req.query('sort') === 'most' ? 'most' : 'newest') })));
  routes.post('/admin/safety-action.php', staffRoute('moderation', SafetyActionSchema, async (c, staff, body) => c.json(await runSafetyAction(app, staff, body))));

  routes.get('/admin/fictional.php', staffRoute('fictional', undefined, async (c, staff) => c.json({ profiles: await listFictional(app, staff) })));
  routes.post('/admin/fictional.php', staffRoute('fictional', FictionalProfileSchema, async (c, staff, body) => c.json({ profile: await saveFictional(app, staff, body) })));
  routes.get('/admin/inbox.php', staffRoute('inbox', undefined, async (c, staff) => {
    const queue = await inboxQueue(app, staff);
    return c.json({ queue, ...queueSummary(queue, app.clock.now()), now: app.clock.now() });
  }));
  // Two operators never answer one conversation at once: opening claims it for CLAIM_MS (renewed while open).
  routes.post('/admin/inbox-claim.php', staffRoute('inbox', InboxClaimSchema, async (c, staff, body) => {
    if (body.release) {
      await releaseConversation(app, staff, body.conversation_id);
      return c.json({ released: true });
    }
    const claim = await claimConversation(app, staff, body.conversation_id);
    if (!claim.mine) return c.json({ error: 'claimed', message: c.var.t('admin.error.claimed_elsewhere'), ...claim }, 409);
    return c.json(claim);
  }));
  routes.post('/admin/inbox-notes.php', staffRoute('inbox', InboxNotesSchema, async (c, staff, body) => c.json(await saveNotes(app, staff, body.conversation_id, body.notes))));
  routes.get('/admin/inbox-conversation.php', staffRoute('inbox', undefined, async (c, staff) => {
    const id = idQuery(c);
    return id === null ? badId(c) : c.json(await inboxConversation(app, staff, id));
  }));
  routes.post('/admin/inbox-reply.php', staffRoute('inbox', InboxReplySchema, async (c, staff, body) => c.json(await answerAsFictional(app, staff, body))));

  routes.get('/admin/payments.php', staffRoute('payments', undefined, async (c, staff) => {
    const filter = parseQuery(c, PaymentFilterSchema);
    return filter instanceof Response ? filter : c.json(await listPayments(app, staff, filter));
  }));
  routes.get('/admin/discounts.php', staffRoute('discounts', undefined, async (c, staff) => c.json({ discounts: await listDiscountUse(app, staff) })));
  routes.post('/admin/discounts.php', staffRoute('discounts', DiscountCreateSchema, async (c, staff, body) => c.json({ discount: await createDiscount(app, staff, body) }, 201)));
  routes.patch('/admin/discounts.php', staffRoute('discounts', DiscountStatusSchema, async (c, staff, body) => c.json(await setDiscountActive(app, staff, body))));

  const StatsQuery = v.object({
    metric: v.picklist(STAT_METRICS, 'admin.error.invalid'),
    from: v.pipe(v.string('admin.error.date'), v.isoDate('admin.error.date')),
    to: v.pipe(v.string('admin.error.date'), v.isoDate('admin.error.date')),
    format: v.optional(v.picklist(['json', 'csv'], 'admin.error.invalid')),
  });
  routes.get('/admin/stats.php', staffRoute('dashboard', undefined, async (c, staff) => {
    const query = parseQuery(c, StatsQuery);
    if (query instanceof Response) return query;
    const from = dayNumber(query.from);
    const to = dayNumber(query.to);
    if (!(to >= from) || to - from >= STATS_MAX_DAYS) return c.json({ error: 'invalid_range', message: c.var.t('admin.error.range', { days: STATS_MAX_DAYS }) }, 400);
    const table = await siteStat(app, staff.siteId, query.metric, from, to);
    if (query.format !== 'csv') return c.json(table);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="${staff.siteId}-${query.metric}-${query.from}-${query.to}.csv"`);
    return c.body(toCsv(table));
  }));
  routes.get('/admin/dashboard.php', staffRoute('dashboard', undefined, async (c, staff) => c.json({ tiles: await dashboardTiles(app, staff), now: app.clock.now() })));
  routes.get('/admin/audit.php', staffRoute('audit', undefined, async (c, staff) => {
    const before = idQuery(c, 'before') ?? undefined;
    const action = c.req.query('action')?.slice(0, 64) || undefined;
    return c.json({ entries: await listAudit(app, staff.siteId, { before, action }) });
  }));
  return routes;
}
