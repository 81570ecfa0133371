import { useStore } from '@nanostores/react';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { $regionOptions, loadRegionOptions } from '../../core/geo/region-options';
import { locate } from '../../core/geo/store';
import { uploadPhoto } from '../../core/photos/actions';
import { deletePhoto, loadOwnProfile, type OwnProfile, saveInterests, saveProfileFields, setMainPhoto } from '../../core/profile/actions';
import { $pendingActions, runAction } from '../../core/toast/action.store';
import { Field, SelectField } from '../shared/Field';
import { InterestPicker } from '../shared/InterestPicker';
import { type IslandI18n, useIslandT } from '../shared/i18n';
import { withIslandData } from '../shared/island-data';
import { PremiumOnlyAlert } from '../shared/PremiumOnlyAlert';
import { PREMIUM_PHOTOS } from '../../shared/constants';
import { PROFILE_NOTE_MAX, PROFILE_NOTES } from '../../shared/profile-options';

interface Props extends IslandI18n {
  initial: OwnProfile;
  visibleFields: string[];
  countries: { code: string; name: string }[];
  regions: Record<string, { code: string; name: string }[]>;
  options: Record<string, string[]>;
  interests: string[];
  photoLimit: number;
}

const SELECTS = ['gender', 'sexuality', 'relationship_status', 'hair_color', 'eye_color', 'body_type', 'tattoos'] as const;

/** The member's own profile: every field, interests and photos (in every state). */
export function ProfileEditor(props: Props) {
  const t = useIslandT(props);
  const [data, setData] = useState(props.initial);
  const [fields, setFields] = useState<Record<string, string>>(() =>
    Object.fromEntries(['country', 'region', 'city', ...SELECTS, ...PROFILE_NOTES].map((k) => [k, String(props.initial.profile[k] ?? '')])));
  const [interests, setInterests] = useState<string[]>(props.initial.interests);
  // The page carries only the profile's country's regions; another country's load when it is chosen.
  const loadedRegions = useStore($regionOptions);
  const regionsOf = (country: string) => props.regions[country] ?? loadedRegions[country] ?? [];
  useEffect(() => {
    if (fields.country && !props.regions[fields.country]) void loadRegionOptions(fields.country, props.locale);
  }, [fields.country, props.regions, props.locale]);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const show = (name: string) => props.visibleFields.includes(name);
  const fail = (err: unknown) => setStatus({ ok: false, text: err instanceof ApiError ? err.message : t('error.try_later') });
  const reload = async () => setData(await loadOwnProfile());

  // With the member's permission, the browser position fills country, region and city.
  async function fillFromLocation() {
    setStatus(null);
    try {
      const place = await locate();
      if (!place?.country) return setStatus({ ok: false, text: t('myprofile.location_failed') });
      if (!props.countries.some((c) => c.code === place.country)) return setStatus({ ok: false, text: t('myprofile.location_elsewhere') });
      setFields({ ...fields, country: place.country, region: place.region ?? '', city: place.city ?? fields.city });
    } catch (err) {
      fail(err);
    }
  }

  // Saving shows at once, disables the button and ends in a toast (a failure with "Try again").
  const pending = useStore($pendingActions);
  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setStatus(null);
    const body = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== '').map(([k, value]) => [k, value]));
    if (!fields.region) body.region = null as never;
    // Notes are sent even when emptied (that clears them); the site's hidden notes never.
    for (const note of PROFILE_NOTES) {
      if (show(note)) body[note] = fields[note];
      else delete body[note];
    }
    const outcome = await runAction('profile.save', async () => {
      await saveProfileFields(body);
      if (show('interests')) await saveInterests(interests);
    }, { success: t('myprofile.saved') });
    // Field problems also stay beside the form.
    if (!outcome.ok && outcome.error instanceof ApiError && outcome.error.status < 500) fail(outcome.error);
  }

  async function upload(file: File | undefined) {
    if (!file) return;
    setStatus(null);
    setProgress(0);
    try {
      await uploadPhoto(file, setProgress);
      await reload();
    } catch (err) {
      fail(err);
    } finally {
      setProgress(null);
    }
  }

  const photoAction = (action: () => Promise<unknown>) => async () => {
    try {
      await action();
      await reload();
    } catch (err) {
      fail(err);
    }
  };

  return (
    <div className="profile-editor">
      {status && <p className={status.ok ? 'notice' : 'alert alert-danger'} role={status.ok ? 'status' : 'alert'}>{status.text}</p>}
      <section className="settings-section" aria-labelledby="p-photos">
        <h2 id="p-photos">{t('myprofile.photos')}</h2>
        <p className="field-hint">{t('myprofile.photo_count', { count: data.photos.length, limit: props.photoLimit })}</p>
        <ul className="own-photos" role="list">
          {data.photos.map((photo) => (
            <li key={photo.id} data-photo-status={photo.status}>
              <img src={`/uploads/${photo.thumb_filename}`} alt="" width="160" height="160" />
              <span className={`photo-status status-${photo.status.replace(' ', '-')}`}>{t(`photo_status.${photo.status}`)}</span>
              {photo.is_main ? <strong>{t('myprofile.main')}</strong> : (
                <button type="button" className="link-button" onClick={photoAction(() => setMainPhoto(photo.id))}>{t('myprofile.make_main')}</button>
              )}
              <button type="button" className="link-button" onClick={photoAction(() => deletePhoto(photo.id))}>{t('myprofile.delete_photo')}</button>
            </li>
          ))}
        </ul>
        {data.photos.length < props.photoLimit && (
          <div className="field">
            <label htmlFor="f-new-photo" className="btn btn-outline">{t('signup.photo_choose')}</label>
            <input id="f-new-photo" className="visually-hidden" type="file" accept="image/jpeg,image/png,image/webp,image/heic" onChange={(e) => upload(e.target.files?.[0])} disabled={progress !== null} />
            {progress !== null && <progress max={100} value={progress} aria-label={t('signup.photo_uploading')} />}
          </div>
        )}
        {data.photos.length >= props.photoLimit && props.photoLimit < PREMIUM_PHOTOS && (
          <PremiumOnlyAlert t={t} detail={t('photos.limit_free', { limit: props.photoLimit })} />
        )}
      </section>

      <form method="post" className="settings-section" onSubmit={save} aria-labelledby="p-details">
        <h2 id="p-details">{t('myprofile.details')}</h2>
        {show('city') && <p><button type="button" className="btn btn-outline" onClick={fillFromLocation}>{t('myprofile.use_location')}</button></p>}
        <div className="editor-grid">
          {show('country') && (
            <SelectField name="country" label={t('signup.label_country')} value={fields.country} options={props.countries.map((c) => ({ value: c.code, label: c.name }))}
              onChange={(country) => setFields({ ...fields, country, region: '' })} />
          )}
          {show('region') && regionsOf(fields.country).length > 0 && (
            <SelectField name="region" label={t('signup.label_region')} value={fields.region} placeholder={t('signup.choose')}
              options={regionsOf(fields.country).map((r) => ({ value: r.code, label: r.name }))} onChange={(region) => setFields({ ...fields, region })} />
          )}
          {show('city') && <Field name="city" label={t('signup.label_city')} value={fields.city} maxLength={96} onChange={(e) => setFields({ ...fields, city: e.target.value })} />}
          {SELECTS.filter(show).map((name) => (
            <SelectField key={name} name={name} label={t(`signup.label_${name}`)} value={fields[name]} placeholder={t('signup.choose')}
              options={props.options[name].map((value) => ({ value, label: t(`option.${name}.${value}`) }))} onChange={(value) => setFields({ ...fields, [name]: value })} />
          ))}
        </div>
        {show('interests') && (
          <fieldset className="field">
            <legend>{t('profile.interests')}</legend>
            <p className="field-hint">{t('myprofile.interests_hint')}</p>
            <InterestPicker t={t} interests={props.interests} selected={interests} onChange={setInterests} />
          </fieldset>
        )}
        {PROFILE_NOTES.filter(show).map((note) => (
          <div className="field" key={note}>
            <label htmlFor={`f-${note}`}>{t(`profile.note_${note}`)}</label>
            <textarea id={`f-${note}`} name={note} rows={5} maxLength={PROFILE_NOTE_MAX} value={fields[note]} aria-describedby={`f-${note}-hint`}
              onChange={(e) => setFields({ ...fields, [note]: e.target.value })} />
            <p className="field-hint" id={`f-${note}-hint`}>{t('myprofile.note_hint', { max: PROFILE_NOTE_MAX })}</p>
          </div>
        ))}
        <div className="form-actions"><button className="btn btn-primary" type="submit" disabled={pending['profile.save']}>{pending['profile.save'] ? t('toast.saving') : t('myprofile.save')}</button></div>
      </form>
    </div>
  );
}

/** The island as pages mount it: its inputs travel as island data (one JSON block, not Astro's props). */
export const ProfileEditorIsland = withIslandData(ProfileEditor);
