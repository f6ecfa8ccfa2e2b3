// The dates any request may name (insights, traffic, RPC windows): outside this range a request is
// refused up front, so no loop over days or periods can be led past year 9999, where ISO strings
// turn into `+010000-…` and stop sorting after earlier dates. Documented in the README's Security.
export const FIRST_DAY = "2000-01-01";
export const LAST_DAY = "2999-12-31";

/** Whether an ISO day or date-time (UTC, as toISOString writes it) falls inside the range. */
export const dayInRange = (iso: string) => iso.slice(0, 10) >= FIRST_DAY && iso.slice(0, 10) <= LAST_DAY && /^\d{4}-/.test(iso);
