import { atom } from 'nanostores';
import { type CreditsResponse, type DiscountResponse, PAYMENTS_PATHS } from '../../shared/payments.contract';
import { ApiError, api, call } from '../api/client';

const path = (full: string) => full.replace(/^\/api\//, '');

/** /credits: bundles priced for the payment country with the active discount (SPEC §2, §3 payment country). */
export const $shop = atom<CreditsResponse | null>(null);
/** 'busy' while the country or the discount code changes. */
export const $shopStatus = atom<'ready' | 'busy'>('ready');
/** The refusal of the last country or code change (translated), or null. */
export const $shopError = atom<string | null>(null);
/** A discount code the member typed (SPEC §3 Discount code), kept in the address as ?discount=. */
export const $typedCode = atom<string | null>(null);

/** The page's server-rendered answer. */
export function setInitialShop(answer: CreditsResponse, code: string | null = null) {
  if ($shop.get()) return;
  $shop.set(answer);
  $typedCode.set(code);
}

/** Query string that carries the payment country and a typed code to the next page. */
export function shopQuery(country: string | null, code: string | null): string {
  const params = new URLSearchParams();
  if (country) params.set('country', country);
  if (code) params.set('discount', code);
  const query = params.toString();
  return query ? `?${query}` : '';
}

function keepInAddress() {
  if (typeof history === 'undefined') return;
  const shop = $shop.get();
  history.replaceState(history.state, '', `${location.pathname}${shopQuery(shop?.country ?? null, $typedCode.get())}`);
}

async function reload(country: string, code: string | null) {
  const searchParams: Record<string, string> = {};
  if (country) searchParams.country = country;
  if (code) searchParams.discount = code;
  const answer = await call(() => api.get(path(PAYMENTS_PATHS.credits), { searchParams }).json<CreditsResponse>());
  $shop.set(answer);
}

async function busy(work: () => Promise<void>) {
  $shopStatus.set('busy');
  $shopError.set(null);
  try {
    await work();
  } catch (err) {
    $shopError.set(err instanceof ApiError ? err.message : null);
    throw err;
  } finally {
    $shopStatus.set('ready');
  }
}

/** The member changes the payment country: prices, currency, VAT and methods follow. */
export function changePaymentCountry(country: string): Promise<void> {
  return busy(async () => {
    await reload(country, $typedCode.get());
    keepInAddress();
  });
}

/**
 * Checks a typed discount code ('Code not found', 'Code already used' come back as the error) and
 * shows the bundles with it applied.
 */
export function applyDiscountCode(raw: string): Promise<void> {
  const code = raw.trim();
  return busy(async () => {
    await call(() => api.get(path(PAYMENTS_PATHS.discount), { searchParams: { code }, retry: 0 }).json<DiscountResponse>());
    $typedCode.set(code);
    await reload($shop.get()?.country ?? '', code);
    keepInAddress();
  });
}

/** Back to the active discount without the typed code. */
export function removeDiscountCode(): Promise<void> {
  return busy(async () => {
    $typedCode.set(null);
    await reload($shop.get()?.country ?? '', null);
    keepInAddress();
  });
}

/** Test helper. */
export function resetShop() {
  $shop.set(null);
  $shopStatus.set('ready');
  $shopError.set(null);
  $typedCode.set(null);
}
