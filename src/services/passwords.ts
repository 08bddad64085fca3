// Password hashing with argon2id (@node-rs/argon2: Rust's argon2 crate through N-API, prebuilt
// for each platform, no install script) at OWASP's recommended cost: 19 MiB of memory, 2 passes,
// one lane; about 30 ms a hash on one core, off the event loop. The PHC string it stores names its
// own parameters, so a later change of cost still verifies the passwords hashed before.
import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

const OPTIONS = {
  algorithm: 2, // Algorithm.Argon2id (a const enum the package declares, not importable at run time)
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

let verifications = 0;
/** How many argon2 verifications this process has run: the cost every sign-in path must pay alike. */
export const passwordVerifications = () => verifications;

/** Whether the password is the one hashed; a malformed hash is simply no match. */
export async function passwordMatches(stored: string, password: string): Promise<boolean> {
  verifications++;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

// A hash of a password nobody knows, verified when an email has no account: a sign-in takes as
// long whether or not the email exists.
let decoy: Promise<string> | null = null;
export async function verifyDecoy(password: string): Promise<void> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  await passwordMatches(await decoy, password);
}

/** A secret of 256 random bits behind a prefix that says what it is (sess_, csrf_, sp_). */
export const newSecret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

/** Secrets of 256 random bits need no slow hash: SHA-256 cannot be searched back. */
export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
