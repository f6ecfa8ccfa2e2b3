// One error type for the whole server and one place that turns it into a response. Each surface
// keeps the error shape of the system it is compatible with (DESIGN §2):
//   /auth/v1  GoTrue:    {code, message} (+ x-sb-error-code) or the pre-2024 {code:<status>, error_code, msg}
//   /rest/v1  PostgREST: {code, details, hint, message}
//   elsewhere /api:      {success:false, error:{code, message, details?}}

import { pgCode } from "../db/pg/values";

export type Surface = "auth" | "rest" | "api";

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: {
      details?: unknown;
      hint?: string | null;
      /** Extra top-level fields (e.g. GoTrue's weak_password.reasons) */
      fields?: Record<string, unknown>;
      headers?: Record<string, string>;
      /** A body used as-is, for answers whose shape is neither of the above (the apikey gate). */
      rawBody?: Record<string, unknown>;
      /** The code on another surface than the default one (a SQLSTATE under /rest, a word elsewhere). */
      surfaceCodes?: Partial<Record<Surface, string>>;
    } = {},
  ) {
    super(message);
  }
}

export function surfaceOf(pathname: string): Surface {
  if (pathname.startsWith("/auth/v1")) return "auth";
  if (pathname.startsWith("/rest/v1")) return "rest";
  return "api";
}

export function errorBody(error: AppError, surface: Surface, request?: Request): { body: Record<string, unknown>; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...error.extra.headers };
  if (error.extra.rawBody) return { body: error.extra.rawBody, headers };
  const code = error.extra.surfaceCodes?.[surface];
  const err = code ? { status: error.status, code, message: error.message, extra: error.extra } : error;
  switch (surface) {
    case "auth": {
      const apiVersion = request?.headers.get("x-supabase-api-version");
      headers["x-sb-error-code"] = err.code;
      if (apiVersion) {
        headers["x-supabase-api-version"] = apiVersion;
        return { body: { code: err.code, message: err.message, ...err.extra.fields }, headers };
      }
      return { body: { code: err.status, error_code: err.code, msg: err.message, ...err.extra.fields }, headers };
    }
    case "rest":
      return {
        body: { code: err.code, details: err.extra.details ?? null, hint: err.extra.hint ?? null, message: err.message },
        headers,
      };
    case "api":
      return {
        body: { success: false, error: { code: err.code, message: err.message, ...(err.extra.details !== undefined ? { details: err.extra.details } : {}) } },
        headers,
      };
  }
}

export function errorResponse(err: AppError, surface: Surface, request?: Request): Response {
  const { body, headers } = errorBody(err, surface, request);
  return Response.json(body, { status: err.status, headers });
}

/** SQLite's result code of an error thrown by the SQLite driver ("SQLITE_FULL", …), if it is one. */
export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/** The database could not be written: the disk (or the file system's quota) is full. */
export function isStorageFull(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === "SQLITE_FULL" || code === "SQLITE_IOERR_WRITE" || code === "SQLITE_IOERR_FSYNC";
}

/**
 * SQLite failures that are the caller's or the machine's condition, not a bug: a full disk and a
 * lock held too long are 503s (PostgREST answers class 53 with 503), a statement too large for
 * SQLite's limits is the request's fault (Postgres' class 54, a 400).
 */
function fromSqlite(error: unknown): AppError | null {
  const code = sqliteCode(error);
  if (!code) return null;
  if (isStorageFull(error))
    return new AppError(503, "53100", "The database cannot be written: the disk is full", {
      headers: { "retry-after": "60" },
      surfaceCodes: { auth: "storage_full", api: "storage_full" },
      hint: "Free disk space on the server; reads keep working.",
    });
  if (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"))
    return new AppError(503, "55P03", "The database is busy; try again", { headers: { "retry-after": "1" }, surfaceCodes: { auth: "storage_busy", api: "storage_busy" } });
  const message = (error as Error).message ?? "";
  if (code === "SQLITE_TOOBIG" || /too many (terms|SQL variables|columns|arguments)|Expression tree is too large|too many FROM clause terms/i.test(message))
    return new AppError(400, "54001", "The request is too complex", { details: message.slice(0, 200), surfaceCodes: { auth: "validation_failed", api: "request_too_complex" } });
  return null;
}

/**
 * PostgreSQL failures that are the request's or the server's condition, for the surfaces whose
 * stores do not word them themselves (/api, /auth; /rest/v1 relays its own, as PostgREST does): a
 * value from the request the column cannot hold (a NUL or bad encoding in text, a malformed or
 * out-of-range date, text too long, text that is no number) and a program limit (54) are the
 * request's 400; the timeout, a lost race (a deadlock, a serialization failure) and insufficient
 * resources are 503s to retry. What the server's own SQL can cause (a division by zero, a sum
 * overflowing, a subquery of two rows) stays a 500, logged.
 */
const INPUT_VALUE_CODES = new Set(["22P05", "22021", "22001", "22007", "22008", "22009", "22P02"]);
function fromPostgres(error: unknown): AppError | null {
  const code = pgCode(error);
  if (!code) return null;
  const message = String((error as { message?: unknown }).message ?? "").slice(0, 300);
  const invalid = { auth: "validation_failed", api: "invalid_value" };
  if (INPUT_VALUE_CODES.has(code)) return new AppError(400, code, `A value in the request cannot be stored: ${message}`, { surfaceCodes: invalid });
  if (code.startsWith("54")) return new AppError(400, code, "The request is too complex", { details: message, surfaceCodes: { auth: "validation_failed", api: "request_too_complex" } });
  if (code === "57014") return new AppError(503, code, "The request took too long; try a narrower one", { headers: { "retry-after": "1" }, surfaceCodes: { auth: "request_timeout", api: "statement_timeout" } });
  if (code === "40001" || code === "40P01" || code.startsWith("53") || code === "55P03")
    return new AppError(503, code, "The database is busy with a conflicting request; try again", { headers: { "retry-after": "1" }, surfaceCodes: { auth: "storage_busy", api: "storage_busy" } });
  return null;
}

/** Maps anything thrown to an AppError; unknown errors become a 500 whose message hides internals. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return fromSqlite(error) ?? fromPostgres(error) ?? new AppError(500, "internal_error", "Internal server error");
}
