import type { TFunction } from 'i18next';

interface Props {
  t: TFunction;
  interests: readonly string[];
  selected: readonly string[];
  onChange(selected: string[]): void;
  /** At most this many may be ticked; the rest are disabled once reached. */
  max?: number;
}

/** The fixed interest list as translated checkboxes. */
export function InterestPicker({ t, interests, selected, onChange, max }: Props) {
  const full = max !== undefined && selected.length >= max;
  return (
    <div className="interest-grid">
      {interests.map((interest) => {
        const checked = selected.includes(interest);
        return (
          <label key={interest} className="choice">
            <input type="checkbox" checked={checked} disabled={!checked && full}
              onChange={(e) => onChange(e.target.checked ? [...selected, interest] : selected.filter((i) => i !== interest))} />
            {t(`interest.${interest}`)}
          </label>
        );
      })}
    </div>
  );
}
