import { createHash } from 'node:crypto';
import { fold } from './classify';

/**
 * Spam fingerprints (issue 26 item 3): a 64-bit SimHash over 5-character shingles of the folded text
 * (digits kept, punctuation and spacing ignored), as 16 hex digits. Near-identical texts ("Hi Anna,
 * …" / "Hi Eva, …") differ in a few bits; unrelated texts in about half. Texts under MIN_WORDS words
 * ("Hi, how are you?") have none: members greet many others with them, and that is no spam.
 */
export const MIN_WORDS = 6;
const SHINGLE = 5;

export function fingerprint(text: string): string | null {
  const tokens = fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (tokens.length < MIN_WORDS) return null;
  const joined = tokens.join(' ');
  const shingles = joined.length <= SHINGLE ? [joined] : [...joined].slice(0, -SHINGLE + 1).map((_, i) => joined.slice(i, i + SHINGLE));
  const weights = new Array<number>(64).fill(0);
  for (const shingle of shingles) {
    const digest = createHash('md5').update(shingle).digest();
    for (let bit = 0; bit < 64; bit++) weights[bit] += (digest[bit >> 3] >> (bit & 7)) & 1 ? 1 : -1;
  }
  let hex = '';
  for (let nibble = 0; nibble < 16; nibble++) {
    let n = 0;
    for (let b = 0; b < 4; b++) if (weights[nibble * 4 + b] > 0) n |= 1 << b;
    hex += n.toString(16);
  }
  return hex;
}

/** Bits in which two fingerprints differ. */
export function distance(a: string, b: string): number {
  let d = 0;
  for (let i = 0; i < 16; i++) {
    let x = Number.parseInt(a[i], 16) ^ Number.parseInt(b[i], 16);
    while (x) {
      d += x & 1;
      x >>= 1;
    }
  }
  return d;
}

/** Fingerprints this close are the same text. */
export const NEAR = 12;

export function near(a: string, b: string): boolean {
  return distance(a, b) <= NEAR;
}
