// Shared setup for /rest/v1 tests: a real server, organizations with users of each role signed in
// through the real supabase-js client, and a raw fetch for what the client cannot express.
import type { SupabaseClient } from "@supabase/supabase-js";
import { testServer } from "../helpers/app";
import { client, signedUpClient, uniqueEmail } from "../helpers/supabase";

export type Server = Awaited<ReturnType<typeof testServer>>;

export interface Org {
  id: string;
  owner: SupabaseClient;
  ownerToken: string;
}

export async function signedUpOrg(server: Server, name: string): Promise<Org> {
  const { sb, session } = await signedUpClient(server.url, server.secrets.anonKey, name);
  const { data, error } = await sb.from("organizations").select("id");
  if (error || data.length !== 1) throw new Error(`organization of ${name}: ${JSON.stringify(error ?? data)}`);
  return { id: data[0].id, owner: sb, ownerToken: session.access_token };
}

/** A user with `role` in an existing organization (admin API), signed in with supabase-js. */
export async function memberOf(server: Server, orgId: string, role: "admin" | "member" | "viewer") {
  const email = uniqueEmail(role);
  const res = await fetch(`${server.url}/auth/v1/admin/users`, {
    method: "POST",
    headers: { apikey: server.secrets.serviceRoleKey, authorization: `Bearer ${server.secrets.serviceRoleKey}`, "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct-horse", organization_id: orgId, role }),
  });
  if (!res.ok) throw new Error(`admin create user: ${res.status} ${await res.text()}`);
  const sb = client(server.url, server.secrets.anonKey);
  const { data, error } = await sb.auth.signInWithPassword({ email, password: "correct-horse" });
  if (error) throw error;
  return { sb, token: data.session!.access_token };
}

export function serviceClient(server: Server): SupabaseClient {
  return client(server.url, server.secrets.serviceRoleKey);
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** A request to /rest/v1 with the anon apikey and the given bearer (user token or key). */
export async function rest(server: Server, path: string, init: RequestInit & { token?: string } = {}): Promise<RawResponse> {
  const headers = new Headers(init.headers);
  headers.set("apikey", server.secrets.anonKey);
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
  const res = await fetch(`${server.url}/rest/v1${path}`, { ...init, headers });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // CSV and other text bodies stay text
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** A brand with domains and competitors, created through supabase-js as the given user. */
export async function createBrand(sb: SupabaseClient, orgId: string, slug: string, children = { domains: 1, competitors: 1 }) {
  const { data: brand, error } = await sb.from("brands").insert({ organization_id: orgId, name: `Brand ${slug}`, slug }).select().single();
  if (error) throw new Error(`create brand: ${JSON.stringify(error)}`);
  if (children.domains) {
    const rows = Array.from({ length: children.domains }, (_, i) => ({ brand_id: brand.id, domain: `${slug}-${i}.example.com`, is_primary: i === 0 }));
    const r = await sb.from("brand_domains").insert(rows);
    if (r.error) throw new Error(JSON.stringify(r.error));
  }
  if (children.competitors) {
    const rows = Array.from({ length: children.competitors }, (_, i) => ({ brand_id: brand.id, name: `Rival ${i}`, domain: `rival-${slug}-${i}.com` }));
    const r = await sb.from("competitors").insert(rows);
    if (r.error) throw new Error(JSON.stringify(r.error));
  }
  return brand as { id: string; organization_id: string; slug: string };
}

/** A prompt_results row as the tracking run writes it (server side, straight into SQLite). */
export function insertResult(
  server: Server,
  row: { brand_id: string; prompt_id: string; platform: string; model: string; region?: string; created_at: string; job_id?: string; mentioned?: boolean; visibility_score?: number },
): string {
  const id = crypto.randomUUID();
  server.dbh.sqlite
    .query(
      `INSERT INTO prompt_results (id, job_id, brand_id, prompt_id, platform, model, region, response, mentioned, visibility_score, competitor_mentions, citations, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(id, row.job_id ?? crypto.randomUUID(), row.brand_id, row.prompt_id, row.platform, row.model, row.region ?? "", `answer ${id}`, row.mentioned ? 1 : 0, row.visibility_score ?? null, '[{"name":"Rival"}]', "[]", row.created_at);
  return id;
}

/** PostgREST's error body: exactly these four keys. */
export function expectPgrstError(res: { status: number; body: any }, status: number, code: string) {
  const problems: string[] = [];
  if (res.status !== status) problems.push(`status ${res.status} ≠ ${status}`);
  const keys = res.body && typeof res.body === "object" ? Object.keys(res.body).sort().join(",") : String(res.body);
  if (keys !== "code,details,hint,message") problems.push(`keys ${keys}`);
  if (res.body?.code !== code) problems.push(`code ${res.body?.code} ≠ ${code}`);
  if (problems.length) throw new Error(`${problems.join("; ")} — body ${JSON.stringify(res.body)}`);
}
