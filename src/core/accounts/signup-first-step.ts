// The signup's first step is server-rendered HTML (src/components/SignupFirstStep.astro), usable at once. This
// small module aims it at a member and, on submit, hands its answers to the React wizard (the later steps),
// which loads while the visitor types: no framework stands between the first click and a usable form.
import type { SignupWizardProps } from '../../islands/signup/SignupWizard';

type OnBusy = (busy: boolean) => void;
const WARM_AFTER_MS = 2000;

const loadWizard = () => import('../../islands/signup/mount');

/** Starts loading the wizard once the visitor begins, or after a moment: ready by the time they submit. */
function warmWizard(form: HTMLFormElement) {
  const warm = () => void loadWizard().catch(() => undefined);
  form.addEventListener('focusin', warm, { once: true });
  window.setTimeout(warm, WARM_AFTER_MS);
}

/** On leaving the e-mail field, a likely typo ("gmial.com") is offered as in the wizard (the checker loads then). */
function offerEmailFix(form: HTMLFormElement) {
  const email = form.querySelector<HTMLInputElement>('input[name="email"]');
  const hint = form.querySelector<HTMLElement>('[data-email-hint]');
  if (!email || !hint) return;
  let suggestion: string | null = null;
  email.addEventListener('blur', async () => {
    const value = email.value.trim();
    const { default: checker } = await import('@zootools/email-spell-checker');
    suggestion = value ? (checker.run({ email: value })?.full ?? null) : null;
    hint.hidden = !suggestion;
    (hint.firstElementChild as HTMLElement).textContent = (hint.dataset.text ?? '').replace('{suggestion}', suggestion ?? '');
  });
  hint.querySelector('button')?.addEventListener('click', () => {
    if (suggestion) email.value = suggestion;
    hint.hidden = true;
  });
}

/** Aims the first step at a member (free first message, their name in the title) or at nobody. */
function aim(step: HTMLElement, target: { id: string; name: string | null } | null) {
  step.dataset.signupFirst = target?.id ?? '';
  const heading = step.querySelector<HTMLElement>('[data-title]');
  const message = step.querySelector<HTMLElement>('[data-target-message]');
  const label = message?.querySelector<HTMLElement>('[data-label-target]');
  const button = step.querySelector<HTMLElement>('button[data-label]');
  const named = (text: string | undefined) => (text ?? '').replace('{name}', target?.name ?? '');
  if (heading) heading.textContent = target?.name ? named(heading.dataset.titleTarget) : (heading.dataset.title ?? '');
  if (message) message.hidden = !target;
  if (label && target?.name) label.textContent = named(label.dataset.labelTarget);
  if (button) button.textContent = (target ? button.dataset.labelTarget : button.dataset.label) ?? '';
}

/** Shows the form, or the invitation notice when signups are closed to this visitor. */
function showOpen(step: HTMLElement, open: boolean) {
  (step.querySelector('[data-signup-form-wrap]') as HTMLElement).hidden = !open;
  const template = step.querySelector<HTMLTemplateElement>('template[data-signup-invite-template]');
  if (!open && template && !step.querySelector('[data-signup-invite]')) template.replaceWith(template.content.cloneNode(true));
  const invite = step.querySelector<HTMLElement>('[data-signup-invite]');
  if (invite) invite.hidden = open;
}

/**
 * On submit the wizard replaces the first step and creates the account from its answers (it checks them with the
 * endpoint's schema first). `props` answers the wizard's props once the form call is back.
 */
function handOver(step: HTMLElement, props: () => Promise<SignupWizardProps | null>, onBusyChange: OnBusy) {
  const form = step.querySelector<HTMLFormElement>('form[data-signup-account]');
  if (!form) return;
  warmWizard(form);
  offerEmailFix(form);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    if (submit) submit.disabled = true;
    const initialAccount = Object.fromEntries([...new FormData(form)].map(([k, v]) => [k, String(v)]));
    const loaded = await Promise.all([loadWizard(), props()]).catch(() => null);
    if (submit) submit.disabled = false;
    const container = step.parentElement;
    if (!loaded?.[1] || !container) return;
    const [{ mountSignupWizard }, wizardProps] = loaded;
    step.remove();
    // The wizard's step titles keep the level of the form's: the /signup page's h1, the modal's h2.
    const pageHeading = step.querySelector('h1') !== null;
    mountSignupWizard(container, { ...wizardProps, initialAccount, pageHeading }, onBusyChange);
  });
  // Usable from here on (bench:landers waits for this mark).
  form.dataset.signupReady = '';
}

/** The /signup and /members/{id}/signup pages: the props came with the page. */
export function enhanceSignupPage(onBusyChange: OnBusy) {
  const step = document.querySelector<HTMLElement>('main [data-signup-first]');
  const data = document.getElementById('signup-props');
  if (!step || !data?.textContent) return;
  const props = JSON.parse(data.textContent) as SignupWizardProps;
  handOver(step, async () => props, onBusyChange);
}

let modalProps: { target: string; answer: Promise<SignupWizardProps | null> } | null = null;
let modalEnhanced = false;

/** Opens the desktop signup modal at once, aimed at `target` (a profile id) or at nobody. */
export function openSignupModal(modal: HTMLDialogElement, target: { id: string; name: string | null } | null, onBusyChange: OnBusy) {
  modal.showModal();
  const template = modal.querySelector<HTMLTemplateElement>('template[data-signup-template]');
  if (template && !modalEnhanced) template.replaceWith(template.content.cloneNode(true));
  const step = modal.querySelector<HTMLElement>('[data-signup-first]');
  // Once the first step is submitted the wizard owns the modal.
  if (!step) return;
  const key = target?.id ?? '';
  if (modalProps?.target !== key) {
    const params = new URLSearchParams(location.search);
    if (target) params.set('target', target.id);
    const query = params.toString();
    const answer = fetch(`/api/signup-form.php${query ? `?${query}` : ''}`)
      .then((r) => (r.ok ? (r.json() as Promise<SignupWizardProps>) : null))
      .catch(() => null);
    modalProps = { target: key, answer };
  }
  const answer = modalProps.answer;
  // An invitation-only site shows its form at once to a visitor from an ad (?network=), else after the answer.
  const waitForAnswer = modal.dataset.signups === 'with_trafficsource' && !new URLSearchParams(location.search).has('network');
  const status = modal.querySelector<HTMLElement>('[data-signup-status]');
  if (waitForAnswer) {
    (step.querySelector('[data-signup-form-wrap]') as HTMLElement).hidden = true;
    if (status) status.hidden = false;
  }
  aim(step, target);
  void answer.then((props) => {
    if (modalProps?.answer !== answer) return;
    if (status) status.hidden = true;
    showOpen(step, props?.signupsOpen ?? true);
    if (props?.target) aim(step, { id: String(props.target.id), name: props.target.name });
  });
  if (!modalEnhanced) {
    modalEnhanced = true;
    handOver(step, () => modalProps?.answer ?? Promise.resolve(null), onBusyChange);
  }
}
