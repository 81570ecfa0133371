import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { DirectDebitSchema } from '../../src/shared/payments.contract';

/** The first message per field, as the form shows it (src/core/payments/direct-debit.store.ts). */
function firstMessages(input: Record<string, unknown>) {
  const checked = v.safeParse(DirectDebitSchema, input);
  const out: Record<string, string> = {};
  for (const issue of checked.issues ?? []) {
    const key = String(issue.path?.[0]?.key);
    out[key] ??= issue.message;
  }
  return out;
}

const empty = { bundle: 1, country: 'NL', account_holder: '', iban: '', street: '', house_number: '', postal_code: '', city: '', mobile: '', sms_code: '', authorization: false, consent: false };

describe('the direct debit form: empty fields are required, filled ones checked', () => {
  it('says "required" for every empty field, the IBAN, mobile number and SMS code too (they said "invalid")', () => {
    const messages = firstMessages(empty);
    for (const field of ['account_holder', 'iban', 'street', 'house_number', 'postal_code', 'city', 'mobile', 'sms_code']) {
      expect(messages[field], field).toBe('payments.dd.required');
    }
  });
  it('says "invalid" for a filled field in the wrong shape', () => {
    const messages = firstMessages({ ...empty, iban: 'NL12', mobile: '06', sms_code: '12ab' });
    expect(messages.iban).toBe('payments.dd.iban_invalid');
    expect(messages.mobile).toBe('payments.dd.mobile_invalid');
    expect(messages.sms_code).toBe('payments.sms_invalid');
  });
});
