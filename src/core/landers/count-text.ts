/** A counted text's forms by plural category (`one`, `few`, `many`, `other`), as a page hands them to its script. */
export type PluralForms = Record<string, string>;

/** The text for `n` in the form `locale`'s plural rules pick (Zeeland: "1 member", not "1 members"). */
export function countText(forms: PluralForms | undefined, locale: string, n: number): string {
  if (!forms) return '';
  const form = forms[new Intl.PluralRules(locale).select(n)] ?? forms.other ?? '';
  return form.replace('{{count}}', n.toLocaleString(locale));
}

/** The forms a page put in a data attribute (JSON). */
export function formsOf(json: string | undefined): PluralForms | undefined {
  if (!json) return undefined;
  try {
    return JSON.parse(json) as PluralForms;
  } catch {
    return undefined;
  }
}
