import { fold } from './classify';

/**
 * Spam fingerprints (issue 26 item 3): a MinHash signature over 5-character shingles of the folded
 * text (digits kept, punctuation and spacing ignored) — HASHES minima, 8 hex digits each. The share of
 * equal minima estimates the texts' Jaccard similarity: the same text with another name in the greeting
 * keeps most of them, other texts share few. Texts under MIN_WORDS words ("Hi, how are you?") have
 * none: members greet many others with them, and that is no spam.
 */
export const MIN_WORDS = 6;
const SHINGLE = 5;
const HASHES = 24;
/** Texts sharing at least this share of minima are the same text. */
export const NEAR = 0.65;

/** Seeds of the hash functions (fixed: stored signatures are compared with new ones). */
const SEEDS = Array.from({ length: HASHES }, (_, k) => mix(0x9e3779b9 ^ Math.imul(k + 1, 0x85ebca6b)));

export function fingerprint(text: string): string | null {
  const tokens = fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (tokens.length < MIN_WORDS) return null;
  const joined = tokens.join(' ');
  const minima = new Uint32Array(HASHES).fill(0xffffffff);
  for (let i = 0; i + SHINGLE <= joined.length; i++) {
    // FNV-1a over the shingle, then one murmur3 finaliser per seed (no hashing library: a send pays for this).
    let h = 0x811c9dc5;
    for (let j = i; j < i + SHINGLE; j++) h = Math.imul(h ^ joined.charCodeAt(j), 0x01000193);
    for (let k = 0; k < HASHES; k++) {
      const v = mix(h ^ SEEDS[k]);
      if (v < minima[k]) minima[k] = v;
    }
  }
  return Array.from(minima, (m) => m.toString(16).padStart(8, '0')).join('');
}

function mix(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The estimated Jaccard similarity of two signatures (0–1). */
export function similarity(a: string, b: string): number {
  let same = 0;
  for (let k = 0; k < HASHES; k++) if (a.slice(k * 8, k * 8 + 8) === b.slice(k * 8, k * 8 + 8)) same++;
  return same / HASHES;
}

export function near(a: string, b: string): boolean {
  return a.length === b.length && similarity(a, b) >= NEAR;
}
