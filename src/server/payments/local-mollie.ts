import { randomBytes } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import selfsigned from 'selfsigned';
import type { Clock } from '../util/clock';
import type { Db } from '../db/database';

/**
 * The local payment provider: the subset of the Mollie v2 REST API our code uses (payments, methods
 * with issuers, customers, mandates, refunds, plus chargebacks for tests), served over https on
 * 127.0.0.1 so the official @mollie/api-client talks to it unchanged; and a hosted checkout page where
 * the buyer picks the outcome. It then calls the webhook exactly as Mollie does (POST id=tr_…).
 * Objects live in the database (table local_mollie_objects), so every app process sees the same state.
 */

/** "Pending, paid in 30 s" and direct-debit collections settle after this long. */
export const LOCAL_SETTLE_MS = 30_000;
/** Open payments expire after this long, as Mollie's do (15 minutes for most methods). */
export const LOCAL_EXPIRY_MS = 15 * 60_000;
/** The checkout page's outcomes. */
export const LOCAL_OUTCOMES = ['paid', 'paid_declines_later', 'pending', 'failed', 'canceled', 'expired'] as const;
export type LocalOutcome = (typeof LOCAL_OUTCOMES)[number];

/** iDEAL banks the local provider offers (ids as Mollie's). */
export const LOCAL_IDEAL_ISSUERS = [
  ['ideal_ABNANL2A', 'ABN AMRO'], ['ideal_ASNBNL21', 'ASN Bank'], ['ideal_BUNQNL2A', 'bunq'], ['ideal_INGBNL2A', 'ING'],
  ['ideal_KNABNL2H', 'Knab'], ['ideal_RABONL2U', 'Rabobank'], ['ideal_RBRBNL21', 'RegioBank'], ['ideal_REVOLT21', 'Revolut'],
  ['ideal_SNSBNL2A', 'SNS'], ['ideal_TRIONL2U', 'Triodos Bank'], ['ideal_FVLBNL22', 'Van Lanschot Kempen'], ['ideal_BITSNL2A', 'Yoursafe'],
] as const;

const SUPPORTED_METHODS = new Set([
  'applepay', 'bancontact', 'banktransfer', 'blik', 'creditcard', 'directdebit', 'eps', 'ideal', 'mobilepay', 'paypal',
  'paysafecard', 'przelewy24', 'satispay', 'swish', 'twint', 'vipps',
]);
/** Methods whose paid first payment leaves a mandate for recurring payments (as at Mollie). */
const MANDATE_METHOD: Record<string, string> = { creditcard: 'creditcard', paypal: 'paypal', ideal: 'directdebit', bancontact: 'directdebit', eps: 'directdebit' };

interface Amount { currency: string; value: string }
/** The stored payment: Mollie's fields plus our `_local` bookkeeping (never sent out). */
export interface LocalPayment {
  resource: 'payment';
  id: string;
  mode: 'test';
  createdAt: string;
  status: 'open' | 'pending' | 'paid' | 'failed' | 'canceled' | 'expired';
  isCancelable: boolean;
  amount: Amount;
  amountRefunded: Amount;
  amountRemaining: Amount;
  amountChargedBack?: Amount;
  description: string;
  method: string | null;
  issuer?: string;
  metadata: unknown;
  locale?: string;
  profileId: string;
  sequenceType: 'oneoff' | 'first' | 'recurring';
  redirectUrl?: string;
  webhookUrl?: string;
  customerId?: string;
  mandateId?: string;
  paidAt?: string;
  expiresAt?: string;
  canceledAt?: string;
  expiredAt?: string;
  failedAt?: string;
  _local: { settleAt: number | null; settleTo: 'paid' | 'failed' | null; declinesLater: boolean; checkoutOrigin: string | null };
}

const iso = (ms: number) => new Date(ms).toISOString();
const cents = (a: Amount) => Math.round(Number.parseFloat(a.value) * 100);
const money = (c: number, currency: string): Amount => ({ currency, value: (c / 100).toFixed(2) });
const newId = (prefix: string) => `${prefix}${randomBytes(8).toString('base64url').replace(/[-_]/g, 'x')}`;

/** Mollie's error document. */
function problem(status: number, title: string, detail: string, field?: string) {
  return { status, title, detail, ...(field ? { field } : {}), _links: { documentation: { href: 'https://docs.mollie.com/overview/handling-errors', type: 'text/html' } } };
}
class LocalApiError extends Error {
  constructor(readonly status: number, readonly title: string, readonly detail: string, readonly field?: string) {
    super(detail);
  }
}

export interface LocalMollieDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
}

/** The provider's state and rules, over the database. */
export class LocalMollieStore {
  private timers = new Set<NodeJS.Timeout>();
  /** Where the REST API listens (set once started); used in `_links.self`. */
  apiBase = 'https://127.0.0.1/v2/';

  constructor(private readonly deps: LocalMollieDeps) {}

  private get db() {
    return this.deps.db.db;
  }

  private async load<T>(id: string, kind: string): Promise<T | null> {
    const row = await this.db.selectFrom('local_mollie_objects').select('data').where('id', '=', id).where('kind', '=', kind as never).executeTakeFirst();
    return row ? (JSON.parse(row.data) as T) : null;
  }

  private async insert(id: string, kind: 'payment' | 'customer' | 'mandate' | 'refund' | 'chargeback', parentId: string | null, data: unknown) {
    await this.db.insertInto('local_mollie_objects').values({ id, kind, parent_id: parentId, data: JSON.stringify(data), created_at: this.deps.clock.now() }).execute();
  }

  private async save(id: string, data: unknown) {
    await this.db.updateTable('local_mollie_objects').set({ data: JSON.stringify(data) }).where('id', '=', id).execute();
  }

  private async children<T>(parentId: string, kind: string): Promise<T[]> {
    const rows = await this.db.selectFrom('local_mollie_objects').select('data').where('parent_id', '=', parentId).where('kind', '=', kind as never).orderBy('created_at').execute();
    return rows.map((r) => JSON.parse(r.data) as T);
  }

  /** POST /v2/payments */
  async createPayment(body: Record<string, unknown>): Promise<LocalPayment> {
    const now = this.deps.clock.now();
    const amount = body.amount as Amount | undefined;
    if (!amount || typeof amount.value !== 'string' || !/^\d{1,7}\.\d{2}$/.test(amount.value) || typeof amount.currency !== 'string' || !/^[A-Z]{3}$/.test(amount.currency)) {
      throw new LocalApiError(422, 'Unprocessable Entity', 'The amount is invalid', 'amount');
    }
    if (cents(amount) < 1) throw new LocalApiError(422, 'Unprocessable Entity', 'The amount is lower than minimum', 'amount');
    if (typeof body.description !== 'string' || body.description.length === 0) throw new LocalApiError(422, 'Unprocessable Entity', 'The description is invalid', 'description');
    const sequenceType = (body.sequenceType as LocalPayment['sequenceType'] | undefined) ?? 'oneoff';
    const method = typeof body.method === 'string' ? body.method : null;
    if (method && !SUPPORTED_METHODS.has(method)) throw new LocalApiError(422, 'Unprocessable Entity', 'The payment method is invalid', 'method');
    const issuer = typeof body.issuer === 'string' ? body.issuer : undefined;
    if (issuer && (method !== 'ideal' || !LOCAL_IDEAL_ISSUERS.some(([id]) => id === issuer))) throw new LocalApiError(422, 'Unprocessable Entity', 'The issuer is invalid', 'issuer');
    const webhookUrl = typeof body.webhookUrl === 'string' ? body.webhookUrl : undefined;
    const redirectUrl = typeof body.redirectUrl === 'string' ? body.redirectUrl : undefined;
    if (sequenceType !== 'recurring' && !redirectUrl) throw new LocalApiError(422, 'Unprocessable Entity', 'The redirect URL is missing', 'redirectUrl');
    const customerId = typeof body.customerId === 'string' ? body.customerId : undefined;
    if (sequenceType !== 'oneoff' && !(customerId && (await this.load(customerId, 'customer')))) {
      throw new LocalApiError(422, 'Unprocessable Entity', 'A customer is required for this sequence type', 'customerId');
    }
    const payment: LocalPayment = {
      resource: 'payment', id: newId('tr_'), mode: 'test', createdAt: iso(now), status: 'open', isCancelable: false,
      amount, amountRefunded: money(0, amount.currency), amountRemaining: amount, description: body.description, method, issuer,
      metadata: body.metadata ?? null, locale: typeof body.locale === 'string' ? body.locale : undefined, profileId: 'pfl_local',
      sequenceType, redirectUrl, webhookUrl, customerId, expiresAt: iso(now + LOCAL_EXPIRY_MS),
      _local: { settleAt: null, settleTo: null, declinesLater: false, checkoutOrigin: redirectUrl ? new URL(redirectUrl).origin : null },
    };
    if (sequenceType === 'recurring') {
      const mandateId = typeof body.mandateId === 'string' ? body.mandateId : undefined;
      const mandate = mandateId
        ? await this.load<LocalMandate>(mandateId, 'mandate')
        : (await this.children<LocalMandate>(customerId as string, 'mandate')).find((m) => m.status === 'valid') ?? null;
      if (!mandate || mandate.customerId !== customerId || mandate.status !== 'valid') throw new LocalApiError(422, 'Unprocessable Entity', 'No suitable mandates found for customer', 'mandateId');
      payment.mandateId = mandate.id;
      payment.method = mandate.method;
      payment.expiresAt = undefined;
      if (mandate.method === 'directdebit') {
        // A SEPA collection takes days; here it settles after LOCAL_SETTLE_MS. Account holders named "FAIL…" bounce.
        payment.status = 'pending';
        payment._local.settleAt = now + LOCAL_SETTLE_MS;
        payment._local.settleTo = /^fail/i.test(mandate.details.consumerName ?? '') ? 'failed' : 'paid';
      } else if (mandate.declinesLater) {
        payment.status = 'failed';
        payment.failedAt = iso(now);
      } else {
        payment.status = 'paid';
        payment.paidAt = iso(now);
        payment.amountRemaining = payment.amount;
      }
    }
    await this.insert(payment.id, 'payment', customerId ?? null, payment);
    if (payment.status === 'pending' && payment._local.settleAt) this.scheduleSettle(payment.id, LOCAL_SETTLE_MS);
    if (sequenceType === 'recurring') this.notifyLater(payment);
    return payment;
  }

  /** GET /v2/payments/:id — applies a due settlement or expiry first (clock-driven, so tests move time). */
  async getPayment(id: string): Promise<LocalPayment | null> {
    const payment = await this.load<LocalPayment>(id, 'payment');
    if (!payment) return null;
    const now = this.deps.clock.now();
    if (payment.status === 'pending' && payment._local.settleAt !== null && now >= payment._local.settleAt) {
      await this.finish(payment, payment._local.settleTo ?? 'paid', now);
      this.notifyLater(payment);
    } else if (payment.status === 'open' && payment.expiresAt && now >= Date.parse(payment.expiresAt)) {
      await this.finish(payment, 'expired', now);
      this.notifyLater(payment);
    }
    return payment;
  }

  private async finish(payment: LocalPayment, status: 'paid' | 'failed' | 'canceled' | 'expired', now: number) {
    payment.status = status;
    payment._local.settleAt = null;
    if (status === 'paid') {
      payment.paidAt = iso(now);
      if (payment.sequenceType === 'first' && payment.customerId && payment.method && MANDATE_METHOD[payment.method]) {
        const mandate = await this.createMandateRecord(payment.customerId, {
          method: MANDATE_METHOD[payment.method],
          details: payment.method === 'creditcard'
            ? { cardHolder: 'T. Tester', cardNumber: '6787', cardLabel: 'Mastercard', cardExpiryDate: '2030-12-31' }
            : { consumerName: 'T. Tester', consumerAccount: 'NL55INGB0000000000', consumerBic: 'INGBNL2A' },
          mandateReference: `LOCAL-${payment.id}`,
          signatureDate: iso(now).slice(0, 10),
          declinesLater: payment._local.declinesLater,
        });
        payment.mandateId = mandate.id;
      }
    }
    if (status === 'failed') payment.failedAt = iso(now);
    if (status === 'canceled') payment.canceledAt = iso(now);
    if (status === 'expired') payment.expiredAt = iso(now);
    await this.save(payment.id, payment);
  }

  /** The buyer's choice on the hosted checkout. Only open payments change; returns the payment. */
  async choose(id: string, outcome: LocalOutcome, issuer: string | null): Promise<LocalPayment | null> {
    const payment = await this.getPayment(id);
    if (payment?.status !== 'open' || payment.sequenceType === 'recurring') return payment;
    const now = this.deps.clock.now();
    if (issuer && payment.method === 'ideal' && LOCAL_IDEAL_ISSUERS.some(([i]) => i === issuer)) payment.issuer = issuer;
    if (!payment.method) payment.method = 'creditcard';
    if (outcome === 'pending') {
      payment.status = 'pending';
      payment._local.settleAt = now + LOCAL_SETTLE_MS;
      payment._local.settleTo = 'paid';
      await this.save(payment.id, payment);
      this.scheduleSettle(payment.id, LOCAL_SETTLE_MS);
    } else {
      payment._local.declinesLater = outcome === 'paid_declines_later';
      await this.finish(payment, outcome === 'paid_declines_later' ? 'paid' : outcome, now);
    }
    return payment;
  }

  /** POST /v2/payments/:id/refunds */
  async refund(paymentId: string, body: Record<string, unknown>) {
    const payment = await this.getPayment(paymentId);
    if (!payment) throw new LocalApiError(404, 'Not Found', `No payment exists with token ${paymentId}.`);
    const amount = body.amount as Amount | undefined;
    if (payment.status !== 'paid') throw new LocalApiError(422, 'Unprocessable Entity', 'The payment cannot be refunded');
    if (!amount || amount.currency !== payment.amount.currency || !/^\d{1,7}\.\d{2}$/.test(amount.value)) throw new LocalApiError(422, 'Unprocessable Entity', 'The amount is invalid', 'amount');
    const remaining = cents(payment.amountRemaining);
    if (cents(amount) < 1 || cents(amount) > remaining) throw new LocalApiError(422, 'Unprocessable Entity', 'The amount is higher than the remaining amount', 'amount');
    const now = this.deps.clock.now();
    const refund = { resource: 'refund', id: newId('re_'), amount, status: 'refunded', createdAt: iso(now), description: String(body.description ?? ''), paymentId, metadata: body.metadata ?? null };
    payment.amountRefunded = money(cents(payment.amountRefunded) + cents(amount), payment.amount.currency);
    payment.amountRemaining = money(remaining - cents(amount), payment.amount.currency);
    await this.save(payment.id, payment);
    await this.insert(refund.id, 'refund', payment.id, refund);
    this.notifyLater(payment);
    return refund;
  }

  /** Not in Mollie's API (chargebacks come from the bank): the tests' and developers' way to make one. */
  async chargeback(paymentId: string, body: Record<string, unknown>) {
    const payment = await this.getPayment(paymentId);
    if (payment?.status !== 'paid') throw new LocalApiError(422, 'Unprocessable Entity', 'The payment cannot be charged back');
    const amount = (body.amount as Amount | undefined) ?? payment.amountRemaining;
    const now = this.deps.clock.now();
    const chargeback = { resource: 'chargeback', id: newId('chb_'), amount, createdAt: iso(now), paymentId };
    payment.amountChargedBack = money(cents(payment.amountChargedBack ?? money(0, amount.currency)) + cents(amount), payment.amount.currency);
    payment.amountRemaining = money(Math.max(0, cents(payment.amountRemaining) - cents(amount)), payment.amount.currency);
    await this.save(payment.id, payment);
    await this.insert(chargeback.id, 'chargeback', payment.id, chargeback);
    this.notifyLater(payment);
    return chargeback;
  }

  async createCustomer(body: Record<string, unknown>) {
    const customer = {
      resource: 'customer', id: newId('cst_'), mode: 'test', name: body.name ?? null, email: body.email ?? null, locale: body.locale ?? null,
      metadata: body.metadata ?? null, createdAt: iso(this.deps.clock.now()),
    };
    await this.insert(customer.id, 'customer', null, customer);
    return customer;
  }

  async getCustomer(id: string) {
    return this.load<Record<string, unknown>>(id, 'customer');
  }

  private async createMandateRecord(customerId: string, input: { method: string; details: Record<string, string>; mandateReference: string; signatureDate: string; declinesLater?: boolean }) {
    const mandate: LocalMandate = {
      resource: 'mandate', id: newId('mdt_'), mode: 'test', status: 'valid', method: input.method, details: input.details,
      mandateReference: input.mandateReference, signatureDate: input.signatureDate, createdAt: iso(this.deps.clock.now()), customerId,
      declinesLater: input.declinesLater ?? false,
    };
    await this.insert(mandate.id, 'mandate', customerId, mandate);
    return mandate;
  }

  /** POST /v2/customers/:id/mandates (SEPA direct debit). */
  async createMandate(customerId: string, body: Record<string, unknown>) {
    if (!(await this.getCustomer(customerId))) throw new LocalApiError(404, 'Not Found', `No customer exists with token ${customerId}.`);
    if (body.method !== 'directdebit') throw new LocalApiError(422, 'Unprocessable Entity', 'The method is invalid', 'method');
    const consumerName = typeof body.consumerName === 'string' ? body.consumerName : '';
    const consumerAccount = typeof body.consumerAccount === 'string' ? body.consumerAccount.replace(/\s+/g, '') : '';
    if (!consumerName) throw new LocalApiError(422, 'Unprocessable Entity', 'The consumer name is missing', 'consumerName');
    if (!/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(consumerAccount)) throw new LocalApiError(422, 'Unprocessable Entity', 'The consumer account is invalid', 'consumerAccount');
    return this.createMandateRecord(customerId, {
      method: 'directdebit',
      details: { consumerName, consumerAccount, consumerBic: typeof body.consumerBic === 'string' ? body.consumerBic : '' },
      mandateReference: typeof body.mandateReference === 'string' ? body.mandateReference : newId('LOCAL-'),
      signatureDate: typeof body.signatureDate === 'string' ? body.signatureDate : iso(this.deps.clock.now()).slice(0, 10),
    });
  }

  async getMandate(customerId: string, id: string) {
    const mandate = await this.load<LocalMandate>(id, 'mandate');
    return mandate && mandate.customerId === customerId ? mandate : null;
  }

  async listMandates(customerId: string) {
    return this.children<LocalMandate>(customerId, 'mandate');
  }

  /** Calls the payment's webhook as Mollie does: POST, form body id=tr_…; a few retries on failure. */
  async notify(payment: Pick<LocalPayment, 'id' | 'webhookUrl'>, attempts = 3): Promise<boolean> {
    if (!payment.webhookUrl) return false;
    for (let attempt = 0; attempt < attempts; attempt++) {
      try {
        const res = await fetch(payment.webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Mollie HTTP/1.0 (local provider)' },
          body: new URLSearchParams({ id: payment.id }).toString(),
          signal: AbortSignal.timeout(10_000),
        });
        await res.arrayBuffer();
        if (res.ok) return true;
      } catch (err) {
        this.deps.logger.warn({ err, id: payment.id }, 'local provider: webhook call failed');
      }
      await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
    }
    return false;
  }

  private notifyLater(payment: Pick<LocalPayment, 'id' | 'webhookUrl'>) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.notify(payment);
    }, 10);
    timer.unref();
    this.timers.add(timer);
  }

  private scheduleSettle(id: string, ms: number) {
    const timer = setTimeout(async () => {
      this.timers.delete(timer);
      try {
        // Real time has passed even when the injected clock has not: settle by the timer.
        const payment = await this.load<LocalPayment>(id, 'payment');
        if (payment?.status !== 'pending') return;
        await this.finish(payment, payment._local.settleTo ?? 'paid', this.deps.clock.now());
        await this.notify(payment);
      } catch (err) {
        this.deps.logger.warn({ err, id }, 'local provider: settling failed');
      }
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** The payment as the REST API shows it (bookkeeping stripped, HAL links added). */
  present(payment: LocalPayment) {
    const { _local, ...rest } = payment;
    const links: Record<string, { href: string; type: string }> = {
      self: { href: `${this.apiBase}payments/${payment.id}`, type: 'application/hal+json' },
      documentation: { href: 'https://docs.mollie.com/reference/get-payment', type: 'text/html' },
    };
    if (payment.status === 'open' && _local.checkoutOrigin && payment.sequenceType !== 'recurring') {
      links.checkout = { href: `${_local.checkoutOrigin}${LOCAL_CHECKOUT_PATH}${payment.id}`, type: 'text/html' };
    }
    if (payment.mandateId && payment.customerId) links.mandate = { href: `${this.apiBase}customers/${payment.customerId}/mandates/${payment.mandateId}`, type: 'application/hal+json' };
    return { ...rest, _links: links };
  }

  close() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}

export interface LocalMandate {
  resource: 'mandate';
  id: string;
  mode: 'test';
  status: 'valid' | 'pending' | 'invalid';
  method: string;
  details: Record<string, string>;
  mandateReference: string;
  signatureDate: string;
  createdAt: string;
  customerId: string;
  declinesLater: boolean;
}

/** Path of the hosted checkout page under the public origin. */
export const LOCAL_CHECKOUT_PATH = '/api/local-mollie/checkout/';

function presentMandate(store: LocalMollieStore, m: LocalMandate) {
  const { declinesLater: _d, customerId, ...rest } = m;
  return { ...rest, _links: { self: { href: `${store.apiBase}customers/${customerId}/mandates/${m.id}`, type: 'application/hal+json' }, customer: { href: `${store.apiBase}customers/${customerId}`, type: 'application/hal+json' } } };
}

/** The REST API (Mollie v2 subset), for the internal https listener. */
export function localMollieRestApp(store: LocalMollieStore, apiKey: string) {
  const api = new Hono();
  const hal = { 'content-type': 'application/hal+json' };
  api.use('*', async (c, next) => {
    if (c.req.header('authorization') !== `Bearer ${apiKey}`) return c.json(problem(401, 'Unauthorized Request', 'Missing authentication, or failed to authenticate'), 401, hal);
    await next();
  });
  api.onError((err, c) => {
    if (err instanceof LocalApiError) return c.json(problem(err.status, err.title, err.detail, err.field), err.status as 404, hal);
    return c.json(problem(500, 'Internal Server Error', 'The local provider failed'), 500, hal);
  });
  const body = async (c: { req: { json(): Promise<unknown> } }) => {
    const parsed = await c.req.json().catch(() => null);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new LocalApiError(400, 'Bad Request', 'The request body is not valid JSON');
    return parsed as Record<string, unknown>;
  };
  const notFound = (kind: string, id: string) => { throw new LocalApiError(404, 'Not Found', `No ${kind} exists with token ${id}.`); };

  api.post('/v2/payments', async (c) => c.json(store.present(await store.createPayment(await body(c))), 201, hal));
  api.get('/v2/payments/:id', async (c) => {
    const payment = await store.getPayment(c.req.param('id'));
    return payment ? c.json(store.present(payment), 200, hal) : notFound('payment', c.req.param('id'));
  });
  api.post('/v2/payments/:id/refunds', async (c) => c.json(await store.refund(c.req.param('id'), await body(c)), 201, hal));
  api.post('/v2/payments/:id/chargebacks', async (c) => c.json(await store.chargeback(c.req.param('id'), await body(c)), 201, hal));
  api.get('/v2/methods/:id', (c) => {
    const id = c.req.param('id');
    if (!SUPPORTED_METHODS.has(id)) return notFound('method', id);
    const withIssuers = (c.req.query('include') ?? '').split(',').includes('issuers');
    return c.json({
      resource: 'method', id, description: id, status: 'activated',
      minimumAmount: { value: '0.01', currency: 'EUR' }, maximumAmount: { value: '50000.00', currency: 'EUR' },
      image: { size1x: '', size2x: '', svg: '' },
      ...(withIssuers && id === 'ideal' ? { issuers: LOCAL_IDEAL_ISSUERS.map(([iid, name]) => ({ resource: 'issuer', id: iid, name, image: { size1x: '', size2x: '', svg: '' } })) } : {}),
      _links: { self: { href: `${store.apiBase}methods/${id}`, type: 'application/hal+json' } },
    }, 200, hal);
  });
  api.post('/v2/customers', async (c) => c.json(await store.createCustomer(await body(c)), 201, hal));
  api.get('/v2/customers/:id', async (c) => {
    const customer = await store.getCustomer(c.req.param('id'));
    return customer ? c.json(customer, 200, hal) : notFound('customer', c.req.param('id'));
  });
  api.post('/v2/customers/:id/mandates', async (c) => c.json(presentMandate(store, await store.createMandate(c.req.param('id'), await body(c))), 201, hal));
  api.get('/v2/customers/:id/mandates', async (c) => {
    const mandates = (await store.listMandates(c.req.param('id'))).map((m) => presentMandate(store, m));
    return c.json({ count: mandates.length, _embedded: { mandates }, _links: { self: { href: `${store.apiBase}customers/${c.req.param('id')}/mandates`, type: 'application/hal+json' }, previous: null, next: null } }, 200, hal);
  });
  api.get('/v2/customers/:cid/mandates/:id', async (c) => {
    const mandate = await store.getMandate(c.req.param('cid'), c.req.param('id'));
    return mandate ? c.json(presentMandate(store, mandate), 200, hal) : notFound('mandate', c.req.param('id'));
  });
  api.notFound((c) => c.json(problem(404, 'Not Found', 'The resource does not exist'), 404, hal));
  return api;
}

/** The local provider's certificate and API key, made once and shared by every process (app_keys). */
async function loadLocalSecrets(handle: Db): Promise<{ key: string; cert: string; apiKey: string }> {
  const db = handle.db;
  const existing = await db.selectFrom('app_keys').select('value').where('name', '=', 'local_mollie').executeTakeFirst();
  if (existing) return JSON.parse(existing.value);
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048, algorithm: 'sha256', notAfterDate: new Date(Date.now() + 3650 * 86_400_000),
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const generated = { key: pems.private, cert: pems.cert, apiKey: `test_local${randomBytes(16).toString('hex')}` };
  await db.insertInto('app_keys').values({ name: 'local_mollie', value: JSON.stringify(generated) }).onConflict((oc) => oc.column('name').doNothing()).execute();
  const row = await db.selectFrom('app_keys').select('value').where('name', '=', 'local_mollie').executeTakeFirstOrThrow();
  return JSON.parse(row.value);
}

/** Starts the REST API on an https port of 127.0.0.1 (chosen by the OS) for this process. */
export async function startLocalMollie(deps: LocalMollieDeps, store: LocalMollieStore) {
  const secrets = await loadLocalSecrets(deps.db);
  const rest = localMollieRestApp(store, secrets.apiKey);
  const server = createAdaptorServer({ fetch: rest.fetch, createServer: createHttpsServer, serverOptions: { key: secrets.key, cert: secrets.cert } });
  // The client keeps connections open; a long server-side idle timeout avoids resets on reuse.
  (server as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`;
  store.apiBase = endpoint;
  return {
    endpoint,
    apiKey: secrets.apiKey,
    cert: secrets.cert,
    close: () => new Promise<void>((resolve) => {
      store.close();
      server.close(() => resolve());
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    }),
  };
}
