// Who may do what (docs/users.md): the roles of a business's users, each allowed what the one
// below it is and more, and the rules of the credentials people choose (email, password).
import { invalid } from './errors.ts';

/** viewer reads; employee also writes clients, credits, payments, files, upload links, verifications and lead conversion; admin everything. */
export const ROLES = ['viewer', 'employee', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Whether a user of `role` may do what needs `need`. */
export const allows = (role: Role, need: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(need);

export const MIN_PASSWORD_LENGTH = 12;
/** Longer is refused before it is hashed: hashing is the costly step, and nobody types more. */
export const MAX_PASSWORD_LENGTH = 256;

/** A password someone chose, or the rule it breaks; its length in characters, not bytes. */
export function checkPassword(password: string): string {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    throw invalid('/password', `must be at least ${MIN_PASSWORD_LENGTH} characters (a few words make a good one)`);
  if (length > MAX_PASSWORD_LENGTH) throw invalid('/password', `must be at most ${MAX_PASSWORD_LENGTH} characters`);
  return password;
}

/** An email as it is stored and looked up: trimmed, lower-case, one @ with something on both sides. */
export function normalEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length < 3 || e.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(e))
    throw invalid('/email', 'must be an email address (name@example.com)');
  return e;
}
