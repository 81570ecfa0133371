import type { InputHTMLAttributes, ReactNode } from 'react';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  name: string;
  label: string;
  error?: string;
  hint?: ReactNode;
}

/** A labelled input with its hint and error wired for screen readers. */
export function Field({ name, label, error, hint: givenHint, id = `f-${name}`, ...input }: FieldProps) {
  // A rule shown as the hint is not repeated when it is also the error.
  const hint = givenHint === error ? undefined : givenHint;
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint && <p className="field-hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p className="field-error" id={`${id}-error`} role="alert">{error}</p>}
    </div>
  );
}

interface SelectProps {
  name: string;
  label: string;
  value: string;
  options: { value: string; label: string }[];
  onChange(value: string): void;
  placeholder?: string;
}

export function SelectField({ name, label, value, options, onChange, placeholder }: SelectProps) {
  return (
    <div className="field">
      <label htmlFor={`f-${name}`}>{label}</label>
      <select id={`f-${name}`} name={name} value={value} onChange={(e) => onChange(e.target.value)}>
        {placeholder !== undefined && <option value="">{placeholder}</option>}
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  );
}
