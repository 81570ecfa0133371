import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { type CountryCode, findNumbers } from 'libphonenumber-js/max';
import type { Locale } from '../../shared/locales';
import { type TextFlag, TEXT_FLAGS } from '../../shared/safety.contract';
import { type Lexicon, lexiconOf } from './lexicon';

/**
 * Text signals of a chat message (issue 26 item 1): pure functions of (text, language). The word lists
 * live per language in `lexicon/*.json` (a translator extends them there); English is checked along
 * with every language, as scammers often write it. Numbers, addresses, links, IBANs and wallets are
 * found the same way in every language.
 */

/** The country a phone number without a prefix is read in, per language. */
const PHONE_COUNTRY: Record<Locale, CountryCode> = {
  nl: 'NL', en: 'GB', de: 'DE', it: 'IT', fr: 'FR', es: 'ES', pl: 'PL', da: 'DK', fi: 'FI', nb: 'NO', sv: 'SE',
};

/** Messenger names that are never ordinary words; found even when spelled apart or with look-alike signs. */
const MESSENGERS = ['whatsapp', 'watsapp', 'whatsap', 'telegram', 'snapchat', 'instagram', 'skype', 'wechat', 'viber', 'kakaotalk'];
/** Short or common-word messenger names: a whole word, and only with an invitation ("my snap is …", "add me on line"). */
const MESSENGER_WORDS = ['snap', 'insta', 'ig', 'kik', 'signal', 'tg', 'wa', 'whats', 'telegramm', 'skyp', 'threema', 'discord', 'line id'];
/** A messenger word with the case endings of Finnish and the like ("Kikissä", "Signaliin"). */
const MESSENGER_WORD = new RegExp(`(?:^|[^\\p{L}\\p{N}])(?:${MESSENGER_WORDS.join('|')})(?:issa|issä|ssa|ssä|iin|in|ista|istä|sta|stä|lla|llä|een|ia|a|e)?(?![\\p{L}\\p{N}])`, 'u');
const MAIL_PROVIDERS = ['gmail', 'hotmail', 'outlook', 'yahoo', 'icloud', 'gmx', 'live', 'protonmail', 'proton', 'wp', 'onet', 'interia', 'libero', 'orange', 'laposte', 'web', 'ziggo', 'kpnmail', 'telenet', 'mail', 'aol', 'yandex'];
const TLDS = 'com|net|org|info|biz|io|me|ly|co|app|link|site|online|club|xyz|ru|nl|de|it|fr|es|pl|dk|fi|no|se|eu|be|at|ch|uk|us|tv|to|gg|cc|vip|top|shop|live|dating|love';

const LEET: Record<string, string> = { '@': 'a', '4': 'a', '3': 'e', '0': 'o', '1': 'i', '!': 'i', '$': 's', '5': 's', '7': 't', '€': 'e' };

const URL = new RegExp(`(?:https?://|www\\.)\\S+|\\b[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9-]{2,})*\\.(?:${TLDS})\\b(?:/\\S*)?`, 'iu');
const EMAIL = /[\p{L}0-9._%+-]+@[\p{L}0-9-]+(?:\.[\p{L}0-9-]+)*\.\p{L}{2,}/iu;
const IBAN_LIKE = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b/gi;
const WALLET = /\b(?:bc1[a-z0-9]{25,60}|[13][a-km-zA-HJ-NP-Z1-9]{25,34}|0x[a-fA-F0-9]{40}|T[1-9A-HJ-NP-Za-km-z]{33})\b/;
/** Amounts with decimals ("1500,00", "594186.986") are no phone numbers (a dotted phone number's groups are not matched alone). */
const DECIMAL = /(?<![\d.,])\d+[.,]\d{1,3}(?![\d.,])/g;
/** Dates and times ("12.05.2025", "19.30") are no phone numbers. */
const DATE_TIME = /(?<![\d./-])(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{1,2}[.:]\d{2})(?!\d|[./-]\d)/g;
/** Nine or more digits with at most one separator between them ("06 12 34 56 78", "0 6 1 2 …"), after +. */
const DIGIT_RUN = /(?:\+|(?<!\d)0)\d?(?:[\s.\-/()]?\d){7,}/g;

/** Lower case without accents (the lexicons are compared the same way). */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

function escapeRegExp(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Phrases of the lexicon as whole words; one ending in `*` is a stem that matches its inflections ("überweis*"). */
function phraseMatcher(phrases: string[]): RegExp | null {
  const list = [...new Set(phrases.map(fold).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (list.length === 0) return null;
  const pattern = (phrase: string) => phrase.endsWith('*') ? escapeRegExp(phrase.slice(0, -1)) : /[\p{L}\p{N}]$/u.test(phrase) ? `${escapeRegExp(phrase)}(?![\\p{L}\\p{N}])` : escapeRegExp(phrase);
  return new RegExp(`(?:^|[^\\p{L}\\p{N}])(?:${list.map(pattern).join('|')})`, 'u');
}

interface Compiled {
  invite: RegExp | null;
  moneyStrong: RegExp | null;
  moneyAsk: RegExp | null;
  moneyWords: RegExp | null;
  spelledEmail: RegExp;
  numbers: Map<string, number>;
}

const compiled = new Map<string, Compiled>();

function compile(lang: Locale): Compiled {
  let c = compiled.get(lang);
  if (c) return c;
  const own = lexiconOf(lang);
  const lists: Lexicon[] = lang === 'en' ? [own] : [own, lexiconOf('en')];
  const all = <K extends keyof Lexicon>(key: K) => lists.flatMap((l) => l[key] as string[]);
  c = {
    invite: phraseMatcher(all('contact_invite')),
    moneyStrong: phraseMatcher(all('money_strong')),
    moneyAsk: phraseMatcher(all('money_ask')),
    moneyWords: phraseMatcher(all('money_words')),
    spelledEmail: spelledEmail([...new Set(all('email_at').map(fold))], [...new Set(all('email_dot').map(fold))]),
    // The language's own number words win over English ones spelled alike.
    numbers: new Map([...lists].reverse().flatMap((l) => Object.entries(l.number_words).map(([w, n]) => [fold(w), n] as const))),
  };
  compiled.set(lang, c);
  return c;
}

/** Words of a folded text (letters and digits), in order. */
function words(folded: string): string[] {
  return folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** Spelled-out digits ("zero six one two …"), seven or more in a row, count as a phone number. */
function spelledNumber(tokens: string[], numbers: Map<string, number>): boolean {
  let run = 0;
  for (const token of tokens) {
    if (numbers.has(token) || /^\d$/.test(token)) run++;
    else run = 0;
    if (run >= 7) return true;
  }
  return false;
}

function hasPhone(withIbans: string, lang: Locale): boolean {
  // An IBAN is money, not a phone number.
  const text = withIbans.replace(new RegExp(IBAN_LIKE.source, 'gi'), ' ').replace(DATE_TIME, ' ').replace(DECIMAL, ' ');
  for (const match of text.match(DIGIT_RUN) ?? []) {
    const digits = match.replace(/\D/g, '');
    // A date with a time or a price with decimals never has ≥ 9 digits with single separators; IBANs are money.
    if (digits.length >= 9 && digits.length <= 15) return true;
  }
  // Fewer than 7 digits are no phone number in any of these countries: libphonenumber is not asked.
  if ((text.match(/\d/g)?.length ?? 0) < 7) return false;
  try {
    return findNumbers(text, { defaultCountry: PHONE_COUNTRY[lang], v2: true }).some((n) => (n.number.nationalNumber?.length ?? 0) >= 8);
  } catch {
    return false;
  }
}

/** "name at gmail dot com", "name (at) hotmail", "name[at]web.de", "anna snabel-a hotmail punktum dk". */
function spelledEmail(at: string[], dot: string[]): RegExp {
  const alt = (list: string[]) => list.map(escapeRegExp).join('|');
  const word = '[\\p{L}0-9._-]+';
  const sign = (list: string[]) => `\\s*[([{]?\\s*(?:${alt(list)})\\s*[)\\]}]?\\s*`;
  return new RegExp(`(?:^|\\s)${word}${sign(at)}(?:(?:${MAIL_PROVIDERS.join('|')})(?![\\p{L}])|[\\p{L}0-9-]+${sign(dot)}\\p{L}{2,4}(?![\\p{L}]))`, 'u');
}

/**
 * The words of a text with look-alike signs read as letters and everything else inside a word removed
 * ("w.h.a.t.s.a.p.p", "telegr@m"); letters spelled apart ("w h a t s a p p") become one word.
 */
function squashed(folded: string): string[] {
  const parts = folded.split(/\s+/).map((part) => [...part].map((ch) => LEET[ch] ?? ch).join('').replace(/[^\p{L}]+/gu, '')).filter(Boolean);
  const out: string[] = [];
  let letters = '';
  for (const part of parts) {
    if (part.length === 1) {
      letters += part;
      continue;
    }
    if (letters) out.push(letters);
    letters = '';
    out.push(part);
  }
  if (letters) out.push(letters);
  return out;
}

function offPlatform(text: string, folded: string, tokens: string[], lang: Locale, c: Compiled): boolean {
  if (EMAIL.test(text)) return true;
  if (hasPhone(text, lang) || spelledNumber(tokens, c.numbers)) return true;
  if (c.spelledEmail.test(folded)) return true;
  const invited = c.invite?.test(` ${folded} `) ?? false;
  if (squashed(folded).some((word) => MESSENGERS.some((m) => word.includes(m)))) return true;
  if (invited && MESSENGER_WORD.test(folded)) return true;
  // A handle: "@name" (not an e-mail, checked above) with an invitation.
  return invited && /(?:^|\s)@[\p{L}0-9_.]{3,}/u.test(text);
}

function hasIban(text: string): boolean {
  for (const match of text.match(IBAN_LIKE) ?? []) {
    const iban = electronicFormatIBAN(match);
    if (iban && isValidIBAN(iban)) return true;
  }
  return false;
}

function moneyRequest(text: string, folded: string, c: Compiled): boolean {
  const padded = ` ${folded} `;
  if (c.moneyStrong?.test(padded)) return true;
  if (hasIban(text) || WALLET.test(text)) return true;
  return Boolean(c.moneyAsk?.test(padded) && c.moneyWords?.test(padded));
}

function externalLink(text: string): boolean {
  // E-mail addresses are contact details, not links.
  const rest = text.replace(new RegExp(EMAIL.source, 'giu'), ' ');
  return URL.test(rest);
}

/** The flags of a text in a language, in the order of TEXT_FLAGS; empty when none. */
export function classifyText(text: string, lang: Locale): TextFlag[] {
  const c = compile(lang);
  const folded = fold(text);
  const tokens = words(folded);
  const found: Record<TextFlag, boolean> = {
    off_platform_contact: offPlatform(text, folded, tokens, lang, c),
    money_request: moneyRequest(text, folded, c),
    external_link: externalLink(text),
  };
  return TEXT_FLAGS.filter((f) => found[f]);
}
