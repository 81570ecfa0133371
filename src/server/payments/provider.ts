import type { PaymentIssuer } from '../../shared/payments.contract';

export type ProviderStatus = 'open' | 'pending' | 'authorized' | 'paid' | 'failed' | 'canceled' | 'expired';
export interface ProviderAmount { currency: string; value: string }

/** A payment as the provider reports it (the Mollie v2 payment resource, the fields we use). */
export interface ProviderPayment {
  id: string;
  status: ProviderStatus;
  amount: ProviderAmount;
  amountRefunded?: ProviderAmount;
  amountChargedBack?: ProviderAmount;
  metadata: unknown;
  method: string | null;
  sequenceType: string;
  customerId?: string;
  mandateId?: string;
  checkoutUrl: string | null;
}

export interface CreatePaymentRequest {
  amount: ProviderAmount;
  description: string;
  method: string;
  issuer?: string;
  /** Not for recurring payments (no buyer to send back). */
  redirectUrl?: string;
  /** Left out where the provider could not reach it (see webhookFor). */
  webhookUrl?: string;
  locale?: string;
  metadata: Record<string, unknown>;
  sequenceType?: 'oneoff' | 'first' | 'recurring';
  customerId?: string;
  mandateId?: string;
}

export interface CreateMandateRequest {
  consumerName: string;
  consumerAccount: string;
  signatureDate: string;
  mandateReference: string;
}

/**
 * The payment service behind /credits. One implementation talks to Mollie through the official
 * client; the same implementation pointed at our local Mollie-compatible API is the default.
 */
export interface PaymentProvider {
  readonly name: 'mollie' | 'local';
  createPayment(input: CreatePaymentRequest): Promise<ProviderPayment>;
  getPayment(id: string): Promise<ProviderPayment>;
  /** Banks for methods with issuers (iDEAL). */
  listIssuers(method: string): Promise<PaymentIssuer[]>;
  createCustomer(input: { name: string; email: string; metadata: Record<string, unknown> }): Promise<string>;
  createMandate(customerId: string, input: CreateMandateRequest): Promise<{ id: string; status: string }>;
  /** Whether the customer has a valid mandate for this one (repeat orders). */
  mandateValid(customerId: string, mandateId: string): Promise<boolean>;
  refund(paymentId: string, amount: ProviderAmount, description: string): Promise<void>;
  close(): Promise<void>;
}

/** A provider call failed (network, 5xx, or the provider refused the request). */
export class ProviderError extends Error {
  constructor(message: string, readonly status: number | null = null) {
    super(message);
  }
}
