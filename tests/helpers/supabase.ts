// The real @supabase/supabase-js client against a test server.
import { createClient, type SupabaseClient } from "@supabase/supabase-js";

export function client(url: string, key: string, options: { autoRefreshToken?: boolean } = {}): SupabaseClient {
  return createClient(url, key, { auth: { persistSession: false, autoRefreshToken: options.autoRefreshToken ?? false } });
}

let counter = 0;
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}.${Date.now().toString(36)}.${counter++}@example.com`;
}

/** Signs up a fresh user (who owns a fresh organization) and returns the signed-in client. */
export async function signedUpClient(url: string, anonKey: string, organizationName = "Org") {
  const sb = client(url, anonKey);
  const email = uniqueEmail();
  const { data, error } = await sb.auth.signUp({ email, password: "correct-horse", options: { data: { organization_name: organizationName } } });
  if (error || !data.session) throw new Error(`signUp failed: ${error?.message}`);
  return { sb, email, password: "correct-horse", session: data.session, user: data.user! };
}
