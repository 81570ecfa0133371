import https from 'node:https';
import { createMollieClient, type MollieClient } from '@mollie/api-client';
import type { PaymentIssuer } from '../../shared/payments.contract';
import { type CreateMandateRequest, type CreatePaymentRequest, type PaymentProvider, type ProviderPayment, ProviderError } from './provider';

type AnyPayment = {
  id: string; status: string; amount: { currency: string; value: string }; amountRefunded?: { currency: string; value: string };
  amountChargedBack?: { currency: string; value: string }; metadata: unknown; method?: string | null; sequenceType: string;
  customerId?: string; mandateId?: string; _links: { checkout?: { href: string } };
};

function toProviderPayment(p: AnyPayment): ProviderPayment {
  return {
    id: p.id,
    status: p.status as ProviderPayment['status'],
    amount: p.amount,
    amountRefunded: p.amountRefunded,
    amountChargedBack: p.amountChargedBack,
    metadata: p.metadata,
    method: p.method ?? null,
    sequenceType: p.sequenceType,
    customerId: p.customerId,
    mandateId: p.mandateId,
    checkoutUrl: p._links?.checkout?.href ?? null,
  };
}

function wrap<T>(promise: Promise<T>): Promise<T> {
  return promise.catch((err: { message?: string; statusCode?: number }) => {
    throw new ProviderError(err?.message ?? 'provider error', err?.statusCode ?? null);
  });
}

/** Reads are idempotent: retry them twice on a network error (a reset keep-alive socket, a blip). */
async function read<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await wrap(call());
    } catch (err) {
      if (attempt >= 2 || (err as ProviderError).status !== null) throw err;
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
    }
  }
}

/**
 * Creates the official client. `trustCertificate` is only for the local provider: the client pins its
 * own CA bundle (it ignores a caCertificates option), so the one agent it makes while being constructed
 * also gets our self-signed certificate. Nothing else in the process trusts it.
 */
function makeClient(apiKey: string, apiEndpoint?: string, trustCertificate?: string): MollieClient {
  if (!trustCertificate) return createMollieClient({ apiKey, ...(apiEndpoint ? { apiEndpoint } : {}) });
  const Original = https.Agent;
  class TrustingAgent extends Original {
    constructor(options: https.AgentOptions = {}) {
      const ca = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
      // Keep-alive: the local provider runs in this process, so a TLS handshake per call would be pure overhead.
      super({ ...options, ca: [...ca, trustCertificate as string], keepAlive: true });
    }
  }
  (https as { Agent: typeof https.Agent }).Agent = TrustingAgent;
  try {
    return createMollieClient({ apiKey, apiEndpoint });
  } finally {
    (https as { Agent: typeof https.Agent }).Agent = Original;
  }
}

/** The provider over the official @mollie/api-client (real Mollie, or the local provider via apiEndpoint). */
export function createMollieProvider(options: { name: 'mollie' | 'local'; apiKey: string; apiEndpoint?: string; trustCertificate?: string; onClose?: () => Promise<void> }): PaymentProvider {
  const client = makeClient(options.apiKey, options.apiEndpoint, options.trustCertificate);
  return {
    name: options.name,
    async createPayment(input: CreatePaymentRequest) {
      const created = await wrap(client.payments.create(input as never));
      return toProviderPayment(created as unknown as AnyPayment);
    },
    async getPayment(id: string) {
      return toProviderPayment((await read(() => client.payments.get(id))) as unknown as AnyPayment);
    },
    async listIssuers(method: string): Promise<PaymentIssuer[]> {
      const found = (await read(() => client.methods.get(method as never, { include: 'issuers' } as never))) as unknown as {
        issuers?: { id: string; name: string; image?: { svg?: string; size2x?: string } }[];
      };
      return (found.issuers ?? []).map((i) => ({ id: i.id, name: i.name, image: i.image?.svg ?? i.image?.size2x ?? null }));
    },
    async createCustomer(input) {
      const customer = await wrap(client.customers.create(input as never));
      return customer.id;
    },
    async createMandate(customerId: string, input: CreateMandateRequest) {
      const mandate = await wrap(client.customerMandates.create({ customerId, method: 'directdebit', ...input } as never));
      return { id: mandate.id, status: mandate.status };
    },
    async mandateValid(customerId: string, mandateId: string) {
      const mandate = await read(() => client.customerMandates.get(mandateId, { customerId })).catch(() => null);
      return mandate?.status === 'valid';
    },
    async refund(paymentId, amount, description) {
      await wrap(client.paymentRefunds.create({ paymentId, amount, description } as never));
    },
    async close() {
      await options.onClose?.();
    },
  };
}
