// Password hashing with Bun.password (argon2id, OWASP's minimum parameters: 19 MiB, 2 passes).
const PARAMS = { algorithm: "argon2id", memoryCost: 19456, timeCost: 2 } as const;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, PARAMS);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash).catch(() => false);
}

export interface PasswordChecker {
  /** Verifies, spending the same work whether or not the user exists. */
  check(password: string, hash: string | null | undefined): Promise<boolean>;
}

export function createPasswordChecker(): PasswordChecker {
  // A hash of a random password, verified when the e-mail is unknown so timing tells nothing.
  const dummy = hashPassword(crypto.randomUUID());
  return {
    async check(password, hash) {
      if (!hash) {
        await verifyPassword(password, await dummy);
        return false;
      }
      return verifyPassword(password, hash);
    },
  };
}

export function passwordProblems(password: unknown, minLength: number): string[] {
  if (typeof password !== "string" || password.length < minLength) return ["length"];
  return [];
}
