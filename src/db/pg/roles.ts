// The roles a request runs under on Postgres, as a Supabase project has them: /rest/v1 sets one per
// request (src/platform/rest/policies.pg.ts makes them and their grants). Here, below both the
// policies and the tables that must never be granted to them (src/db/pg/partitions.ts).
export const REST_ROLES = ["anon", "authenticated", "service_role"] as const;
