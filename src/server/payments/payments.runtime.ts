import type { Logger } from 'pino';
import type { Clock } from '../util/clock';
import type { Config } from '../config';
import type { Db } from '../db/database';
import { LocalMollieStore, startLocalMollie } from './local-mollie';
import { createMollieProvider } from './mollie.provider';
import type { PaymentProvider } from './provider';
import { createSmsSender, type SmsSender } from './sms';

/** The payment provider (Mollie, or the local one), the local provider's store, and the SMS sender. */
export interface PaymentsRuntime {
  /** null when payments are not configured (production without MOLLIE_API_KEY). */
  provider(): Promise<PaymentProvider | null>;
  /** The local provider's store (checkout page, tests), or null with real Mollie. */
  local: LocalMollieStore | null;
  sms: SmsSender | null;
  close(): Promise<void>;
}

export function createPaymentsRuntime(deps: { config: Config; db: Db; clock: Clock; logger: Logger }): PaymentsRuntime {
  const { config } = deps;
  const sms = createSmsSender({ production: config.production, gateway: config.sms, db: deps.db, clock: deps.clock });
  if (config.mollieApiKey) {
    const provider = createMollieProvider({ name: 'mollie', apiKey: config.mollieApiKey });
    return { provider: async () => provider, local: null, sms, close: () => provider.close() };
  }
  if (config.production && !config.localPayments) {
    return { provider: async () => null, local: null, sms, async close() {} };
  }
  const store = new LocalMollieStore(deps);
  // The https listener starts on first use, so CLIs and processes that never take a payment skip it.
  let started: Promise<PaymentProvider> | null = null;
  return {
    local: store,
    sms,
    provider() {
      started ??= startLocalMollie(deps, store).then((server) =>
        createMollieProvider({ name: 'local', apiKey: server.apiKey, apiEndpoint: server.endpoint, trustCertificate: server.cert, onClose: server.close }));
      return started;
    },
    async close() {
      store.close();
      if (started) await (await started).close();
    },
  };
}
