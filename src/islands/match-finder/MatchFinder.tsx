import { type FormEvent, useState } from 'react';
import { ApiError } from '../../core/api/client';
import { findMatches, likeProfile, type MatchCard } from '../../core/profiles/actions';
import { MATCH_FINDER_MAX_INTERESTS, photoUrl } from '../../shared/profiles.contract';
import { SelectField } from '../shared/Field';
import { InterestPicker } from '../shared/InterestPicker';
import { type IslandI18n, useIslandT } from '../shared/i18n';

interface Props extends IslandI18n {
  countries: { code: string; name: string }[];
  regions: Record<string, { code: string; name: string }[]>;
  interests: string[];
  genders: string[];
  fictionalIcon: string;
}

type Step = 'who' | 'age' | 'where' | 'interests' | 'results';
const STEPS: Step[] = ['who', 'age', 'where', 'interests', 'results'];

/** A short guided flow (who, ages, where, a few interests) that ends in fitting profiles to like or open. */
export function MatchFinder(props: Props) {
  const t = useIslandT(props);
  // A site that does not search by gender (one for men seeking men) does not ask whom: "Any" would be the only answer.
  const steps = props.genders.length > 0 ? STEPS : STEPS.filter((s) => s !== 'who');
  const [step, setStep] = useState<Step>(steps[0] as Step);
  const [choice, setChoice] = useState({ gender: '', min_age: '25', max_age: '45', country: props.countries[0]?.code ?? '', countryregion: '' });
  const [picked, setPicked] = useState<string[]>([]);
  const [results, setResults] = useState<MatchCard[]>([]);
  const [liked, setLiked] = useState(new Set<number>());
  const [error, setError] = useState<string | null>(null);
  const next = () => setStep(steps[steps.indexOf(step) + 1] as Step);
  const fail = (err: unknown) => setError(err instanceof ApiError ? err.message : t('error.try_later'));

  async function search(event: FormEvent) {
    event.preventDefault();
    setError(null);
    const query = Object.fromEntries(Object.entries({ ...choice, interests: picked.join(',') }).filter(([, v]) => v !== ''));
    try {
      setResults((await findMatches(query)).results);
      setStep('results');
    } catch (err) {
      fail(err);
    }
  }

  async function like(card: MatchCard) {
    try {
      await likeProfile(card.id, 'match_finder');
      setLiked(new Set(liked).add(card.id));
    } catch (err) {
      fail(err);
    }
  }

  const ages = Array.from({ length: 82 }, (_, i) => String(18 + i)).map((a) => ({ value: a, label: a }));
  return (
    <div className="match-finder" data-step={step}>
      <div className="stepper" aria-hidden="true"><span style={{ width: `${(steps.indexOf(step) / (steps.length - 1)) * 100}%` }} /></div>
      {error && <p className="alert alert-danger" role="alert">{error}</p>}
      {step === 'who' && (
        <fieldset className="field">
          <legend>{t('finder.who')}</legend>
          <div className="choice-grid">
            {[...props.genders, ''].map((g) => (
              <label className="choice" key={g || 'any'}>
                <input type="radio" name="gender" checked={choice.gender === g} onChange={() => setChoice({ ...choice, gender: g })} />
                {g ? t(`option.gender.${g}`) : t('search.any')}
              </label>
            ))}
          </div>
          <div className="form-actions"><button type="button" className="btn btn-primary" onClick={next}>{t('signup.next')}</button></div>
        </fieldset>
      )}
      {step === 'age' && (
        <div>
          <h2>{t('finder.age')}</h2>
          <div className="editor-grid">
            <SelectField name="min_age" label={t('search.min_age')} value={choice.min_age} options={ages} onChange={(min_age) => setChoice({ ...choice, min_age })} />
            <SelectField name="max_age" label={t('search.max_age')} value={choice.max_age} options={ages.filter((a) => Number(a.value) >= Number(choice.min_age))} onChange={(max_age) => setChoice({ ...choice, max_age })} />
          </div>
          <div className="form-actions"><button type="button" className="btn btn-primary" onClick={next}>{t('signup.next')}</button></div>
        </div>
      )}
      {step === 'where' && (
        <div>
          <h2>{t('finder.where')}</h2>
          <SelectField name="country" label={t('search.country')} value={choice.country} options={props.countries.map((c) => ({ value: c.code, label: c.name }))} onChange={(country) => setChoice({ ...choice, country, countryregion: '' })} />
          {(props.regions[choice.country] ?? []).length > 0 && (
            <SelectField name="countryregion" label={t('search.region')} value={choice.countryregion} placeholder={t('search.any')}
              options={(props.regions[choice.country] ?? []).map((r) => ({ value: r.code, label: r.name }))} onChange={(countryregion) => setChoice({ ...choice, countryregion })} />
          )}
          <div className="form-actions"><button type="button" className="btn btn-primary" onClick={next}>{t('signup.next')}</button></div>
        </div>
      )}
      {step === 'interests' && (
        <form method="post" onSubmit={search}>
          <fieldset className="field">
            <legend>{t('finder.interests', { count: MATCH_FINDER_MAX_INTERESTS })}</legend>
            <InterestPicker t={t} interests={props.interests} selected={picked} onChange={setPicked} max={MATCH_FINDER_MAX_INTERESTS} />
          </fieldset>
          <div className="form-actions"><button type="submit" className="btn btn-primary">{t('finder.show')}</button></div>
        </form>
      )}
      {step === 'results' && (
        <div>
          <h2>{t('finder.results')}</h2>
          {results.length === 0 && <p>{t('search.none')}</p>}
          <ul className="profile-grid" role="list">
            {results.map((card) => (
              <li className="profile-card" key={card.id}>
                <a href={`/members/${card.id}`}><img src={photoUrl(card.thumb)} alt="" width="320" height="320" loading="lazy" /></a>
                <div className="card-body">
                  <p className="card-title"><a href={`/members/${card.id}`}>{card.name}</a>{card.fictional && ` ${props.fictionalIcon}`}</p>
                  <p className="card-meta">{t('members.age', { age: card.age })}{card.city ? ` · ${card.city}` : ''}</p>
                  {card.shared > 0 && <p className="card-meta">{t('finder.shared', { count: card.shared })}</p>}
                  <button type="button" className="btn btn-primary" disabled={liked.has(card.id)} onClick={() => like(card)}>{liked.has(card.id) ? t('profile.liked') : t('profile.like')}</button>
                </div>
              </li>
            ))}
          </ul>
          <div className="form-actions"><button type="button" className="btn btn-outline" onClick={() => setStep('who')}>{t('finder.again')}</button></div>
        </div>
      )}
    </div>
  );
}
