// One error type for the whole server and one place that turns it into a response. Each surface
// keeps the error shape of the system it is compatible with (DESIGN §2):
//   /auth/v1  GoTrue:    {code, message} (+ x-sb-error-code) or the pre-2024 {code:<status>, error_code, msg}
//   /rest/v1  PostgREST: {code, details, hint, message}
//   elsewhere /api:      {success:false, error:{code, message, details?}}

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

export function errorBody(err: AppError, surface: Surface, request?: Request): { body: Record<string, unknown>; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...err.extra.headers };
  if (err.extra.rawBody) return { body: err.extra.rawBody, headers };
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

/** Maps anything thrown to an AppError; unknown errors become a 500 whose message hides internals. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError(500, "internal_error", "Internal server error");
}
