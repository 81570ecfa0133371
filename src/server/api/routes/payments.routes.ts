import { Hono } from 'hono';
import * as v from 'valibot';
import {
  CreatePaymentSchema, CreditsQuerySchema, DiscountCodeSchema, DirectDebitSchema, DirectDebitSmsSchema, DiscountQuerySchema, MethodsQuerySchema,
  PaymentIdQuerySchema, RepeatOrderSchema,
} from '../../../shared/payments.contract';
import type { AppContext } from '../../app-context';
import { activeDiscountFor, findCodeFor, timeBonusAnswer } from '../../discounts/discounts.service';
import { directDebitInfo, sendSmsCode, submitDirectDebit } from '../../payments/direct-debit.service';
import { localCheckoutRoutes } from '../../payments/local-checkout';
import {
  creditsOverview, handleWebhook, listTransactions, methodsForBundle, paymentStatus, repeatOrder, startPayment, transactionReceipt,
} from '../../payments/payments.service';
import { RuleError } from '../../rule-error';
import { jsonError } from '../http-errors';
import { callerOf, handler, ruleErrorResponse } from '../session';
import type { ApiEnv } from '../types';

const ProviderId = v.pipe(v.string(), v.regex(/^tr_[A-Za-z0-9]{4,40}$/));
const DdInfoQuery = v.object({
  bundle: v.optional(v.pipe(v.string(), v.regex(/^\d{1,7}$/), v.transform(Number))),
  country: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{2}$/))),
  discount: v.optional(DiscountCodeSchema),
});

/** Credits shop, payments, transactions, repeat order, direct debit, discount codes, time bonus, webhook. */
export function paymentRoutes(app: AppContext) {
  const routes = new Hono<ApiEnv>();
  const caller = (c: Parameters<typeof callerOf>[0]) => ({ ...callerOf(c), country: c.var.ctx.country });
  const badQuery = (c: Parameters<typeof callerOf>[0]) => jsonError(c, 400, 'invalid_input', 'error.invalid_input');

  // Logged out too: /pricing shows the same bundles.
  routes.get('/credits.php', async (c) => {
    const query = v.safeParse(CreditsQuerySchema, c.req.query());
    if (!query.success) return badQuery(c);
    try {
      return c.json(await creditsOverview(app, caller(c), c.var.user, query.output));
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });

  routes.get('/payment-methods.php', handler({ member: true }, async (c, _b, user) => {
    const query = v.safeParse(MethodsQuerySchema, c.req.query());
    if (!query.success) return badQuery(c);
    return c.json(await methodsForBundle(app, caller(c), user, query.output));
  }));

  routes.post('/payments.php', handler({ member: true, schema: CreatePaymentSchema }, async (c, body, user) =>
    c.json(await startPayment(app, caller(c), user, body), 201)));
  routes.get('/payments.php', handler({ member: true }, async (c, _b, user) => {
    const query = v.safeParse(PaymentIdQuerySchema, c.req.query());
    if (!query.success) return badQuery(c);
    return c.json(await paymentStatus(app, c.var.ctx.site, user, query.output.id));
  }));

  routes.get('/transactions.php', handler({ member: true }, async (c, _b, user) => {
    if (c.req.query('id') === undefined) return c.json(await listTransactions(app, c.var.ctx.site, user));
    const query = v.safeParse(PaymentIdQuerySchema, { id: c.req.query('id') });
    if (!query.success) return badQuery(c);
    return c.json(await transactionReceipt(app, c.var.ctx.site, user, query.output.id));
  }));

  routes.post('/repeat-order.php', handler({ member: true, schema: RepeatOrderSchema }, async (c, body, user) => {
    try {
      return c.json(await repeatOrder(app, caller(c), user, { key: body.key }));
    } catch (err) {
      // The UI offers "try again" and "pay with PayPal" for the same bundle.
      if (err instanceof RuleError && err.code === 'card_failed') return c.json({ error: err.code, message: c.var.t(err.key), retry: err.params }, 402);
      throw err;
    }
  }));

  routes.get('/directdebit.php', handler({ member: true }, async (c, _b, user) => {
    const query = v.safeParse(DdInfoQuery, c.req.query());
    if (!query.success) return badQuery(c);
    return c.json(await directDebitInfo(app, caller(c), user, query.output));
  }));
  routes.post('/directdebit.php', async (c) => {
    const sms = c.req.query('sms') === '1';
    return handler({ member: true, schema: sms ? DirectDebitSmsSchema : DirectDebitSchema }, async (c2, body, user) =>
      sms
        ? c2.json(await sendSmsCode(app, caller(c2), user, body as v.InferOutput<typeof DirectDebitSmsSchema>))
        : c2.json(await submitDirectDebit(app, caller(c2), user, body as v.InferOutput<typeof DirectDebitSchema>), 201))(c);
  });

  routes.get('/discount.php', async (c) => {
    const query = v.safeParse(DiscountQuerySchema, c.req.query());
    if (!query.success) return badQuery(c);
    const site = c.var.ctx.site;
    if ('welcome' in query.output) {
      // The welcome form's failures are ignored by the client: always 200, the discount or null.
      const active = await activeDiscountFor(app, site, c.var.user).catch(() => null);
      return c.json({ discount: active?.discount?.view ?? null });
    }
    try {
      return c.json({ discount: (await findCodeFor(app, site, c.var.user, query.output.code)).view });
    } catch (err) {
      return ruleErrorResponse(c, err);
    }
  });

  routes.get('/time-bonus.php', handler({ member: true }, async (c, _b, user) => c.json(await timeBonusAnswer(app, c.var.ctx.site, user))));

  // Mollie posts `id=tr_…` as a form. The body is only a hint: the payment is re-fetched from the provider.
  routes.post('/webhooks/mollie.php', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const id = v.safeParse(ProviderId, (form as Record<string, unknown>).id);
    if (!id.success) return c.text('', 400);
    await handleWebhook(app, c.var.ctx.site, id.output);
    return c.text('', 200);
  });

  if (app.payments.local) routes.route('/local-mollie', localCheckoutRoutes(app, app.payments.local));
  return routes;
}
