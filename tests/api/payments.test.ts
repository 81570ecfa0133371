import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatePaymentResponse, CreditsResponse, PaymentStatusResponse } from '../../src/shared/payments.contract';
import { activeMember, as, post } from '../helpers/members';
import { completeLocalCheckout, serveApi } from '../helpers/payments';
import { createTestApp, DIALECTS, type TestApp } from '../helpers/test-app';

type Member = Awaited<ReturnType<typeof activeMember>>;
const json = async <T>(res: Response | Promise<Response>) => (await res).json() as Promise<T>;

for (const dialect of DIALECTS) {
  describe(`payments (${dialect})`, () => {
    let t: TestApp;
    let server: Awaited<ReturnType<typeof serveApi>>;
    let ann: Member;
    const req = (path: string, init: RequestInit = {}) => t.request(path, { ...init, host: server.host } as never);
    const credits = async (m: Member) => (await t.app.db.db.selectFrom('users').select(['credits', 'paid_user']).where('id', '=', m.userId).executeTakeFirstOrThrow());

    beforeAll(async () => {
      t = await createTestApp(dialect);
      server = await serveApi(t);
      ann = await activeMember(t, 'Ann');
    });
    afterAll(async () => {
      await server.close();
      await t.app.payments.close();
      await t.close();
    });

    it('buys a bundle with iDEAL and a bank through the local checkout: credits once, premium', async () => {
      const overview = await json<CreditsResponse>(req('/api/credits.php', as(ann.cookie)));
      expect(overview.country).toBe('NL');
      expect(overview.methods[0].id).toBe('ideal');
      const start = await req('/api/payments.php', post(ann.cookie, { bundle: 2, method: 'ideal', issuer: 'ideal_INGBNL2A', country: 'NL', consent: true }));
      expect(start.status).toBe(201);
      const created = await json<CreatePaymentResponse>(start);
      expect(created.checkout_url).toContain('/api/local-mollie/checkout/tr_');
      const done = await completeLocalCheckout(created.checkout_url, 'paid');
      expect(done.status).toBe(303);
      expect(done.location).toBe(`${server.origin}/credits/return?id=${created.payment_id}`);
      const status = await json<PaymentStatusResponse>(req(`/api/payments.php?id=${created.payment_id}`, as(ann.cookie)));
      expect(status.view).toBe('completed');
      expect(await credits(ann)).toEqual({ credits: 250, paid_user: 1 });
    });
  });
}
