import { expect, test } from "bun:test";
import { join } from "node:path";
import { renderEmbeddedMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { openDatabase } from "../../src/database";
import { brandOwnedTables } from "../../src/db/schema";
import { ROOT, tempDir } from "../helpers/app";

test("the embedded migrations module matches drizzle/ (run npm run db:generate)", async () => {
  const expected = await renderEmbeddedMigrations(`${ROOT}drizzle`);
  expect(await Bun.file(`${ROOT}src/db/migrations.generated.ts`).text()).toBe(expected);
});

test("opening twice applies migrations once; pragmas are set", () => {
  const file = join(tempDir(), "t.db");
  openDatabase(file).close();
  const dbh = openDatabase(file);
  expect(dbh.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual({ n: embeddedMigrations.length });
  expect(dbh.sqlite.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  expect(dbh.sqlite.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
  expect(dbh.sqlite.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
  dbh.close();
});

test("deleting a brand removes its rows from every brand-owned table", () => {
  const dbh = openDatabase(join(tempDir(), "t.db"));
  const db = dbh.sqlite;
  const one = <T>(sql: string, ...params: unknown[]) => db.query(sql).get(...(params as [])) as T;
  const id = (sql: string, ...params: unknown[]) => one<{ id: string }>(`${sql} RETURNING id`, ...params).id;

  const org = id("INSERT INTO organizations (name, slug) VALUES ('Org', 'org')");
  const user = id("INSERT INTO users (email) VALUES ('a@b.co')");
  const brandIds = [0, 1].map((i) => id("INSERT INTO brands (organization_id, name, slug) VALUES (?, ?, ?)", org, `B${i}`, `b${i}`));
  for (const brand of brandIds) {
    const comp = id("INSERT INTO competitors (brand_id, name) VALUES (?, 'Rival')", brand);
    id("INSERT INTO brand_domains (brand_id, domain) VALUES (?, 'acme.com')", brand);
    const set = id("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 'S')", brand);
    const prompt = id("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, 'best crm?')", set, brand);
    id("INSERT INTO brand_platforms (brand_id, platform) VALUES (?, 'chatgpt')", brand);
    const job = id("INSERT INTO jobs (type, brand_id, organization_id, run_at) VALUES ('tracking', ?, ?, 'now')", brand, org);
    db.query("INSERT INTO job_units (job_id, seq, brand_id, prompt_id, platform, model) VALUES (?, 0, ?, ?, 'chatgpt', 'gpt')").run(job, brand, prompt);
    const result = id("INSERT INTO prompt_results (job_id, brand_id, prompt_id, platform, model) VALUES (?, ?, ?, 'chatgpt', 'gpt')", job, brand, prompt);
    id("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, competitor_id) VALUES (?, ?, 1, 'u', 'u', 'd', ?)", result, brand, comp);
    id("INSERT INTO suggestions (brand_id, type, key, title) VALUES (?, 'gap', 'k', 't')", brand);
    id("INSERT INTO ai_traffic_logs (brand_id, url, path, visitor_hash) VALUES (?, 'u', '/', 'h')", brand);
    const endpoint = id("INSERT INTO webhook_endpoints (organization_id, brand_id, url, secret) VALUES (?, ?, 'https://x.io', 's')", org, brand);
    const event = id("INSERT INTO webhook_events (organization_id, brand_id, type, payload) VALUES (?, ?, 't', '{}')", org, brand);
    id("INSERT INTO webhook_deliveries (endpoint_id, event_id) VALUES (?, ?)", endpoint, event);
  }
  const count = (table: string, brand: string) => one<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE brand_id = ?`, brand).n;
  for (const table of brandOwnedTables) expect(count(table, brandIds[0])).toBe(1);

  db.query("DELETE FROM brands WHERE id = ?").run(brandIds[0]);
  for (const table of brandOwnedTables) {
    expect({ table, n: count(table, brandIds[0]) }).toEqual({ table, n: 0 });
    expect({ table, n: count(table, brandIds[1]) }).toEqual({ table, n: 1 });
  }
  expect(one<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries").n).toBe(1);
  expect(one<{ n: number }>("SELECT count(*) AS n FROM users WHERE id = ?", user).n).toBe(1);
  dbh.close();
});
