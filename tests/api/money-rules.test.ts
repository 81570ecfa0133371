import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CreatePaymentResponse, DirectDebitInfoResponse, MethodsResponse, RepeatOrderResponse, TransactionResponse,
} from '../../src/shared/payments.contract';
import { ProviderError } from '../../src/server/payments/provider';
import { refundPayment, settleOpenPayments } from '../../src/server/payments/payments.service';
import { runPaymentsCommand } from '../../src/server/payments/refund-command';
import { activeMember, as, post } from '../helpers/members';
import { completeLocalCheckout, type serveApi, smsCodeFor, startPaymentsApp, stopPaymentsApp } from '../helpers/payments';
import { DIALECTS, type TestApp } from '../helpers/test-app';

type Member = Awaited<ReturnType<typeof activeMember>>;
const json = async <T>(res: Response | Promise<Response>) => (await res).json() as Promise<T>;
const HOUR = 3_600_000;
const PARALLEL = 10;
// content/sites/kindred.yaml: bundle 1 = 100 credits for EUR 34.95; the trial package is bundle 9.
const B1 = { id: 1, credits: 100, eur: 3495 };

/**
 * Issue 23: money is exact under parallel requests, on SQLite and PostgreSQL. Every race below fires
 * PARALLEL requests at once and then reconciles the database (ledger = balances, every credit has a
 * paid payment, each one-time offer consumed at most once per member).
 */
for (const dialect of DIALECTS) {
  describe(`money rules (${dialect})`, () => {
    let t: TestApp;
    let server: Awaited<ReturnType<typeof serveApi>>;
    let names = 0;
    const req = (path: string, init: RequestInit & { host?: string } = {}) => t.request(path, { host: server.host, ...init });
    const member = (extra: Parameters<typeof activeMember>[2] = {}) => activeMember(t, `Exact${++names}x${dialect}`, extra);
    const oldMember = async (extra: Parameters<typeof activeMember>[2] = {}) => {
      const m = await member(extra);
      await t.app.db.db.updateTable('users').set({ created_at: t.clock.now() - 30 * 24 * HOUR }).where('id', '=', m.userId).execute();
      return m;
    };
    const from = (country: string, init: RequestInit) => ({ ...init, headers: { ...(init.headers as Record<string, string>), 'cf-ipcountry': country } });
    const order = (body: Record<string, unknown> = {}) => ({ bundle: B1.id, method: 'ideal', country: 'NL', consent: true, ...body });
    const pay = (m: Member, body: Record<string, unknown> = {}) => req('/api/payments.php', post(m.cookie, order(body)));
    const row = (id: number) => t.app.db.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const payments = (m: Member) => t.app.db.db.selectFrom('payments').selectAll().where('user_id', '=', m.userId).orderBy('id').execute();
    const providerAmount = async (providerId: string) => {
      const stored = await t.app.db.db.selectFrom('local_mollie_objects').select('data').where('id', '=', providerId).executeTakeFirstOrThrow();
      return (JSON.parse(stored.data) as { amount: { value: string } }).amount.value;
    };
    const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();
    const addCode = (code: string, percentage = 50) => t.app.db.db.insertInto('discount_codes').values({
      site_id: 'kindred', code: code.toUpperCase(), kind: 'standard', country: null, user_id: null, expires_at: null, value_percentage: percentage, currency: null,
      minimum_order_value: 0, status: 'active', validity: 'once-per-user', paymentmethods: '[]', created_at: t.clock.now(),
    }).execute();

    /** The invariants every money rule keeps, checked after each race. */
    async function reconcile() {
      const db = t.app.db.db;
      const users = await db.selectFrom('users').select(['id', 'credits']).execute();
      const ledger = await db.selectFrom('credit_ledger').select(['user_id', 'delta']).execute();
      const sums = new Map<number, number>();
      for (const l of ledger) sums.set(l.user_id, (sums.get(l.user_id) ?? 0) + Number(l.delta));
      for (const u of users) if (sums.has(u.id)) expect(sums.get(u.id), `ledger of user ${u.id}`).toBe(u.credits);
      const purchases = await db.selectFrom('credit_ledger').select(['idempotency_key', 'delta']).where('reason', '=', 'purchase').execute();
      for (const p of purchases) {
        const paid = await db.selectFrom('payments').select(['paid_at', 'credits']).where('id', '=', Number(p.idempotency_key.split(':')[1])).executeTakeFirst();
        expect(paid?.paid_at, `purchase ${p.idempotency_key} has a paid payment`).not.toBeNull();
        expect(Number(p.delta)).toBe(paid?.credits);
      }
      const offers = await db.selectFrom('payments').select(['user_id', 'offer_key']).where('offer_key', 'is not', null)
        .where('status', 'not in', ['failed', 'canceled', 'expired']).execute();
      const seen = new Set<string>();
      for (const o of offers) {
        const key = `${o.user_id}:${o.offer_key}`;
        expect(seen.has(key), `offer ${key} held once`).toBe(false);
        seen.add(key);
      }
    }

    beforeAll(async () => {
      ({ t, server } = await startPaymentsApp(dialect));
    });
    afterAll(() => stopPaymentsApp({ t, server }));

    describe('once-per-member offers are used once', () => {
      it(`${PARALLEL} parallel orders with a once-per-user code: one order holds it; freed when that order fails, consumed when paid`, async () => {
        const m = await oldMember();
        await addCode(`HALF${dialect}`);
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => pay(m, { discount: `half${dialect}` })));
        expect(statuses(answers)).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
        const refused = await json<{ error: string; message: string }>(answers.find((a) => a.status === 409)!);
        expect(refused.error).toBe('offer_reserved');
        expect(refused.message).toMatch(/not finished yet/);
        const held = await json<CreatePaymentResponse>(answers.find((a) => a.status === 201)!);
        // Sequentially too, while the first is open.
        expect((await pay(m, { discount: `HALF${dialect}`, method: 'paypal' })).status).toBe(409);
        // Without the code the member can still buy (list price).
        const plain = await pay(m);
        expect(plain.status).toBe(201);
        expect((await row((await json<CreatePaymentResponse>(plain)).payment_id)).amount).toBe(B1.eur);
        // The held order fails: the code is free again, and the retry keeps it.
        await completeLocalCheckout(held.checkout_url, 'failed');
        const retry = await pay(m, { discount: `HALF${dialect}`, method: 'creditcard' });
        expect(retry.status).toBe(201);
        const second = await json<CreatePaymentResponse>(retry);
        expect((await row(second.payment_id)).amount).toBe(Math.round(B1.eur / 2));
        await completeLocalCheckout(second.checkout_url, 'paid');
        const used = await pay(m, { discount: `HALF${dialect}` });
        expect(used.status).toBe(409);
        expect((await json<{ message: string }>(used)).message).toBe('Code already used');
        const paidWithCode = (await payments(m)).filter((p) => p.discount_code === `HALF${dialect}`.toUpperCase() && p.paid_at !== null);
        expect(paidWithCode).toHaveLength(1);
        await reconcile();
      });

      it(`the time bonus and the welcome code: ${PARALLEL} parallel orders, one discounted order at a time`, async () => {
        const m = await member(); // signed up now: the time bonus is the active discount
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => pay(m)));
        expect(statuses(answers)).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
        const first = await json<CreatePaymentResponse>(answers.find((a) => a.status === 201)!);
        expect((await row(first.payment_id)).discount_code).toMatch(/^BONUS/);
        await completeLocalCheckout(first.checkout_url, 'paid');
        // Paid: premium now, so neither the time bonus nor the welcome code applies again.
        const after = await pay(m);
        expect(after.status).toBe(201);
        expect((await row((await json<CreatePaymentResponse>(after)).payment_id)).discount_code).toBeNull();

        const w = await member();
        // Past the time bonus, within the welcome window: the welcome code.
        t.clock.advance(5 * HOUR);
        const welcome = await Promise.all(Array.from({ length: PARALLEL }, () => pay(w)));
        expect(statuses(welcome)).toEqual([201, ...Array(PARALLEL - 1).fill(409)]);
        const held = await json<CreatePaymentResponse>(welcome.find((a) => a.status === 201)!);
        expect((await row(held.payment_id)).discount_code).toMatch(/^WELCOME/);
        await reconcile();
      });

      it('the trial package: two parallel orders, one of them', async () => {
        const m = await oldMember();
        const trial = t.app.sites.forHost('localhost').payments.bundles.find((b) => b.trial);
        expect(trial).toBeDefined();
        const answers = await Promise.all([pay(m, { bundle: trial!.id }), pay(m, { bundle: trial!.id, method: 'creditcard' })]);
        expect(statuses(answers)).toEqual([201, 409]);
        const created = await json<CreatePaymentResponse>(answers.find((a) => a.status === 201)!);
        await completeLocalCheckout(created.checkout_url, 'paid');
        expect((await pay(m, { bundle: trial!.id })).status).toBe(409);
        expect((await payments(m)).filter((p) => p.trial === 1 && p.paid_at !== null)).toHaveLength(1);
        await reconcile();
      });

      it('an abandoned checkout frees its offer when the provider lets it expire (the settlement job asks)', async () => {
        const m = await member();
        const created = await json<CreatePaymentResponse>(await pay(m));
        expect((await pay(m)).status).toBe(409);
        t.clock.advance(16 * 60_000);
        await settleOpenPayments(t.app);
        expect((await row(created.payment_id)).status).toBe('expired');
        const again = await pay(m);
        expect(again.status).toBe(201);
      });
    });

    describe('the price shown is the price charged', () => {
      it('direct debit carries the checkout discount: same amount on both pages and at the provider', async () => {
        const m = await member();
        const methods = await json<MethodsResponse>(req('/api/payment-methods.php?bundle=1&country=NL', as(m.cookie)));
        const shown = methods.quotes.directdebit ?? methods.offer.quote;
        expect(shown.discount).not.toBeNull();
        const info = await json<DirectDebitInfoResponse>(req('/api/directdebit.php?bundle=1&country=NL', as(m.cookie)));
        expect(info.offer?.quote.amount).toBe(shown.amount);
        expect(info.offer?.quote.vat_amount).toBe(shown.vat_amount);
        const mobile = `06 1${String(m.userId).padStart(7, '0')}`;
        expect((await req('/api/directdebit.php?sms=1', post(m.cookie, { mobile, country: 'NL' }))).status).toBe(200);
        const code = await smsCodeFor(t, `+3161${String(m.userId).padStart(7, '0')}`);
        const res = await req('/api/directdebit.php', post(m.cookie, {
          bundle: 1, country: 'NL', account_holder: 'Anna de Vries', iban: 'NL91 ABNA 0417 1643 00', street: 'Keizersgracht', house_number: '1',
          postal_code: '1015 CJ', city: 'Amsterdam', mobile, sms_code: code, authorization: true, consent: true,
        }));
        expect(res.status).toBe(201);
        const done = await json<{ payment: { payment_id: number; amount: number; vat_amount: number } }>(res);
        expect(done.payment).toMatchObject({ amount: shown.amount, vat_amount: shown.vat_amount });
        const stored = await row(done.payment.payment_id);
        expect(await providerAmount(stored.provider_id as string)).toBe((shown.amount / 100).toFixed(2));
      });

      it('"Try another method" after a failed payment keeps an entered code', async () => {
        const m = await oldMember();
        await addCode(`RETRY${dialect}`, 20);
        const failed = await json<CreatePaymentResponse>(await pay(m, { discount: `RETRY${dialect}` }));
        await completeLocalCheckout(failed.checkout_url, 'failed');
        const status = await json<{ payment: { discount_code: string; country: string; bundle_id: number } }>(req(`/api/payments.php?id=${failed.payment_id}`, as(m.cookie)));
        const { retryPath } = await import('../../src/shared/payments.contract');
        const path = retryPath(status.payment);
        expect(path).toBe(`/credits/1?country=NL&discount=RETRY${dialect.toUpperCase()}`);
        const retried = await json<CreatePaymentResponse>(await pay(m, { method: 'paypal', discount: new URL(path, 'http://x').searchParams.get('discount') }));
        expect((await row(retried.payment_id)).amount).toBe(Math.round(B1.eur * 0.8));
      });
    });

    describe('repeat orders charge once', () => {
      const premiumWithCard = async () => {
        const m = await oldMember();
        const created = await json<CreatePaymentResponse>(await pay(m, { method: 'creditcard' }));
        await completeLocalCheckout(created.checkout_url, 'paid');
        return m;
      };
      const repeat = (m: Member, key?: string) => req('/api/repeat-order.php', post(m.cookie, { consent: true, ...(key ? { key } : {}) }));

      it(`${PARALLEL} parallel repeat orders with one key are one order`, async () => {
        const m = await premiumWithCard();
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => repeat(m, 'click-0001-abcd')));
        expect(answers.every((a) => a.status === 200)).toBe(true);
        const ids = new Set(await Promise.all(answers.map(async (a) => (await json<RepeatOrderResponse>(a)).payment.payment_id)));
        expect(ids.size).toBe(1);
        expect((await payments(m)).filter((p) => p.sequence_type === 'recurring')).toHaveLength(1);
        await reconcile();
      });

      it(`${PARALLEL} parallel repeat orders without a key: at most one open charge at a time`, async () => {
        const m = await premiumWithCard();
        const provider = (await t.app.payments.provider())!;
        const original = provider.createPayment;
        // A slow provider keeps the first charge open while the others arrive.
        (provider as { createPayment: typeof original }).createPayment = async (input) => {
          await new Promise((r) => setTimeout(r, 150));
          return original(input);
        };
        try {
          const answers = await Promise.all(Array.from({ length: PARALLEL }, () => repeat(m)));
          const ok = answers.filter((a) => a.status === 200);
          expect(ok).toHaveLength(1);
          expect(answers.filter((a) => a.status === 409)).toHaveLength(PARALLEL - 1);
          expect((await json<{ error: string }>(answers.find((a) => a.status === 409)!)).error).toBe('order_in_progress');
        } finally {
          (provider as { createPayment: typeof original }).createPayment = original;
        }
        expect((await payments(m)).filter((p) => p.sequence_type === 'recurring')).toHaveLength(1);
        // Once it ended, the next click is a new order.
        expect((await repeat(m, 'click-0002-abcd')).status).toBe(200);
        expect((await payments(m)).filter((p) => p.sequence_type === 'recurring')).toHaveLength(2);
        await reconcile();
      });
    });

    describe('the payment country follows evidence', () => {
      it('refuses a country no evidence backs; another one with the profile or the visitor country; stores and shows the evidence', async () => {
        const m = await oldMember(); // profile in NL
        const us = await req('/api/payments.php', from('NL', post(m.cookie, order({ country: 'US', method: 'creditcard' }))));
        expect(us.status).toBe(403);
        expect((await json<{ error: string; message: string }>(us))).toMatchObject({ error: 'country_evidence' });
        expect((await req('/api/payment-methods.php?bundle=1&country=US', from('NL', as(m.cookie)))).status).toBe(403);
        // Visiting from France: France is backed by the visitor's country, NL by the profile.
        const credits = await json<{ country: string; countries: { code: string }[] }>(req('/api/credits.php', from('FR', as(m.cookie))));
        expect(credits.country).toBe('FR');
        expect(credits.countries.map((c) => c.code).sort()).toEqual(['FR', 'NL']);
        const fr = await req('/api/payments.php', from('FR', post(m.cookie, order({ country: 'FR', method: 'creditcard' }))));
        expect(fr.status).toBe(201);
        const created = await json<CreatePaymentResponse>(fr);
        expect(await row(created.payment_id)).toMatchObject({ country: 'FR', currency: 'EUR', vat_rate: 20 });
        expect(JSON.parse((await row(created.payment_id)).metadata).country_evidence).toEqual({ ip: 'FR', profile: 'NL' });
        await completeLocalCheckout(created.checkout_url, 'paid');
        const receipt = await json<TransactionResponse>(req(`/api/transactions.php?id=${created.payment_id}`, as(m.cookie)));
        expect(receipt.receipt?.country_evidence).toEqual({ ip: 'FR', profile: 'NL', iban: null });
        // Nothing was created by the refusals.
        expect((await payments(m)).map((p) => p.country)).toEqual(['FR']);
      });

      it("direct debit: the IBAN's country is evidence", async () => {
        const m = await oldMember(); // profile in NL, no visitor country known
        const mobile = `+49 151 2${String(m.userId).padStart(7, '0')}`;
        const form = { bundle: 1, country: 'DE', account_holder: 'Anna Schmidt', street: 'Hauptstraße', house_number: '1', postal_code: '10115', city: 'Berlin', mobile, authorization: true, consent: true };
        // The SMS goes to a mobile number of the chosen country only.
        expect((await req('/api/directdebit.php?sms=1', post(m.cookie, { mobile, country: 'NL' }))).status).toBe(400);
        expect((await req('/api/directdebit.php?sms=1', post(m.cookie, { mobile, country: 'DE' }))).status).toBe(200);
        const code = await smsCodeFor(t, `+491512${String(m.userId).padStart(7, '0')}`);
        // DE with a Dutch IBAN, a Dutch profile and no visitor country: nothing agrees.
        const refused = await req('/api/directdebit.php', post(m.cookie, { ...form, iban: 'NL91 ABNA 0417 1643 00', sms_code: code }));
        expect(refused.status).toBe(403);
        expect((await json<{ error: string }>(refused)).error).toBe('country_evidence');
        // A German IBAN backs DE: German VAT, and the evidence on the receipt.
        const de = await req('/api/directdebit.php', post(m.cookie, { ...form, iban: 'DE89 3704 0044 0532 0130 00', sms_code: code }));
        expect(de.status).toBe(201);
        const done = await json<{ payment: { payment_id: number; vat_rate: number; country: string } }>(de);
        expect(done.payment).toMatchObject({ country: 'DE', vat_rate: 19 });
        expect(JSON.parse((await row(done.payment.payment_id)).metadata).country_evidence).toEqual({ ip: null, profile: 'NL', iban: 'DE' });
      });
    });

    describe('receipts, refunds and settlement', () => {
      it('a failed, cancelled or expired payment has no receipt; a refunded one shows the refund', async () => {
        const m = await oldMember();
        for (const outcome of ['failed', 'canceled', 'expired'] as const) {
          const created = await json<CreatePaymentResponse>(await pay(m));
          await completeLocalCheckout(created.checkout_url, outcome);
          const answer = await json<TransactionResponse>(req(`/api/transactions.php?id=${created.payment_id}`, as(m.cookie)));
          expect(answer.receipt).toBeNull();
          expect(answer.payment.status).toBe(outcome);
        }
        const open = await json<CreatePaymentResponse>(await pay(m));
        expect((await json<TransactionResponse>(req(`/api/transactions.php?id=${open.payment_id}`, as(m.cookie)))).receipt).toBeNull();
        await completeLocalCheckout(open.checkout_url, 'paid');
        await refundPayment(t.app, { siteId: 'kindred', paymentId: open.payment_id }, null);
        const refunded = await json<TransactionResponse>(req(`/api/transactions.php?id=${open.payment_id}`, as(m.cookie)));
        expect(refunded.receipt?.payment).toMatchObject({ status: 'refunded', refunded_amount: B1.eur });
      });

      it(`${PARALLEL} parallel refunds of one payment refund it once; a refused refund is a 409 and recorded as refused`, async () => {
        const m = await oldMember();
        const created = await json<CreatePaymentResponse>(await pay(m));
        await completeLocalCheckout(created.checkout_url, 'paid');
        const outcomes: string[] = [];
        const results = await Promise.allSettled(Array.from({ length: PARALLEL }, () =>
          refundPayment(t.app, { siteId: 'kindred', paymentId: created.payment_id }, null, async (trx, outcome) => {
            // Written in the refund's own transaction: it sees the applied refund.
            const inTrx = await trx.selectFrom('payments').select('refunded_amount').where('id', '=', outcome.row.id).executeTakeFirstOrThrow();
            outcomes.push(outcome.refused ? 'refused' : `refund:${inTrx.refunded_amount}`);
          })));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(outcomes).toEqual([`refund:${B1.eur}`]);
        expect(await row(created.payment_id)).toMatchObject({ status: 'refunded', refunded_amount: B1.eur, credits_taken_back: B1.credits, refunding_at: null });
        await reconcile();

        const other = await json<CreatePaymentResponse>(await pay(m));
        await completeLocalCheckout(other.checkout_url, 'paid');
        const provider = (await t.app.payments.provider())!;
        const original = provider.refund;
        (provider as { refund: typeof original }).refund = async () => { throw new ProviderError('The payment cannot be refunded', 422); };
        const recorded: (string | null)[] = [];
        try {
          const err = await refundPayment(t.app, { siteId: 'kindred', paymentId: other.payment_id }, null, async (_trx, outcome) => { recorded.push(outcome.refused); })
            .catch((e: unknown) => e as { status: number; code: string });
          expect(err).toMatchObject({ status: 409, code: 'refund_refused' });
          expect(recorded).toEqual(['The payment cannot be refunded']);
          const cli = await runPaymentsCommand(t.app, ['refund', 'kindred', String(other.payment_id)]);
          expect(cli.code).toBe(1);
          expect(cli.out.join('\n')).toMatch(/refused this refund/);
          (provider as { refund: typeof original }).refund = async () => { throw new ProviderError('socket hang up', null); };
          expect(await refundPayment(t.app, { siteId: 'kindred', paymentId: other.payment_id }, null).catch((e: unknown) => e)).toMatchObject({ status: 502 });
        } finally {
          (provider as { refund: typeof original }).refund = original;
        }
        expect(await row(other.payment_id)).toMatchObject({ status: 'paid', refunded_amount: 0, refunding_at: null });
      });

      it('a payment paid at the provider without a webhook is credited by the settlement job, once', async () => {
        const members = await Promise.all([oldMember(), oldMember(), oldMember()]);
        const created = await Promise.all(members.map(async (m) => json<CreatePaymentResponse>(await pay(m))));
        const store = t.app.payments.local!;
        // Paid at the provider; the webhook never arrives (as after a crash).
        for (const c of created) await store.choose((await row(c.payment_id)).provider_id as string, 'paid', null).catch(() => undefined);
        for (const c of created) {
          const r = await row(c.payment_id);
          if (r.status === 'paid') await t.app.db.db.updateTable('payments').set({ status: 'open', paid_at: null }).where('id', '=', r.id).execute();
        }
        expect((await settleOpenPayments(t.app)).checked).toBe(0); // too young to ask about
        t.clock.advance(6 * 60_000);
        await Promise.all([settleOpenPayments(t.app), settleOpenPayments(t.app)]);
        for (const c of created) expect((await row(c.payment_id)).status).toBe('paid');
        await reconcile();
      });
    });

    describe('direct-debit SMS limits hold under parallel requests', () => {
      it(`${PARALLEL} parallel sends give one SMS; a number gets the limit across members; only numbers of the payment country`, async () => {
        const m = await member();
        const mobile = `06 2${String(m.userId).padStart(7, '0')}`;
        const e164 = `+3162${String(m.userId).padStart(7, '0')}`;
        const answers = await Promise.all(Array.from({ length: PARALLEL }, () => req('/api/directdebit.php?sms=1', post(m.cookie, { mobile, country: 'NL' }))));
        expect(statuses(answers)).toEqual([200, ...Array(PARALLEL - 1).fill(429)]);
        const sms = await t.app.db.db.selectFrom('mails').select('id').where('to_address', '=', `sms:${e164}`).execute();
        expect(sms).toHaveLength(1);
        // Another member asking for the same number within the minute: refused too.
        const other = await member();
        t.clock.advance(30_000);
        expect((await req('/api/directdebit.php?sms=1', post(other.cookie, { mobile, country: 'NL' }))).status).toBe(429);
        // A German mobile is no number of the Netherlands.
        expect((await req('/api/directdebit.php?sms=1', post(other.cookie, { mobile: '+49 151 23456789', country: 'NL' }))).status).toBe(400);
      });

      it('30 parallel guesses: at most 5 are evaluated, then the code is dead', async () => {
        const m = await member();
        const mobile = `06 3${String(m.userId).padStart(7, '0')}`;
        expect((await req('/api/directdebit.php?sms=1', post(m.cookie, { mobile, country: 'NL' }))).status).toBe(200);
        const code = await smsCodeFor(t, `+3163${String(m.userId).padStart(7, '0')}`);
        const wrong = code === '111111' ? '222222' : '111111';
        const form = (sms_code: string) => ({
          bundle: 1, country: 'NL', account_holder: 'Anna de Vries', iban: 'NL91 ABNA 0417 1643 00', street: 'Keizersgracht', house_number: '1',
          postal_code: '1015 CJ', city: 'Amsterdam', mobile, sms_code, authorization: true, consent: true,
        });
        const guesses = await Promise.all(Array.from({ length: 30 }, () => req('/api/directdebit.php', post(m.cookie, form(wrong)))));
        expect(guesses.every((g) => g.status === 400)).toBe(true);
        const stored = await t.app.db.db.selectFrom('sms_codes').select('tries').where('user_id', '=', m.userId).executeTakeFirstOrThrow();
        expect(stored.tries).toBe(5);
        expect((await req('/api/directdebit.php', post(m.cookie, form(code)))).status).toBe(400);
        expect(await payments(m)).toHaveLength(0);
      });
    });

    describe('bad ids and smaller holes', () => {
      it('ids past 2³¹ are bad input (400), never a 500', async () => {
        const m = await member();
        const big = 2 ** 31;
        for (const [path, body] of [
          ['/api/like.php', { profile_id: big }], ['/api/block.php', { profile_id: big }], ['/api/report.php', { profile_id: big, reason: 'spam' }],
          ['/api/swipe.php', { profile_id: big, decision: 'like' }], ['/api/messages.php', { conversation: big, kind: 'text', text: 'hi', client_id: 'abcdefgh-1' }],
          ['/api/messages.php', { profile_id: big, kind: 'text', text: 'hi', client_id: 'abcdefgh-2' }], ['/api/chat-read.php', { conversation: big }],
          ['/api/photo-main.php', { photo_id: big }],
        ] as const) {
          const res = await req(path, post(m.cookie, body, path === '/api/photo-main.php' ? 'PUT' : 'POST'));
          expect(res.status, path).toBeGreaterThanOrEqual(400);
          expect(res.status, path).toBeLessThan(500);
        }
        expect((await req(`/api/payments.php?id=${big}`, as(m.cookie))).status).toBe(400);
        expect((await req(`/api/transactions.php?id=${big}`, as(m.cookie))).status).toBe(400);
      });

      it('the signup keeps only tracking values of a safe charset and length', async () => {
        const body = (tracking: Record<string, string>) => JSON.stringify({
          email: `track${++names}${dialect}@example.com`, name: `Track${names}`, password: 'Secret-pass-123', date_of_birth: '1980-05-01', gender: 'female', tracking,
        });
        const send = (tracking: Record<string, string>) => t.request('/api/signup.php', { method: 'POST', headers: { 'content-type': 'application/json', cookie: 'lang=en' }, body: body(tracking) });
        expect((await send({ network: 'adnet', sub1: 'abc-123' })).status).toBe(200);
        for (const bad of [{ network: '<script>' }, { sub1: 'x'.repeat(129) }, { ref: 'a b' }, { sub2: '"quoted"' }] as Record<string, string>[]) {
          const res = await send(bad);
          expect(res.status, JSON.stringify(bad)).toBe(400);
        }
      });

      it('a lander view counts once per visit and is limited per address', async () => {
        const views = async () => Number((await t.app.db.db.selectFrom('lander_funnel').select((eb) => eb.fn.sum<number>('views').as('n'))
          .where('lander', '=', 'gallery').where('slug', '=', 'counted').executeTakeFirst())?.n ?? 0);
        const view = (cookie: string, ip = '203.0.113.9') => t.request('/api/lander-view.php', {
          method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-test-ip': ip }, body: JSON.stringify({ lander: 'gallery', slug: 'counted' }),
        });
        const first = await view('lang=en');
        expect(first.status).toBe(204);
        const cookie = first.headers.get('set-cookie')!.split(';')[0];
        for (let i = 0; i < 5; i++) expect((await view(`lang=en; ${cookie}`)).status).toBe(204);
        expect(await views()).toBe(1);
        // Without the cookie, an address gets LANDER_VIEW_IP counted views an hour, then 429.
        const answers: number[] = [];
        for (let i = 0; i < 80; i++) answers.push((await view('lang=en', '203.0.113.10')).status);
        expect(answers).toContain(429);
        expect(await views()).toBeLessThanOrEqual(1 + 60);
      });
    });
  });
}
