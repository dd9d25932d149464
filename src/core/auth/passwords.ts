// argon2id password hashing (DESIGN §7).
import { hash, verify } from '@node-rs/argon2';

// @node-rs/argon2 hashes with argon2id by default; these are OWASP's minimum recommended costs.
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const hashPassword = (password: string): Promise<string> => hash(password, OPTIONS);

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}

/** A real hash to verify against when the login is unknown, so both failures take the same time. */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword('decoy-password-for-timing'));
