import emailSpellChecker from '@zootools/email-spell-checker';
import * as v from 'valibot';
import { fieldErrors, SignupSchema } from '../../shared/accounts.contract';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { subscribePush } from '../../core/push/push.store';
import * as actions from '../../core/accounts/actions';
import { ApiError } from '../../core/api/client';
import { uploadPhoto } from '../../core/photos/actions';
import { Field, SelectField } from '../shared/Field';
import { type IslandI18n, useIslandT } from '../shared/i18n';

export interface SignupWizardProps extends IslandI18n {
  siteName: string;
  /** On the /signup page the step title is the page's h1; in the modal an h2. */
  pageHeading?: boolean;
  signupsOpen: boolean;
  minAge: number;
  countries: { code: string; name: string }[];
  regions: Record<string, { code: string; name: string }[]>;
  options: Record<'sexuality' | 'relationship_status' | 'hair_color' | 'eye_color' | 'body_type' | 'tattoos', string[]>;
  tracking: Record<string, string>;
  target?: { id: number; name: string } | null;
  /** The first step's answers from its server-rendered form (SignupFirstStep.astro): the account is created at once. */
  initialAccount?: Record<string, string>;
  /** Called while the account is being created, so a modal can refuse to close. */
  onBusyChange?(busy: boolean): void;
  onClose?(): void;
}

type Step = 'account' | 'progress' | 'photo' | 'about' | 'location' | 'looks' | 'push' | 'confirm';
const ORDER: Step[] = ['account', 'photo', 'about', 'location', 'looks', 'push', 'confirm'];
const PROGRESS_KEYS = ['signup.progress_checking', 'signup.progress_creating', 'signup.progress_matches', 'signup.progress_mail'] as const;
const PROGRESS_STEP_MS = 700;
/** The first step's fields in the order they show, with their labels: the error summary lists each invalid one. */
const ACCOUNT_FIELDS = ['signup_message', 'name', 'email', 'password', 'date_of_birth'] as const;
const FIELD_LABELS: Record<string, string> = {
  signup_message: 'signup.free_message', name: 'auth.username', email: 'auth.email', password: 'auth.password', date_of_birth: 'auth.dob_hint',
};

/** The signup wizard: account (or free message to a profile), photo, three about-me steps, push prompt, confirm e-mail. */
export function SignupWizard(props: SignupWizardProps) {
  const t = useIslandT(props);
  const [step, setStep] = useState<Step>(props.initialAccount ? 'progress' : 'account');
  const [suggestion, setSuggestion] = useState<string | null>(null);
  const [progress, setProgress] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [accountExists, setAccountExists] = useState(false);
  const [email, setEmail] = useState(props.initialAccount?.email ?? '');
  const [draft, setDraft] = useState<Record<string, string>>(props.initialAccount ?? {});
  const [profile, setProfile] = useState<Record<string, string>>({ country: props.countries[0]?.code ?? '' });
  const [photoState, setPhotoState] = useState<'idle' | 'uploading' | 'done'>('idle');
  const [photoProgress, setPhotoProgress] = useState(0);
  const [resent, setResent] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const Heading = props.pageHeading ? 'h1' : 'h2';

  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves to the new step's heading each time the step changes.
  useEffect(() => heading.current?.focus(), [step]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the server-rendered form's answers are sent once, on mount.
  useEffect(() => { if (step === 'progress' && props.initialAccount) void createAccount(props.initialAccount); }, []);

  if (!props.signupsOpen) {
    return (
      <div className="signup-wizard">
        <Heading tabIndex={-1} ref={heading}>{t('signup.invite_title')}</Heading>
        <p>{t('signup.invite_only')}</p>
        <p><a href="/login">{t('home.cta_login')}</a></p>
      </div>
    );
  }

  const next = () => setStep(ORDER[Math.min(ORDER.indexOf(step) + 1, ORDER.length - 1)]);

  function submitAccount(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void createAccount(Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>);
  }

  async function createAccount(data: Record<string, string>) {
    setDraft(data);
    setError(null);
    setFields({});
    setAccountExists(false);
    // The same schema the endpoint uses: most mistakes are shown without a round trip.
    const local = v.safeParse(SignupSchema(Date.now), { email: data.email, name: data.name, password: data.password, date_of_birth: data.date_of_birth });
    if (!local.success) {
      const keys = fieldErrors(local.issues);
      setFields(Object.fromEntries(Object.entries(keys).map(([field, key]) => [field, t(key, { min: 8, min_age: props.minAge })])));
      setError(t('error.invalid_input'));
      setStep('account');
      return;
    }
    setStep('progress');
    props.onBusyChange?.(true);
    setProgress(0);
    const ticker = setInterval(() => setProgress((p) => Math.min(p + 1, PROGRESS_KEYS.length - 1)), PROGRESS_STEP_MS);
    const started = Date.now();
    try {
      await actions.signup({
        email: data.email, name: data.name, password: data.password, date_of_birth: data.date_of_birth, gender: data.gender || undefined,
        signup_message: data.signup_message || undefined, target_profile_id: props.target?.id, tracking: props.tracking, language: props.locale,
      });
      // Let every progress line show before moving on.
      await new Promise((r) => setTimeout(r, Math.max(0, PROGRESS_KEYS.length * PROGRESS_STEP_MS - (Date.now() - started))));
      setProgress(PROGRESS_KEYS.length);
      // The new member is logged in now: the page's "Log in" button (the wizard may be a modal) no longer applies.
      for (const login of document.querySelectorAll<HTMLElement>('[data-nav="login"]')) login.hidden = true;
      setStep('photo');
    } catch (err) {
      const api = err instanceof ApiError ? err : null;
      setError(api?.message ?? t('error.try_later'));
      setFields(api?.fields ?? {});
      setAccountExists(api?.code === 'email_taken');
      setStep('account');
    } finally {
      clearInterval(ticker);
      props.onBusyChange?.(false);
    }
  }

  async function choosePhoto(file: File | undefined) {
    if (!file) return;
    setError(null);
    setPhotoState('uploading');
    try {
      await uploadPhoto(file, setPhotoProgress);
      setPhotoState('done');
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
      setPhotoState('idle');
    }
  }

  async function saveProfile(event: FormEvent<HTMLFormElement>, keys: string[]) {
    event.preventDefault();
    setError(null);
    const body = Object.fromEntries(keys.filter((k) => profile[k]).map((k) => [k, profile[k]]));
    try {
      if (Object.keys(body).length) await actions.updateProfile(body);
      next();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('error.try_later'));
    }
  }

  async function askPush() {
    await subscribePush().catch(() => undefined);
    next();
  }

  const invalid = ACCOUNT_FIELDS.filter((f) => fields[f]);
  const pct = Math.round((ORDER.indexOf(step === 'progress' ? 'account' : step) / (ORDER.length - 1)) * 100);
  const choice = (name: string, values: string[], labelPrefix: string) => (
    <fieldset className="field">
      <legend>{t(`signup.label_${name}`)}</legend>
      <div className="choice-grid">
        {values.map((value) => (
          <label className="choice" key={value}>
            <input type="radio" name={name} value={value} checked={profile[name] === value} onChange={() => setProfile({ ...profile, [name]: value })} />
            {t(`${labelPrefix}.${value}`)}
          </label>
        ))}
      </div>
    </fieldset>
  );
  const skip = <button type="button" className="btn btn-ghost" onClick={next}>{t('signup.skip')}</button>;

  return (
    <div className="signup-wizard" data-step={step}>
      <div className="stepper" aria-hidden="true"><span style={{ width: `${pct}%` }} /></div>
      {error && step !== 'account' && <p className="alert alert-danger" role="alert">{error}</p>}

      {step === 'account' && (
        <form method="post" onSubmit={submitAccount} noValidate>
          <Heading tabIndex={-1} ref={heading}>{props.target ? t('signup.title_target', { name: props.target.name }) : t('signup.title', { site: props.siteName })}</Heading>
          {error && (
            <div className="alert alert-danger" role="alert" data-signup-errors>
              {invalid.length > 0 ? (
                <ul>
                  {invalid.map((f) => {
                    const label = t(FIELD_LABELS[f], { min_age: props.minAge, name: props.target?.name });
                    // A message that is the field's label ("Enter your date of birth (18+)") is said once.
                    return <li key={f}><a href={`#f-${f}`}>{label}</a>{fields[f] === label ? null : `: ${fields[f]}`}</li>;
                  })}
                </ul>
              ) : error}
              {accountExists && <> <a href="/login">{t('auth.account_exists_login')}</a></>}
            </div>
          )}
          {props.target && (
            <div className="field">
              <label htmlFor="f-signup_message">{t('signup.free_message', { name: props.target.name })}</label>
              <textarea id="f-signup_message" name="signup_message" rows={3} maxLength={1000} defaultValue={draft.signup_message} />
            </div>
          )}
          <fieldset className="field">
            <legend>{t('signup.i_am')}</legend>
            <div className="choice-grid">
              <label className="choice"><input type="radio" name="gender" value="male" defaultChecked={draft.gender !== 'female'} /> {t('option.gender.male')}</label>
              <label className="choice"><input type="radio" name="gender" value="female" defaultChecked={draft.gender === 'female'} /> {t('option.gender.female')}</label>
            </div>
          </fieldset>
          <Field name="name" label={t('auth.username')} autoComplete="nickname" required maxLength={32} error={fields.name} defaultValue={draft.name} />
          <Field
            name="email" type="email" label={t('auth.email')} autoComplete="email" required error={fields.email} value={email}
            onChange={(e) => setEmail(e.target.value)}
            onBlur={() => setSuggestion(emailSpellChecker.run({ email })?.full ?? null)}
            hint={suggestion ? (
              <>
                {t('auth.did_you_mean', { suggestion })}{' '}
                <button type="button" className="link-button" onClick={() => { setEmail(suggestion); setSuggestion(null); }}>{t('signup.use_suggestion')}</button>
              </>
            ) : undefined}
          />
          <Field name="password" type="password" label={t('auth.password')} autoComplete="new-password" required minLength={8} error={fields.password} hint={t('auth.password_too_short', { min: 8 })} defaultValue={draft.password} />
          <Field name="date_of_birth" type="date" label={t('auth.dob_hint', { min_age: props.minAge })} required error={fields.date_of_birth} defaultValue={draft.date_of_birth} />
          <p className="field-hint">{t('signup.terms_notice')} <a href="/terms" target="_blank" rel="noopener">{t('footer.terms')}</a> · <a href="/privacy" target="_blank" rel="noopener">{t('footer.privacy')}</a></p>
          <div className="form-actions">
            <button className="btn btn-primary" type="submit">{props.target ? t('signup.send_and_create') : t('signup.create')}</button>
          </div>
          <p className="form-links"><span>{t('signup.have_account')} <a href="/login">{t('nav.login')}</a></span></p>
        </form>
      )}

      {step === 'progress' && (
        <div>
          <Heading tabIndex={-1} ref={heading}>{t('signup.progress_title')}</Heading>
          <ol className="progress-steps" aria-live="polite">
            {PROGRESS_KEYS.map((key, i) => (
              <li key={key} data-state={i < progress ? 'done' : i === progress ? 'active' : 'todo'}>
                <span aria-hidden="true">{i < progress ? '✓' : i === progress ? '…' : '·'}</span> {t(key)}
              </li>
            ))}
          </ol>
        </div>
      )}

      {step === 'photo' && (
        <div>
          <Heading tabIndex={-1} ref={heading}>{t('signup.photo_title')}</Heading>
          <p>{t('signup.photo_text')}</p>
          {photoState === 'done' ? (
            <p className="notice" role="status">{t('signup.photo_done')}</p>
          ) : (
            <div className="field">
              <label htmlFor="f-photo" className="btn btn-outline">{t('signup.photo_choose')}</label>
              <input id="f-photo" className="visually-hidden" type="file" accept="image/jpeg,image/png,image/webp,image/heic" onChange={(e) => choosePhoto(e.target.files?.[0])} disabled={photoState === 'uploading'} />
              {photoState === 'uploading' && <progress max={100} value={photoProgress} aria-label={t('signup.photo_uploading')} />}
            </div>
          )}
          <div className="form-actions">
            {photoState === 'done' ? <button type="button" className="btn btn-primary" onClick={next}>{t('signup.next')}</button> : skip}
          </div>
        </div>
      )}

      {step === 'about' && (
        <form method="post" onSubmit={(e) => saveProfile(e, ['sexuality', 'relationship_status'])}>
          <Heading tabIndex={-1} ref={heading}>{t('signup.about_title')}</Heading>
          {choice('sexuality', props.options.sexuality, 'option.sexuality')}
          {choice('relationship_status', props.options.relationship_status, 'option.relationship_status')}
          <div className="form-actions">{skip}<button className="btn btn-primary" type="submit">{t('signup.next')}</button></div>
        </form>
      )}

      {step === 'location' && (
        <form method="post" onSubmit={(e) => saveProfile(e, ['country', 'region', 'city'])}>
          <Heading tabIndex={-1} ref={heading}>{t('signup.location_title')}</Heading>
          <SelectField name="country" label={t('signup.label_country')} value={profile.country ?? ''} options={props.countries.map((c) => ({ value: c.code, label: c.name }))} onChange={(country) => setProfile({ ...profile, country, region: '' })} />
          {(props.regions[profile.country ?? ''] ?? []).length > 0 && (
            <SelectField name="region" label={t('signup.label_region')} value={profile.region ?? ''} placeholder={t('signup.choose')} options={(props.regions[profile.country] ?? []).map((r) => ({ value: r.code, label: r.name }))} onChange={(region) => setProfile({ ...profile, region })} />
          )}
          <Field name="city" label={t('signup.label_city')} value={profile.city ?? ''} onChange={(e) => setProfile({ ...profile, city: e.target.value })} maxLength={96} autoComplete="address-level2" />
          <div className="form-actions">{skip}<button className="btn btn-primary" type="submit">{t('signup.next')}</button></div>
        </form>
      )}

      {step === 'looks' && (
        <form method="post" onSubmit={(e) => saveProfile(e, ['hair_color', 'eye_color', 'body_type', 'tattoos'])}>
          <Heading tabIndex={-1} ref={heading}>{t('signup.looks_title')}</Heading>
          {(['hair_color', 'eye_color', 'body_type', 'tattoos'] as const).map((name) => (
            <SelectField key={name} name={name} label={t(`signup.label_${name}`)} value={profile[name] ?? ''} placeholder={t('signup.choose')}
              options={props.options[name].map((value) => ({ value, label: t(`option.${name}.${value}`) }))} onChange={(value) => setProfile({ ...profile, [name]: value })} />
          ))}
          <div className="form-actions">{skip}<button className="btn btn-primary" type="submit">{t('signup.next')}</button></div>
        </form>
      )}

      {step === 'push' && (
        <div>
          <Heading tabIndex={-1} ref={heading}>{t('signup.push_title')}</Heading>
          <p>{t('signup.push_text')}</p>
          <div className="form-actions">
            <button type="button" className="btn btn-ghost" onClick={next}>{t('signup.push_later')}</button>
            <button type="button" className="btn btn-primary" onClick={askPush}>{t('signup.push_enable')}</button>
          </div>
        </div>
      )}

      {step === 'confirm' && (
        <div>
          <Heading tabIndex={-1} ref={heading}>{t('signup.confirm_title')}</Heading>
          <p>{t('signup.confirm_text', { email: draft.email })}</p>
          {resent ? <p className="notice" role="status">{t('activation.resent')}</p> : (
            <p><button type="button" className="link-button" onClick={() => actions.resendActivation().then(() => setResent(true)).catch(() => setError(t('error.try_later')))}>{t('activation.resend')}</button></p>
          )}
          <div className="form-actions"><a className="btn btn-primary" href="/signup-matches">{t('signup.see_matches')}</a></div>
        </div>
      )}
    </div>
  );
}
