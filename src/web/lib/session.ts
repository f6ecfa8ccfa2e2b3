// The app's one connection to the server: supabase-js for auth, tables and the insights RPCs, and
// fetch with the session's bearer token for /api/* — only the public interfaces an integrator has.
import { createClient, type Session, type SupabaseClient } from "@supabase/supabase-js";

export interface AppConfig {
  anonKey: string;
  version: string;
  /** Where sites reach this server (PUBLIC_URL): the pixel's address. */
  publicUrl: string;
  /** PUBLIC_URL reaches this machine only: snippets and share links made with it work nowhere else. */
  publicUrlIsLoopback: boolean;
  /** Platforms with an engine configured on the server (read-only in the app); `missing` names the variable to set. */
  platforms: { id: string; configured: boolean; defaultModel: string | null; missing: string | null }[];
}

export interface Connection {
  sb: SupabaseClient;
  config: AppConfig;
  /** A JSON call to /api/*: the parsed body, or an Error carrying the server's message. */
  api<T = any>(method: string, path: string, body?: unknown): Promise<T>;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

export async function connect(): Promise<Connection> {
  const config = (await (await fetch("/api/app-config")).json()) as AppConfig;
  const sb = createClient(location.origin, config.anonKey, { auth: { persistSession: true, autoRefreshToken: true, storageKey: "answerwatch-session" } });
  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { data } = await sb.auth.getSession();
    const headers: Record<string, string> = {};
    if (data.session) headers.authorization = `Bearer ${data.session.access_token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json().catch(() => null)) as { success?: boolean; error?: { code?: string; message?: string } } | null;
    if (!res.ok || json?.success === false) throw new ApiError(json?.error?.message ?? `${res.status} ${res.statusText}`, res.status, json?.error?.code);
    return json as T;
  }
  return { sb, config, api };
}

/** supabase-js errors (PostgREST or GoTrue shape) as one message for the user. */
export function errorMessage(error: unknown): string {
  if (!error) return "";
  if (typeof error === "string") return error;
  const e = error as { message?: string; details?: string; hint?: string };
  return [e.message, e.details].filter(Boolean).join(" — ") || "Something went wrong";
}

export type { Session };
