import { atom } from 'nanostores';
import * as v from 'valibot';
import {
  DirectDebitSchema, DirectDebitSmsSchema, type DirectDebitInfoResponse, type DirectDebitResponse, type DirectDebitSmsResponse,
  PAYMENTS_PATHS, RETURN_PATH,
} from '../../shared/payments.contract';
import { ApiError, api, call } from '../api/client';

/** The SPEC §5 fields, as typed. */
export interface DirectDebitFields {
  account_holder: string;
  iban: string;
  street: string;
  house_number: string;
  postal_code: string;
  city: string;
  mobile: string;
  sms_code: string;
  authorization: boolean;
  consent: boolean;
}
export type DirectDebitField = keyof DirectDebitFields;

export interface DirectDebitState {
  info: DirectDebitInfoResponse;
  bundle: number;
  country: string;
  code: string | null;
  fields: DirectDebitFields;
  /** Per field: a catalog key (client check) or a translated server message. */
  errors: Partial<Record<DirectDebitField, string>>;
  /** A refusal of the whole form (translated), e.g. 'Code invalid', the 30-day limit. */
  message: string | null;
  sms: { status: 'idle' | 'sending' | 'sent'; resendAt: number };
  status: 'ready' | 'sending' | 'done';
}

const EMPTY: DirectDebitFields = {
  account_holder: '', iban: '', street: '', house_number: '', postal_code: '', city: '', mobile: '', sms_code: '', authorization: false, consent: false,
};

export const $directDebit = atom<DirectDebitState | null>(null);

const path = (full: string) => full.replace(/^\/api\//, '');
function patch(next: Partial<DirectDebitState>) {
  const state = $directDebit.get();
  if (state) $directDebit.set({ ...state, ...next });
}

/** The page's server-rendered form data (mandate text, limits, the order's quote). */
export function setInitialDirectDebit(info: DirectDebitInfoResponse, bundle: number, country: string, code: string | null) {
  $directDebit.set({
    info, bundle, country, code, fields: { ...EMPTY }, errors: {}, message: null, sms: { status: 'idle', resendAt: 0 }, status: 'ready',
  });
}

export function setField<K extends DirectDebitField>(field: K, value: DirectDebitFields[K]) {
  const state = $directDebit.get();
  if (!state) return;
  const errors = { ...state.errors };
  delete errors[field];
  patch({ fields: { ...state.fields, [field]: value }, errors });
}

/** Field → first issue's message (a catalog key) from a valibot result. */
function issuesByField(issues: v.BaseIssue<unknown>[]): Partial<Record<DirectDebitField, string>> {
  const errors: Partial<Record<DirectDebitField, string>> = {};
  for (const issue of issues) {
    const key = issue.path?.[0]?.key as DirectDebitField | undefined;
    if (key && !errors[key]) errors[key] = issue.message.startsWith('payments.') ? issue.message : 'payments.dd.required';
  }
  return errors;
}

function refusal(err: unknown): Pick<DirectDebitState, 'errors' | 'message'> {
  if (!(err instanceof ApiError)) return { errors: {}, message: null };
  const fields = err.fields as Partial<Record<DirectDebitField, string>>;
  return { errors: fields, message: Object.keys(fields).length > 0 ? null : err.message };
}

/** Sends the SMS code to the mobile number (checked with the shared schema first). */
export async function sendSmsCode(now = Date.now()): Promise<void> {
  const state = $directDebit.get();
  if (!state || state.sms.status === 'sending' || now < state.sms.resendAt) return;
  const input = { mobile: state.fields.mobile, country: state.country };
  const checked = v.safeParse(DirectDebitSmsSchema, input);
  if (!checked.success) {
    patch({ errors: { ...state.errors, ...issuesByField(checked.issues) } });
    return;
  }
  patch({ sms: { ...state.sms, status: 'sending' }, message: null });
  try {
    const answer = await call(() =>
      api.post(path(PAYMENTS_PATHS.directDebit), { searchParams: { sms: '1' }, json: checked.output, retry: 0 }).json<DirectDebitSmsResponse>());
    patch({ sms: { status: 'sent', resendAt: answer.resend_after } });
  } catch (err) {
    const current = $directDebit.get() as DirectDebitState;
    const { errors, message } = refusal(err);
    patch({ sms: { ...current.sms, status: current.sms.resendAt ? 'sent' : 'idle' }, errors: { ...current.errors, ...errors }, message });
  }
}

/**
 * Checks every field with the shared schema, then POST /api/directdebit.php. Resolves to the
 * return page of the new payment, or null when something is missing or refused.
 */
export async function submitDirectDebit(): Promise<string | null> {
  const state = $directDebit.get();
  if (state?.status !== 'ready') return null;
  const input = { bundle: state.bundle, country: state.country, ...(state.code ? { discount: state.code } : {}), ...state.fields };
  const checked = v.safeParse(DirectDebitSchema, input);
  if (!checked.success) {
    patch({ errors: issuesByField(checked.issues), message: null });
    return null;
  }
  patch({ status: 'sending', errors: {}, message: null });
  try {
    const answer = await call(() => api.post(path(PAYMENTS_PATHS.directDebit), { json: checked.output, retry: 0 }).json<DirectDebitResponse>());
    patch({ status: 'done' });
    return `${RETURN_PATH}?id=${answer.payment.payment_id}`;
  } catch (err) {
    patch({ status: 'ready', ...refusal(err) });
    return null;
  }
}
