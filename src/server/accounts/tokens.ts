import { createHash, randomBytes } from 'node:crypto';

/** A 256-bit random token for cookies and e-mailed links. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

const recentHashes = new Map<string, string>();
const RECENT_HASHES = 10_000;

/** Tokens are stored only as their SHA-256 (the last 10,000 hashed are remembered: a session's every request needs it). */
export function hashToken(token: string): string {
  const known = recentHashes.get(token);
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(token).digest('hex');
  if (recentHashes.size >= RECENT_HASHES) recentHashes.clear();
  recentHashes.set(token, hash);
  return hash;
}

/** E-mail addresses compare case-insensitively and without surrounding space. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
