import {
  type CreditsResponse, type DirectDebitInfoResponse, type MethodsResponse, PAYMENTS_PATHS, type PaymentStatusResponse,
  type TimeBonusResponse, type TransactionResponse, type TransactionsResponse,
} from '../../shared/payments.contract';
import { REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE } from '../../shared/user.contract';
import type { AppContext } from '../app-context';
import { timeBonusAnswer } from '../discounts/discounts.service';
import { createApi } from '../api/app';

type ApiAnswer<T> = { status: number; body: T };
/** What the in-process call reads of the page request: its headers (a web Request, or the node entry's view of one). */
type PageRequest = { headers: Pick<Headers, 'get'> };
const apis = new WeakMap<AppContext, ReturnType<typeof createApi>>();

/**
 * What the payments endpoint answers this member for `path`, asked in-process with the page
 * request's cookie and host: the page renders exactly what its island later fetches (same rules,
 * same site scoping, same translated refusals), without a spinner on first paint.
 */
async function answerOf<T>(locals: App.Locals, request: PageRequest, path: string, query: Record<string, string | null | undefined> = {}): Promise<ApiAnswer<T>> {
  const app = locals.services.app;
  let api = apis.get(app);
  if (!api) {
    api = createApi(app);
    apis.set(app, api);
  }
  const url = new URL(path, 'http://internal');
  for (const [k, v] of Object.entries(query)) if (v) url.searchParams.set(k, v);
  const headers = new Headers({ [REQUEST_TYPE_HEADER]: REQUEST_TYPE_VALUE, Accept: 'application/json' });
  for (const name of ['cookie', 'host', 'accept-language', 'user-agent']) {
    const value = request.headers.get(name);
    if (value) headers.set(name, value);
  }
  const response = await api.request(`${url.pathname}${url.search}`, { headers }, { page: { ip: locals.ctx.ip, country: locals.ctx.country } } as never);
  return { status: response.status, body: (await response.json()) as T };
}

/** /credits: bundles for the payment country (?country=) with the active or typed discount (?discount=). */
export async function loadShop(locals: App.Locals, request: Request, country: string | null, discount: string | null) {
  const first = await answerOf<CreditsResponse>(locals, request, PAYMENTS_PATHS.credits, { country, discount });
  if (first.status === 200) return { shop: first.body, code: discount };
  // A bad country or code in the address shows the plain shop instead of an error page.
  const plain = await answerOf<CreditsResponse>(locals, request, PAYMENTS_PATHS.credits);
  if (plain.status !== 200) throw new Error(`credits.php answered ${plain.status}`);
  return { shop: plain.body, code: null };
}

/** /credits/{id}: the bundle with the payment country's methods (null: no such bundle here). */
export async function loadCheckout(locals: App.Locals, request: Request, bundle: number, country: string | null, discount: string | null) {
  const query = { bundle: String(bundle) };
  const first = await answerOf<MethodsResponse>(locals, request, PAYMENTS_PATHS.methods, { ...query, country, discount });
  if (first.status === 200) return { checkout: first.body, code: discount };
  const plain = (country || discount) ? await answerOf<MethodsResponse>(locals, request, PAYMENTS_PATHS.methods, query) : first;
  if (plain.status === 404 || plain.status === 400) return null;
  if (plain.status !== 200) throw new Error(`payment-methods.php answered ${plain.status}`);
  return { checkout: plain.body, code: null };
}

/** The return page's first state of one of the member's payments (null: not theirs or unknown). */
export async function loadPaymentStatus(locals: App.Locals, request: Request, id: number) {
  const answer = await answerOf<PaymentStatusResponse>(locals, request, PAYMENTS_PATHS.payments, { id: String(id) });
  return answer.status === 200 ? answer.body : null;
}

/** The member's payments, newest first. */
export async function loadTransactions(locals: App.Locals, request: Request) {
  const answer = await answerOf<TransactionsResponse>(locals, request, PAYMENTS_PATHS.transactions);
  if (answer.status !== 200) throw new Error(`transactions.php answered ${answer.status}`);
  return answer.body.transactions;
}

/** One of the member's payments as a receipt (null: not theirs or unknown). */
export async function loadReceipt(locals: App.Locals, request: Request, id: number): Promise<TransactionResponse | null> {
  const answer = await answerOf<TransactionResponse>(locals, request, PAYMENTS_PATHS.transactions, { id: String(id) });
  return answer.status === 200 ? answer.body : null;
}

/** The direct-debit form's mandate text, limits and quote. */
export async function loadDirectDebit(locals: App.Locals, request: Request, bundle: number, country: string | null, discount: string | null) {
  const query = { bundle: String(bundle), country };
  const first = await answerOf<DirectDebitInfoResponse>(locals, request, PAYMENTS_PATHS.directDebit, { ...query, discount });
  if (first.status === 200) return { info: first.body, code: discount };
  if (!discount) return null;
  // A code that no longer applies: the form without it (its price says so), as the checkout does.
  const plain = await answerOf<DirectDebitInfoResponse>(locals, request, PAYMENTS_PATHS.directDebit, query);
  return plain.status === 200 ? { info: plain.body, code: null } : null;
}

/**
 * The time bonus a member page shows in a member's first hours (its banner and the shell's countdown): what
 * GET /api/time-bonus.php answers this member (`timeBonusAnswer`, one rule), read from the session's user row.
 */
export async function loadTimeBonusAnswer(locals: App.Locals): Promise<TimeBonusResponse> {
  const user = locals.session?.user;
  return user ? timeBonusAnswer(locals.services.app, locals.ctx.site, user) : { time_bonus: null };
}
