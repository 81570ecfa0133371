import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyText } from '../../src/server/safety/classify';
import { fingerprint, near } from '../../src/server/safety/fingerprint';
import { LOCALES, type Locale } from '../../src/shared/locales';
import { TEXT_FLAGS, type TextFlag } from '../../src/shared/safety.contract';

/** The labelled corpus (issue 26): positives and benign look-alikes in all eleven languages. */
const corpus = readFileSync(new URL('../fixtures/safety-corpus.jsonl', import.meta.url), 'utf8').trim().split('\n')
  .map((line) => JSON.parse(line) as { text: string; lang: Locale; flags: TextFlag[] });

const MIN_PRECISION = 0.95;
const MIN_RECALL = 0.9;

interface Score { tp: number; fp: number; fn: number }
const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);

/** Precision and recall per flag and language, as the table in docs/safety.md. */
function scores() {
  const table = new Map<string, Score>();
  for (const { text, lang, flags } of corpus) {
    const got = classifyText(text, lang);
    for (const flag of TEXT_FLAGS) {
      const key = `${flag} ${lang}`;
      const s = table.get(key) ?? { tp: 0, fp: 0, fn: 0 };
      const want = flags.includes(flag);
      const found = got.includes(flag);
      if (want && found) s.tp++;
      else if (found) s.fp++;
      else if (want) s.fn++;
      table.set(key, s);
    }
  }
  return table;
}

describe('safety text classifier on the corpus', () => {
  it('has at least 600 messages in every language', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(600);
    for (const lang of LOCALES) {
      const own = corpus.filter((c) => c.lang === lang);
      expect(own.filter((c) => c.flags.length === 0).length, lang).toBeGreaterThanOrEqual(15);
      for (const flag of TEXT_FLAGS) expect(own.filter((c) => c.flags.includes(flag)).length, `${lang} ${flag}`).toBeGreaterThanOrEqual(5);
    }
  });

  it(`keeps precision ≥ ${MIN_PRECISION} and recall ≥ ${MIN_RECALL} per flag and language`, () => {
    const table = scores();
    const rows = ['| flag | ' + LOCALES.join(' | ') + ' |', `|---|${LOCALES.map(() => '---').join('|')}|`];
    const failures: string[] = [];
    for (const flag of TEXT_FLAGS) {
      const cells = LOCALES.map((lang) => {
        const s = table.get(`${flag} ${lang}`) as Score;
        const precision = ratio(s.tp, s.tp + s.fp);
        const recall = ratio(s.tp, s.tp + s.fn);
        if (precision < MIN_PRECISION || recall < MIN_RECALL) failures.push(`${flag} ${lang}: P ${precision.toFixed(2)} R ${recall.toFixed(2)}`);
        return `${precision.toFixed(2)} / ${recall.toFixed(2)}`;
      });
      rows.push(`| ${flag} | ${cells.join(' | ')} |`);
    }
    console.log(`precision / recall on ${corpus.length} messages\n${rows.join('\n')}`);
    expect(failures).toEqual([]);
  });

  it('finds obfuscated contacts and leaves look-alikes alone', () => {
    expect(classifyText('add me on whatsapp 0612345678', 'en')).toEqual(['off_platform_contact']);
    expect(classifyText('my snap is l.u.n.a_99', 'en')).toEqual(['off_platform_contact']);
    expect(classifyText('wh4ts4pp me', 'de')).toEqual(['off_platform_contact']);
    expect(classifyText('Mijn telefoon is kapot', 'nl')).toEqual([]);
    expect(classifyText('', 'fi')).toEqual([]);
    // Amounts, dates, times and counts are no phone numbers.
    expect(classifyText('It cost 1500.00 euro, we meet 12.05.2025 at 19.30', 'en')).toEqual([]);
    expect(classifyText('bench a7 37 859777.222', 'de')).toEqual([]);
    expect(classifyText('Mon numéro est le 06.12.34.56.78', 'fr')).toEqual(['off_platform_contact']);
  });
});

describe('spam fingerprints', () => {
  it('are near for the same text with another name and far for other texts', () => {
    const a = fingerprint('Hi Anna, I am an engineer on an oil platform and would love to know you better');
    const b = fingerprint('Hi Eva, I am an engineer on an oil platform and would love to know you better!');
    const c = fingerprint('Hello, how was your weekend? We went hiking in the mountains with the dog');
    expect(a && b && near(a, b)).toBe(true);
    expect(a && c && near(a, c)).toBe(false);
  });
  it('leave short greetings out', () => {
    expect(fingerprint('Hi, how are you?')).toBeNull();
  });
});
