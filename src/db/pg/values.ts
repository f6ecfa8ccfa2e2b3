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
