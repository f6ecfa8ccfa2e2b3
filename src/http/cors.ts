// CORS for browser clients of /auth/v1, /rest/v1 and /api (supabase-js in a web app).
// The pixel answers its own preflight (its origin rule is per brand).
import type { Config } from "../config";

const ALLOW_HEADERS =
  "authorization, apikey, content-type, content-profile, accept-profile, prefer, range, range-unit, x-client-info, x-supabase-api-version, x-request-id, accept";
const EXPOSE_HEADERS = "content-range, content-location, preference-applied, x-request-id, x-sb-error-code, location";
const ALLOW_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

function allowedOrigin(config: Pick<Config, "corsOrigins">, origin: string | null): string | null {
  if (!origin) return null;
  if (config.corsOrigins === "*") return origin;
  return config.corsOrigins.includes(origin) ? origin : null;
}

/**
 * Credentials (cookies, HTTP auth) are allowed only for origins named in CORS_ORIGINS: with the
 * default `*` any site may call the API with a bearer token it holds, never with the browser's
 * ambient credentials.
 */
const credentialsFor = (config: Pick<Config, "corsOrigins">): Record<string, string> => (config.corsOrigins === "*" ? {} : { "access-control-allow-credentials": "true" });

export function corsPreflight(config: Pick<Config, "corsOrigins">, request: Request): Response | null {
  if (request.method !== "OPTIONS" || !request.headers.get("access-control-request-method")) return null;
  const origin = allowedOrigin(config, request.headers.get("origin"));
  if (!origin) return new Response(null, { status: 204 });
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": ALLOW_METHODS,
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? ALLOW_HEADERS,
      ...credentialsFor(config),
      "access-control-max-age": "86400",
      vary: "Origin",
    },
  });
}

export function applyCors(config: Pick<Config, "corsOrigins">, request: Request, headers: Headers): void {
  const origin = allowedOrigin(config, request.headers.get("origin"));
  if (!origin) return;
  headers.set("access-control-allow-origin", origin);
  for (const [name, value] of Object.entries(credentialsFor(config))) headers.set(name, value);
  headers.set("access-control-expose-headers", EXPOSE_HEADERS);
  headers.append("vary", "Origin");
}
