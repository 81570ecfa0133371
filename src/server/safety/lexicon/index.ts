import type { Locale } from '../../../shared/locales';
import da from './da.json';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fi from './fi.json';
import fr from './fr.json';
import it from './it.json';
import nb from './nb.json';
import nl from './nl.json';
import pl from './pl.json';
import sv from './sv.json';

/**
 * Word lists of the text classifiers, one file per language (a translator extends them; see
 * docs/safety.md). Phrases match at the start of a word, lower case and without accents, so a stem
 * ("überweis") matches its inflections.
 */
export interface Lexicon {
  /** Digit words 0–9 ("zero", "six"): seven or more in a row are a phone number. */
  number_words: Record<string, number>;
  /** Words for "@" and "." in a spelled-out e-mail address ("at", "dot"). */
  email_at: string[];
  email_dot: string[];
  /** Invitations that make a messenger name or @handle a move off the site ("add me", "my "). */
  contact_invite: string[];
  /** Phrases that ask for money on their own (gift cards, Western Union, bank transfer). */
  money_strong: string[];
  /** Asking phrases ("send me", "I need") that ask for money together with a money word. */
  money_ask: string[];
  money_words: string[];
}

const LEXICONS: Record<Locale, Lexicon> = { da, de, en, es, fi, fr, it, nb, nl, pl, sv };

export function lexiconOf(lang: Locale): Lexicon {
  return LEXICONS[lang];
}
