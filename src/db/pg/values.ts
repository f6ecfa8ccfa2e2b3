// How Postgres values come back through Bun's client, turned into what the stores' interfaces
// promise (the shapes the SQLite stores return): timestamptz arrives as a Date and becomes the ISO
// string SQLite keeps (millisecond precision, Z); bigint arrives as a string.
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.toISOString() : value;
}

/** A row with every Date as its ISO string. */
export function plainRow<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value instanceof Date ? value.toISOString() : value;
  return out as T;
}

export function plainRows<T>(rows: readonly Record<string, unknown>[]): T[] {
  return rows.map((r) => plainRow<T>(r));
}

/** Postgres' SQLSTATE of an error from Bun's client ("23505", …), if it is one. */
export function pgCode(error: unknown): string | undefined {
  const e = error as { errno?: unknown; code?: unknown } | null;
  const code = typeof e?.errno === "string" ? e.errno : typeof e?.code === "string" ? e.code : undefined;
  return code && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether `id` can be compared with a uuid column (anything else would be a 22P02 error, not "no row"). */
export const isUuid = (id: unknown): id is string => typeof id === "string" && UUID.test(id);

/**
 * `value` with every NUL character of its strings (nested in arrays and plain objects too) replaced
 * by U+FFFD: PostgreSQL's text and jsonb cannot hold U+0000 (22021/22P05), and one such character in
 * an engine's answer, a beacon or a log line would fail the whole batch it rides in. SQLite keeps
 * the character as it is. Other objects (bytes, dates) are left as they are.
 */
export function withoutNul<T>(value: T): T {
  // Looked for first, copied only where found: copying every result's citations and sources took
  // ~15 % of a Postgres instance's main thread in a tracking run (issue #29).
  return hasNul(value, 0) ? replaceNul(value, 0) : value;
}

const isPlainObject = (value: object) => Object.getPrototypeOf(value) === Object.prototype;

function hasNul(value: unknown, depth: number): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (depth > 64 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((v) => hasNul(v, depth + 1));
  if (!isPlainObject(value)) return false;
  for (const key in value) if (hasNul(key, depth + 1) || hasNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

function replaceNul<T>(value: T, depth: number): T {
  if (typeof value === "string") return value.replaceAll("\u0000", "\uFFFD") as T;
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => replaceNul(v, depth + 1)) as T;
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [replaceNul(k, depth + 1), replaceNul(v, depth + 1)])) as T;
}
