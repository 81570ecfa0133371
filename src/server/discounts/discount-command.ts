import { parseArgs } from 'node:util';
import { CURRENCIES, DISCOUNT_VALIDITIES, PAYMENT_METHOD_IDS } from '../../shared/payments.contract';
import { normalizeEmail } from '../accounts/tokens';
import type { AppContext } from '../app-context';
import { insertDiscount, listDiscounts, setDiscountStatus, findDiscountByCode } from './discounts.repository';

export const DISCOUNT_USAGE = `Usage:
  npm run discount -- create <site-id> <CODE> <percentage> [--country NL] [--currency EUR] [--min 25.00]
                     [--methods ideal,creditcard] [--expires 2026-12-31] [--validity once-per-user|unlimited]
                     [--user member@example.com] [--welcome]
  npm run discount -- list <site-id>
  npm run discount -- disable <site-id> <CODE>
  npm run discount -- enable <site-id> <CODE>`;

/** The discount CLI's work, separate from process handling so tests run it. Returns the exit code and output lines. */
export async function runDiscountCommand(app: AppContext, argv: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const fail = (message: string) => ({ code: 2, out: [...out, message, DISCOUNT_USAGE] });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return fail((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, siteId, codeText, pctText] = positionals;
  const site = siteId ? app.sites.byIdOrNull(siteId) : null;
  if (!command || !site) return fail(siteId ? `Unknown site ${siteId}.` : 'Give a command and a site id.');
  const now = app.clock.now();
  if (command === 'list') {
    for (const d of await listDiscounts(app.db.db, site.id)) {
      out.push([d.code, `${d.value_percentage}%`, d.status, d.validity, d.kind, d.country ?? '*', d.currency ?? '*', `min ${(d.minimum_order_value / 100).toFixed(2)}`,
        d.expires_at ? new Date(d.expires_at).toISOString().slice(0, 10) : 'no expiry', JSON.parse(d.paymentmethods).join(',') || 'all methods'].join('  '));
    }
    return { code: 0, out };
  }
  if (!codeText || !/^[A-Za-z0-9_-]{2,64}$/.test(codeText)) return fail('The code must be 2–64 letters, digits, - or _.');
  if (command === 'disable' || command === 'enable') {
    const changed = await setDiscountStatus(app.db.db, site.id, codeText, command === 'disable' ? 'inactive' : 'active');
    return changed ? { code: 0, out: [`${codeText.toUpperCase()} is now ${command === 'disable' ? 'inactive' : 'active'}.`] } : { code: 1, out: [`No code ${codeText.toUpperCase()} on ${site.id}.`] };
  }
  if (command !== 'create') return fail(`Unknown command ${command}.`);
  const pct = Number(pctText);
  if (!Number.isFinite(pct) || pct <= 0 || pct >= 100) return fail('The percentage must be above 0 and below 100.');
  const country = values.country?.toUpperCase() ?? null;
  if (country && !site.payments.countries[country]) return fail(`${site.id} does not sell in ${country}.`);
  const currency = values.currency?.toUpperCase() ?? null;
  if (currency && !(CURRENCIES as readonly string[]).includes(currency)) return fail(`Unknown currency ${currency}.`);
  const min = values.min === undefined ? 0 : Math.round(Number(values.min) * 100);
  if (!Number.isSafeInteger(min) || min < 0) return fail('--min is an amount such as 25.00.');
  const methods = values.methods ? values.methods.split(',').map((m) => m.trim()).filter(Boolean) : [];
  const unknown = methods.filter((m) => !(PAYMENT_METHOD_IDS as readonly string[]).includes(m));
  if (unknown.length) return fail(`Unknown methods: ${unknown.join(', ')}.`);
  const expires = values.expires ? Date.parse(values.expires.length === 10 ? `${values.expires}T23:59:59Z` : values.expires) : null;
  if (expires !== null && (!Number.isFinite(expires) || expires <= now)) return fail('--expires must be a future date (YYYY-MM-DD).');
  const validity = values.validity ?? 'once-per-user';
  if (!(DISCOUNT_VALIDITIES as readonly string[]).includes(validity)) return fail(`--validity is ${DISCOUNT_VALIDITIES.join(' or ')}.`);
  let userId: number | null = null;
  if (values.user) {
    const user = await app.db.db.selectFrom('users').select('id').where('site_id', '=', site.id).where('email_normalized', '=', normalizeEmail(values.user)).executeTakeFirst();
    if (!user) return { code: 1, out: [`No account ${values.user} on ${site.id}.`] };
    userId = user.id;
  }
  if (await findDiscountByCode(app.db.db, site.id, codeText)) return { code: 1, out: [`${codeText.toUpperCase()} already exists on ${site.id}.`] };
  const row = await insertDiscount(app.db.db, {
    site_id: site.id, code: codeText, kind: values.welcome ? 'welcome' : 'standard', country, user_id: userId, expires_at: expires,
    value_percentage: pct, currency, minimum_order_value: min, status: 'active', validity: validity as 'once-per-user' | 'unlimited',
    paymentmethods: JSON.stringify(methods), created_at: now,
  });
  return { code: 0, out: [`Created ${row.code} (${pct}%) on ${site.id}.`] };
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      country: { type: 'string' }, currency: { type: 'string' }, min: { type: 'string' }, methods: { type: 'string' },
      expires: { type: 'string' }, validity: { type: 'string' }, user: { type: 'string' }, welcome: { type: 'boolean' },
    },
  });
}
