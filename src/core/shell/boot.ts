import { DISMISS_KEYS, PROGRESS_BAR } from '../../shared/constants';
import { LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S, matchLocale } from '../../shared/locales';
import { enhanceSignupPage, openSignupModal } from '../accounts/signup-first-step';
import { shouldReloadAfterChunkError, shouldShowBackButton, shouldShowEntryWarning, signupTargetOf } from './rules';

import { renderToasts } from '../toast/render';
import { enhanceDropdowns } from './dropdown';

const CHUNK_KEY = 'chunk-reload-at';
const BOUNCE_KEY = 'log-bounces';

const body = document.body;
const route = body.dataset.route ?? '';
const loggedIn = body.dataset.loggedIn === 'true';
const standalone = window.matchMedia('(display-mode: standalone)').matches || (navigator as { standalone?: boolean }).standalone === true;

// The visit keeps the language of the page the visitor landed on (/nl/landers/gallery on an English site): a cookie
// for the visit, set before any call, so the settings call no longer sets the site's own language for the next page.
const pageLocale = matchLocale(document.documentElement.lang);
if (pageLocale && !document.cookie.split(';').some((c) => c.trim().startsWith(`${LOCALE_COOKIE}=`))) {
  document.cookie = `${LOCALE_COOKIE}=${pageLocale}; path=/; samesite=lax${location.protocol === 'https:' ? '; secure' : ''}`;
}

function readStorage(store: Storage, key: string): string | null {
  try { return store.getItem(key); } catch { return null; }
}
function writeStorage(store: Storage, key: string, value: string) {
  try { store.setItem(key, value); } catch { /* storage disabled: the choice lasts for this page only */ }
}

// Chunk load failures (a deploy replaced hashed files): reload once per minute at most.
function onChunkError() {
  const last = Number(readStorage(sessionStorage, CHUNK_KEY)) || null;
  if (!shouldReloadAfterChunkError(last, Date.now())) return;
  writeStorage(sessionStorage, CHUNK_KEY, String(Date.now()));
  location.reload();
}
window.addEventListener('vite:preloadError', onChunkError);
window.addEventListener('error', (event) => {
  const target = event.target as HTMLElement | null;
  if (target && target.tagName === 'SCRIPT' && (target as HTMLScriptElement).src.includes('/_astro/')) onChunkError();
}, true);

// Feedback on actions (saved, failed, retrying) appears as toasts (SPEC §9: 350 px, six positions).
const toastRoot = document.getElementById('toasts');
if (toastRoot) renderToasts(toastRoot);

// Dropdowns: one open at a time, arrow keys, Escape gives focus back to the button.
enhanceDropdowns([...document.querySelectorAll<HTMLDetailsElement>('[data-dropdown]')]);

// Language switch: cookie for a year, saved on the account when logged in, then reload.
for (const link of document.querySelectorAll<HTMLAnchorElement>('[data-lang]')) {
  link.addEventListener('click', async (event) => {
    const lang = link.dataset.lang as string;
    document.cookie = `lang=${lang}; path=/; max-age=${LOCALE_COOKIE_MAX_AGE_S}; samesite=lax${location.protocol === 'https:' ? '; secure' : ''}`;
    if (loggedIn) {
      await fetch('/api/user.php', {
        method: 'PUT', keepalive: true, headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'kindred-client' },
        body: JSON.stringify({ language: lang }),
      }).catch(() => undefined);
    }
    if (link.getAttribute('href') === '?') {
      event.preventDefault();
      location.reload();
    }
  });
}

// Back button for the installed app.
const back = document.querySelector<HTMLButtonElement>('[data-back]');
if (back && shouldShowBackButton(standalone, history.length, route)) {
  back.hidden = false;
  back.addEventListener('click', () => history.back());
}

// Site-entry warning.
const dialog = document.querySelector<HTMLDialogElement>('#entry-warning');
if (dialog) {
  const base = {
    standalone,
    dismissed: readStorage(localStorage, DISMISS_KEYS.entryWarning) !== null,
    enabled: true,
    loggedIn,
    allowedCountries: (dialog.dataset.countries ?? '').split(',').filter(Boolean),
    requireKnownCountry: 'requireCountry' in dialog.dataset,
  };
  const open = (country: string | null) => {
    if (!shouldShowEntryWarning({ ...base, country })) return;
    dialog.showModal();
  };
  // It is a gate: Escape does not count as accepting. Chrome lets a second Escape past a prevented `cancel`
  // (close watchers), so the key itself is held back, and a gate closed without the choice opens again.
  let accepted = false;
  dialog.addEventListener('cancel', (event) => event.preventDefault());
  dialog.addEventListener('keydown', (event) => { if (event.key === 'Escape') event.preventDefault(); });
  dialog.addEventListener('close', () => { if (!accepted) dialog.showModal(); });
  dialog.querySelector('[data-entry-accept]')?.addEventListener('click', () => {
    writeStorage(localStorage, DISMISS_KEYS.entryWarning, String(Date.now()));
    accepted = true;
    dialog.close();
  });
  if (shouldShowEntryWarning({ ...base, requireKnownCountry: false, country: null })) {
    if ('country' in dialog.dataset) open(dialog.dataset.country ?? null);
    else {
      fetch('/api/settings.php', { headers: { Accept: 'application/json' } })
        .then((r) => (r.ok ? r.json() : null))
        .then((s: { geoip_country?: string | null } | null) => open(s?.geoip_country ?? null))
        .catch(() => open(null));
    }
  }
}

// Online/offline status.
const offline = document.querySelector<HTMLElement>('[data-offline-banner]');
const syncOnline = () => { if (offline) offline.hidden = navigator.onLine; };
window.addEventListener('online', syncOnline);
window.addEventListener('offline', syncOnline);
syncOnline();

// Page-bounce beacon: ?lb on the landing URL turns on logging for the rest of the visit.
if (new URLSearchParams(location.search).has('lb')) writeStorage(sessionStorage, BOUNCE_KEY, '1');
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'hidden') return;
  const url = readStorage(sessionStorage, BOUNCE_KEY) ? '/api/page-hidden.php?lb=1' : '/api/page-hidden.php';
  navigator.sendBeacon?.(url, new Blob(['{}'], { type: 'application/json' }));
});

// The service worker (src/sw.ts): push, asset cache, and the offline page in the language of this page.
if ('serviceWorker' in navigator && location.protocol !== 'file:') {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => undefined);
  void navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage({ type: 'locale', locale: document.documentElement.lang }));
}

// Dismissible alerts remember when they were dismissed (SPEC §9 keys); ones dismissed before are already gone
// (an inline script of src/components/MemberAlerts.astro removes them before first paint).
for (const alert of document.querySelectorAll<HTMLElement>('[data-dismiss-key]')) {
  const key = alert.dataset.dismissKey as string;
  alert.querySelector('[data-dismiss]')?.addEventListener('click', () => {
    writeStorage(localStorage, key, String(Date.now()));
    alert.remove();
  });
}


// Push: offer it where the browser can and the member has not decided; note whether this browser is subscribed.
if (loggedIn) {
  void import('../push/push.store').then(async ({ initPush, subscribePush }) => {
    const state = await initPush().catch(() => null);
    const alert = document.querySelector<HTMLElement>('[data-push-alert]');
    if (!alert || !state?.isCapable || state.isSubscribed || state.permission !== 'default') return;
    alert.hidden = false;
    alert.querySelector('[data-push-enable]')?.addEventListener('click', async () => {
      await subscribePush(alert.dataset.pushKey as string).catch(() => undefined);
      alert.remove();
    });
  });
}

// "Send the activation e-mail again".
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-resend-activation]')) {
  button.addEventListener('click', async () => {
    button.disabled = true;
    const res = await fetch('/api/resend-activation.php', {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'kindred-client' }, body: '{}',
    }).catch(() => null);
    if (res?.ok) button.replaceWith(document.createTextNode(button.dataset.done ?? ''));
    else button.disabled = false;
  });
}

const phone = window.matchMedia('(max-width: 767px)').matches;
// The activation reminder is a modal on a smartphone after an affiliate signup (?api_signup_complete).
const activationModal = document.querySelector<HTMLDialogElement>('#activation-modal');
if (activationModal && phone) {
  document.querySelector('[data-activation-alert]')?.remove();
  activationModal.showModal();
}
for (const close of document.querySelectorAll<HTMLElement>('[data-close-dialog]')) {
  close.addEventListener('click', () => close.closest('dialog')?.close());
}

// Logout without leaving JSON on screen.
document.querySelector<HTMLAnchorElement>('[data-logout]')?.addEventListener('click', async (event) => {
  event.preventDefault();
  await fetch('/api/logout.php', { headers: { 'X-Requested-With': 'kindred-client' } }).catch(() => undefined);
  location.assign('/');
});

// Opening signup: members go to the members page, phones to the signup page, everyone else gets the modal.
// Every entry keeps the member it names (a profile's Like, Message, Gift; a lander's teaser), on every width.
const signupModal = document.querySelector<HTMLDialogElement>('#signup-modal');
let signupBusy = false;
const onSignupBusy = (busy: boolean) => { signupBusy = busy; };
function openSignup(event: MouseEvent, link: HTMLElement) {
  if (loggedIn) {
    event.preventDefault();
    location.assign('/members');
    return;
  }
  const target = signupTargetOf(link.dataset.target, link.getAttribute('href'));
  if (phone || !signupModal) {
    // The signup page aimed at the member, when the link itself goes to the untargeted one.
    if (target && link.getAttribute('href') !== `/members/${target}/signup`) {
      event.preventDefault();
      location.assign(`/members/${target}/signup`);
    }
    return;
  }
  event.preventDefault();
  openSignupModal(signupModal, target ? { id: target, name: link.dataset.targetName ?? null } : null, onSignupBusy);
}
// Delegated: links an island renders later (search cards) open it too.
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.<HTMLElement>('a[href="/signup"], [data-open-signup]');
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  openSignup(event, link);
});
if (signupModal) {
  // While the account is being created the modal stays open: no Escape, no backdrop click.
  signupModal.addEventListener('cancel', (event) => { if (signupBusy) event.preventDefault(); });
  signupModal.addEventListener('click', (event) => { if (event.target === signupModal && !signupBusy) signupModal.close(); });
  signupModal.querySelector('[data-close-signup]')?.addEventListener('click', () => { if (!signupBusy) signupModal.close(); });
}
if (route === 'signup') enhanceSignupPage(onSignupBusy);

// Top progress bar while the next page loads (SPEC §9: 5 s to fill, shown after 200 ms, hidden 500 ms after return).
const progress = document.createElement('div');
progress.className = 'nav-progress';
progress.setAttribute('aria-hidden', 'true');
progress.style.setProperty('--progress-duration', `${PROGRESS_BAR.durationMs}ms`);
document.body.append(progress);
let progressTimer: number | undefined;
document.addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.target === '_blank' || link.hasAttribute('download') || link.origin !== location.origin) return;
  if (link.pathname === location.pathname && link.search === location.search) return;
  clearTimeout(progressTimer);
  progressTimer = window.setTimeout(() => progress.classList.add('is-active'), PROGRESS_BAR.throttleMs);
});
window.addEventListener('pageshow', () => {
  clearTimeout(progressTimer);
  if (progress.classList.contains('is-active')) window.setTimeout(() => progress.classList.remove('is-active'), PROGRESS_BAR.hideDelayMs);
});
