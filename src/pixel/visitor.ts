// Visitor hash without cookies and without keeping the IP: sha256(daily salt, brand, IP, user
// agent). The salt is random, lives only in memory and is replaced at each UTC day, so yesterday's
// hashes can no longer be recomputed (nor the IP guessed from them) and one person's visits are
// linkable within a day only. A restart starts a new salt: the same visitor may then count twice
// that day, the price of never writing the salt down.

export interface VisitorHasherDeps {
  now: () => Date;
  randomBytes?: (size: number) => Uint8Array;
}

export function createVisitorHasher(deps: VisitorHasherDeps) {
  const randomBytes = deps.randomBytes ?? ((size: number) => crypto.getRandomValues(new Uint8Array(size)));
  let day = "";
  let salt = "";
  /** `today` is the UTC date (YYYY-MM-DD) of the visit; by default the clock's. */
  return function visitorHash(brandId: string, ip: string, userAgent: string, today = deps.now().toISOString().slice(0, 10)): string {
    if (today !== day) {
      day = today;
      salt = Buffer.from(randomBytes(32)).toString("hex");
    }
    return Bun.CryptoHasher.hash("sha256", `${salt}\n${brandId}\n${ip}\n${userAgent}`, "hex").slice(0, 32);
  };
}

export type VisitorHasher = ReturnType<typeof createVisitorHasher>;
