import { hash, verify } from '@node-rs/argon2';
import { concurrencyLimit } from '../util/concurrency';

/** OWASP's argon2id baseline: 19 MiB memory, 2 passes, 1 lane. */
// algorithm 2 is Argon2id (a const enum in the typings, which verbatimModuleSyntax cannot read).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
/** At most this many hashes run at once, so a login storm cannot take every core. */
const MAX_CONCURRENT = Number(process.env.ARGON2_CONCURRENCY ?? 2);

const withSlot = concurrencyLimit(Math.max(1, MAX_CONCURRENT));

export function hashPassword(password: string): Promise<string> {
  return withSlot(() => hash(password, OPTIONS));
}

// A real hash to verify against when the account does not exist, so timing does not tell.
const DUMMY = hash('not-a-real-password-kindred', OPTIONS);

/** Verifies a password; `storedHash` null still costs one verification. */
export async function verifyPassword(storedHash: string | null, password: string): Promise<boolean> {
  const target = storedHash ?? (await DUMMY);
  const ok = await withSlot(() => verify(target, password).catch(() => false));
  return storedHash !== null && ok;
}
