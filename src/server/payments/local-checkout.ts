import { Hono } from 'hono';
import type { AppContext } from '../app-context';
import type { ApiEnv } from '../api/types';
import { baseSecurityHeaders, contentSecurityPolicy } from '../security-headers';
import { LOCAL_IDEAL_ISSUERS, LOCAL_OUTCOMES, type LocalMollieStore, type LocalOutcome, type LocalPayment } from './local-mollie';

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f4f4f6;color:#1d1d1f}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.25rem;margin:0 0 .5rem}.note{color:#555;font-size:.9rem;margin:0 0 1rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1rem}dt{color:#555}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
fieldset{border:0;padding:0;margin:0 0 1rem}legend{font-weight:600;margin-bottom:.5rem}
label.opt{display:flex;gap:.6rem;align-items:center;padding:.7rem .8rem;border:1px solid #ccc;border-radius:8px;margin-bottom:.5rem;cursor:pointer}
label.opt:focus-within{outline:3px solid #0a66c2;outline-offset:2px}
select,button{font:inherit;width:100%;padding:.7rem;border-radius:8px;border:1px solid #999}
button{background:#0a66c2;color:#fff;border:0;font-weight:600;cursor:pointer;min-height:44px}
button:focus-visible{outline:3px solid #1d1d1f;outline-offset:2px}a{color:#0a66c2}
`;

function page(lang: string, title: string, body: string) {
  return `<!doctype html><html lang="${esc(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`
    + `<meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main><div class="card">${body}</div></main></body></html>`;
}

const OUTCOME_KEYS: Record<LocalOutcome, string> = {
  paid: 'payments.local.paid', paid_declines_later: 'payments.local.paid_declines_later', pending: 'payments.local.pending',
  failed: 'payments.local.failed', canceled: 'payments.local.canceled', expired: 'payments.local.expired',
};

/** The local provider's hosted checkout: GET shows the order and outcomes, POST applies the choice. */
export function localCheckoutRoutes(app: AppContext, store: LocalMollieStore) {
  const routes = new Hono<ApiEnv>();
  const html = (c: { var: ApiEnv['Variables'] }, markup: string, status = 200) => new Response(markup, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...baseSecurityHeaders(c.var.ctx.secure), 'Content-Security-Policy': contentSecurityPolicy() },
  });

  routes.get('/checkout/:id', async (c) => {
    const t = c.var.t;
    const payment = /^tr_[A-Za-z0-9]+$/.test(c.req.param('id')) ? await store.getPayment(c.req.param('id')) : null;
    if (!payment) return html(c, page(c.var.ctx.locale, t('payments.payment_not_found'), `<h1>${esc(t('payments.payment_not_found'))}</h1>`), 404);
    const amount = new Intl.NumberFormat(c.var.ctx.locale, { style: 'currency', currency: payment.amount.currency }).format(Number(payment.amount.value));
    const method = payment.method ?? 'creditcard';
    const facts = `<dl><dt>${esc(t('payments.local.amount'))}</dt><dd>${esc(amount)}</dd>`
      + `<dt>${esc(t('payments.local.method'))}</dt><dd>${esc(t(`payments.method.${method}`))}</dd></dl><p class="note">${esc(payment.description)}</p>`;
    if (payment.status !== 'open') {
      const back = payment.redirectUrl ? `<p><a href="${esc(payment.redirectUrl)}">${esc(t('payments.local.back'))}</a></p>` : '';
      return html(c, page(c.var.ctx.locale, t('payments.local.title'), `<h1>${esc(t('payments.local.title'))}</h1>${facts}<p>${esc(t('payments.local.done'))}</p>${back}`));
    }
    const banks = method === 'ideal'
      ? `<p><label for="issuer">${esc(t('payments.local.bank'))}</label><select id="issuer" name="issuer">${LOCAL_IDEAL_ISSUERS.map(([id, name]) =>
        `<option value="${esc(id)}"${payment.issuer === id ? ' selected' : ''}>${esc(name)}</option>`).join('')}</select></p>`
      : '';
    const outcomes = LOCAL_OUTCOMES.filter((o) => o !== 'paid_declines_later' || (payment.sequenceType === 'first' && method === 'creditcard')).map((o, i) =>
      `<label class="opt"><input type="radio" name="outcome" value="${o}"${i === 0 ? ' checked' : ''}> ${esc(t(OUTCOME_KEYS[o]))}</label>`).join('');
    const form = `<form method="post" action="${esc(`${c.req.path}`)}">${banks}<fieldset><legend>${esc(t('payments.local.intro'))}</legend>${outcomes}</fieldset>`
      + `<button type="submit">${esc(t('payments.local.submit'))}</button></form>`;
    return html(c, page(c.var.ctx.locale, t('payments.local.title'), `<h1>${esc(t('payments.local.title'))}</h1>${facts}${form}`));
  });

  routes.post('/checkout/:id', async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const outcome = String(form.outcome ?? '') as LocalOutcome;
    const id = c.req.param('id');
    if (!/^tr_[A-Za-z0-9]+$/.test(id) || !LOCAL_OUTCOMES.includes(outcome)) return html(c, page(c.var.ctx.locale, 'Error', `<h1>${esc(c.var.t('error.invalid_input'))}</h1>`), 400);
    const issuer = typeof form.issuer === 'string' ? form.issuer : null;
    const before = await store.getPayment(id);
    if (!before) return html(c, page(c.var.ctx.locale, 'Error', `<h1>${esc(c.var.t('payments.payment_not_found'))}</h1>`), 404);
    const payment = (await store.choose(id, outcome, issuer)) as LocalPayment;
    // Mollie calls the webhook on every status change, then sends the buyer back.
    if (before.status === 'open' && payment.status !== 'open') await store.notify(payment);
    app.logger.debug({ id, outcome }, 'local checkout');
    return c.redirect(payment.redirectUrl ?? '/', 303);
  });
  return routes;
}
