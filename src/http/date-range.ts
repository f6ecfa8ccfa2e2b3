// The dates any request may name (insights, traffic, RPC windows): outside this range a request is
// refused up front, so no loop over days or periods can be led past year 9999, where ISO strings
// turn into `+010000-…` and stop sorting after earlier dates. Documented in the README's Security.
import { AppError } from "./errors";

export const FIRST_DAY = "2000-01-01";
export const LAST_DAY = "2999-12-31";

/** Whether an ISO day or date-time (UTC, as toISOString writes it) falls inside the range. */
export const dayInRange = (iso: string) => iso.slice(0, 10) >= FIRST_DAY && iso.slice(0, 10) <= LAST_DAY && /^\d{4}-/.test(iso);

/** 22008 in PostgREST's shape, for a date the range excludes (`value` as the caller gave it). */
export const dateOutOfRange = (value: unknown) =>
  new AppError(400, "22008", `date/time field value out of range: "${String(value)}"`, { details: `Dates run from ${FIRST_DAY} to ${LAST_DAY}.` });

/**
 * An expiry a caller gives (share links, API keys): an ISO 8601 date-time in the future and within
 * the range (year 10000 would be `+010000-…`, which the databases refuse); as ISO, or null if none.
 */
export function futureExpiry(value: unknown, now: Date): string | null {
  if (value === undefined || value === null) return null;
  const t = typeof value === "string" ? Date.parse(value) : NaN;
  const iso = Number.isNaN(t) ? "" : new Date(t).toISOString();
  if (!iso || t <= now.getTime() || !dayInRange(iso)) throw new AppError(400, "validation_failed", `expires_at must be an ISO 8601 date-time in the future, before ${LAST_DAY.slice(0, 4)}-12-31T23:59:59Z`);
  return iso;
}

/**
 * A credential made before its creator's current membership began (they left and came back): void,
 * like one whose creator left — what the organization revoked by removing them stays revoked.
 */
export const madeBeforeMembership = (createdAt: string, memberSince: string | null): boolean => memberSince !== null && Date.parse(createdAt) < Date.parse(memberSince);

/** A share link or an API key still usable at `at`: not revoked and not expired. */
export const isLive = (row: { revoked_at: string | null; expires_at: string | null }, at: Date): boolean => !row.revoked_at && (!row.expires_at || Date.parse(row.expires_at) > at.getTime());
