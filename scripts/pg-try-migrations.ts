// Applies Postgres mode's migrations (src/db/pg/migrations.generated.ts, from drizzle-pg/) to a
// throwaway PostgreSQL cluster and checks what the hand-written ones promise: organization_id filled
// and kept by trigger, updated_at kept, lz4 on the answer columns. `bun scripts/pg-try-migrations.ts`
// (or `--url postgres://…` for an existing, empty database it may write to). Prints timings; skips (exit 0) when the
// PostgreSQL binaries are missing. Not the shared test cluster (tests/helpers/postgres.ts): a probe.
import { SQL } from "bun";
import { existsSync, mkdtempSync, rmSync, chownSync } from "node:fs";
import { embeddedMigrations } from "../src/db/pg/migrations.generated";

const BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const urlArg = process.argv.indexOf("--url");
const givenUrl = urlArg > 0 ? process.argv[urlArg + 1] : undefined;

const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

/** Runs a PostgreSQL binary; as root through `runuser -u postgres` (PostgreSQL refuses to run as root). */
function run(cmd: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const proc = Bun.spawnSync(asRoot ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd, { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${cmd[0]} failed (${proc.exitCode}): ${proc.stderr.toString()}${proc.stdout.toString()}`);
}

interface Cluster {
  sql: SQL;
  url: string;
  stop(): void;
}

function startCluster(): Cluster | null {
  if (!existsSync(`${BIN}/initdb`) || !existsSync(`${BIN}/pg_ctl`)) return null;
  const dir = mkdtempSync("/tmp/aw-pg-try-");
  if (process.getuid?.() === 0) {
    const pw = Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim();
    const gr = Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim();
    chownSync(dir, Number(pw), Number(gr));
  }
  // The port only names the socket file (no TCP): any number whose socket is not there is free.
  let port = 0;
  do port = 40000 + Math.floor(Math.random() * 20000);
  while (existsSync(`${dir}/.s.PGSQL.${port}`));
  let t0 = performance.now();
  run([`${BIN}/initdb`, "-D", `${dir}/data`, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  console.log(`initdb: ${ms(t0)}`);
  t0 = performance.now();
  run([`${BIN}/pg_ctl`, "-D", `${dir}/data`, "-l", `${dir}/log`, "-w", "-o", `-k ${dir} -p ${port} -c listen_addresses='' -c fsync=off`, "start"]);
  console.log(`pg_ctl start: ${ms(t0)}`);
  // A unix socket in Bun 1.4.5: ?host=<socket directory> in the URL (or { path: dir, port }).
  const url = `postgres://postgres@localhost:${port}/postgres?host=${dir}`;
  const sql = new SQL(url);
  return {
    sql,
    url,
    stop() {
      const t = performance.now();
      run([`${BIN}/pg_ctl`, "-D", `${dir}/data`, "-m", "fast", "-w", "stop"]);
      console.log(`pg_ctl stop: ${ms(t)}`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function applyAll(sql: SQL): Promise<void> {
  for (const m of embeddedMigrations) {
    const t0 = performance.now();
    const statements = m.sql.split("--> statement-breakpoint").filter((s) => s.trim());
    await sql.begin(async (tx) => {
      for (const statement of statements) await tx.unsafe(statement);
    });
    console.log(`  ${m.tag}: ${statements.length} statements, ${ms(t0)}`);
  }
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
  console.log(`  ok: ${what}`);
}

async function smoke(sql: SQL): Promise<void> {
  const [org1] = await sql`INSERT INTO organizations (name, slug) VALUES ('One', 'one') RETURNING id`;
  const [org2] = await sql`INSERT INTO organizations (name, slug) VALUES ('Two', 'two') RETURNING id`;
  const [brand] = await sql`INSERT INTO brands (organization_id, name, slug) VALUES (${org1.id}, 'Acme', 'acme') RETURNING id, tracking_code, updated_at::text AS updated_at`;
  check(/^aw_[0-9a-f]{24}$/.test(brand.tracking_code), `tracking_code default (${brand.tracking_code})`);
  const [set] = await sql`INSERT INTO prompt_sets (brand_id, name) VALUES (${brand.id}, 'Set') RETURNING id, organization_id`;
  check(set.organization_id === org1.id, "prompt_sets.organization_id filled from the brand");
  // A writer's wrong organization is overwritten.
  const [prompt] = await sql`INSERT INTO prompts (prompt_set_id, brand_id, organization_id, text) VALUES (${set.id}, ${brand.id}, ${org2.id}, 'best anvils?') RETURNING id, organization_id`;
  check(prompt.organization_id === org1.id, "a wrong organization_id sent by a writer is replaced by the brand's");
  const [result] = await sql`INSERT INTO prompt_results (brand_id, prompt_id, platform, model, response, citations) VALUES (${brand.id}, ${prompt.id}, 'chatgpt', 'gpt', ${"x".repeat(10000)}, ${[{ url: "https://a.example" }]}) RETURNING id, organization_id, model_used, citations`;
  check(result.organization_id === org1.id && result.model_used === "gpt", "prompt_results: organization_id and the generated model_used");
  check(Array.isArray(result.citations), `an array parameter is stored as a jsonb array (${JSON.stringify(result.citations)})`);
  await sql`INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain) VALUES (${result.id}, ${brand.id}, 1, 'https://a.example', 'a.example', 'a.example')`;
  const [c] = await sql`SELECT organization_id, prompt_result_id FROM citations`;
  check(c.organization_id === org1.id && c.prompt_result_id === result.id, "citations: organization_id and the generated prompt_result_id");
  let code = "";
  try {
    await sql`INSERT INTO citations (result_id, brand_id, position, domain) VALUES (${result.id}, ${brand.id}, 2, 'b.example')`;
  } catch (e) {
    code = (e as { errno?: string; code?: string }).errno ?? (e as { code?: string }).code ?? "";
  }
  check(code === "23514", `CHECK citations_url_present holds (${code})`);
  code = "";
  try {
    await sql`INSERT INTO topics (brand_id, name) VALUES (gen_random_uuid(), 'x')`;
  } catch (e) {
    code = (e as { errno?: string }).errno ?? "";
  }
  check(code === "23503", `a missing brand is a foreign key violation (${code})`);
  const [ep] = await sql`INSERT INTO webhook_endpoints (organization_id, url, secret) VALUES (${org1.id}, 'https://h.example', 's') RETURNING id`;
  const [ev] = await sql`INSERT INTO webhook_events (organization_id, type, payload) VALUES (${org1.id}, 't', '{}') RETURNING id`;
  const [dl] = await sql`INSERT INTO webhook_deliveries (endpoint_id, event_id) VALUES (${ep.id}, ${ev.id}) RETURNING organization_id`;
  check(dl.organization_id === org1.id, "webhook_deliveries.organization_id filled from the endpoint");
  await sql`INSERT INTO crawler_hits (brand_id, at, method, path, status, class, hit, record_key) VALUES (${brand.id}, now(), 'GET', '/', 200, 'human', 'page', ${new Uint8Array([1, 2, 3])})`;
  await sql`INSERT INTO result_rollups_daily (brand_id, day, prompt_id, platform, model, region, reported_model, results) VALUES (${brand.id}, '2026-01-01', ${prompt.id}, 'chatgpt', 'gpt', '', '', 1)
    ON CONFLICT (brand_id, day, prompt_id, platform, model, region, reported_model) DO UPDATE SET results = result_rollups_daily.results + 1`;
  // The brand moves: its rows follow.
  await sql`UPDATE brands SET organization_id = ${org2.id} WHERE id = ${brand.id}`;
  const moved = await sql`SELECT (SELECT organization_id FROM prompts) AS p, (SELECT organization_id FROM citations) AS c, (SELECT organization_id FROM crawler_hits) AS h, (SELECT organization_id FROM result_rollups_daily) AS r`;
  check(Object.values(moved[0]).every((v) => v === org2.id), "a brand moved to another organization takes its rows with it");
  const [after] = await sql`SELECT updated_at::text AS updated_at FROM brands WHERE id = ${brand.id}`;
  check(after.updated_at !== brand.updated_at, "brands.updated_at moves on an update");
  const [p1] = await sql`SELECT updated_at::text AS updated_at FROM prompts`;
  await sql`UPDATE prompts SET is_branded = true`;
  const [p2] = await sql`SELECT updated_at::text AS updated_at FROM prompts`;
  check(p1.updated_at === p2.updated_at, "prompts.updated_at does not move on is_branded alone");
  const lz4 = await sql`SELECT attname, attcompression FROM pg_attribute WHERE attrelid = 'prompt_results'::regclass AND attname IN ('response', 'citations', 'sources', 'details') ORDER BY attname`;
  check(lz4.length === 4 && lz4.every((r: { attcompression: string }) => r.attcompression === "l"), "lz4 on prompt_results.response, citations, sources, details");
  const [types] = await sql`SELECT pg_typeof(created_at)::text AS ts, pg_typeof(mentioned)::text AS b, pg_typeof(details)::text AS j FROM prompt_results`;
  console.log(`  column types: ${JSON.stringify(types)}; a timestamptz reads in Bun as ${Object.prototype.toString.call((await sql`SELECT created_at FROM prompt_results`)[0].created_at)}`);
  const [big] = await sql`SELECT id FROM crawler_hits`;
  console.log(`  a bigint reads in Bun as ${typeof big.id}`);
  // What Bun sends for a jsonb parameter (issue #29's pitfall: JSON.stringify(x) stores a JSON string).
  for (const [label, value] of [["string[]", ["a", "b"]], ["object", { a: 1 }], ["JSON.stringify(object)", JSON.stringify({ a: 1 })]] as const) {
    try {
      const [row] = await sql`UPDATE prompts SET platforms = ${value as never} RETURNING jsonb_typeof(platforms) AS kind, platforms::text AS text`;
      console.log(`  jsonb parameter ${label} → ${row.kind} ${row.text}`);
    } catch (e) {
      console.log(`  jsonb parameter ${label} → error ${(e as Error).message}`);
    }
  }
}

let cluster: Cluster | null = null;
let sql: SQL;
if (givenUrl) {
  sql = new SQL(givenUrl);
} else {
  cluster = startCluster();
  if (!cluster) {
    console.log(`skipped: no PostgreSQL binaries in ${BIN}`);
    process.exit(0);
  }
  sql = cluster.sql;
  console.log(`connected: ${cluster.url}`);
}
try {
  const t0 = performance.now();
  await applyAll(sql);
  console.log(`migrations: ${ms(t0)}`);
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`;
  console.log(`tables: ${n}`);
  await smoke(sql);
} finally {
  await sql.close();
  cluster?.stop();
}
