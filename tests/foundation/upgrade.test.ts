// Issues #15 and #16, acceptance "migrations apply to a database of the previous release without
// loss": a database made by the previous release's migrations (0000–0002), holding a row in every
// brand table — citations with a repeated position included — is migrated to the current schema;
// every row is still there with its values, the new columns have their defaults, and the new rules
// (unique citation positions, updated_at kept by the database, Ansvisor's aliases) hold.
import { shownColumns } from "../helpers/stored";
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { applyMigrations } from "../../src/db/migrations";
import { embeddedMigrations } from "../../src/db/migrations.generated";
import { tempDir } from "../helpers/app";

const PREVIOUS_RELEASE = ["0000_init", "0001_suggestion_priority_text", "0002_prompt_results_details"];

test("a database of the previous release is migrated without losing a row", () => {
  const db = new Database(join(tempDir(), "old.db"));
  registerSqlFunctions(db);
  db.run("PRAGMA foreign_keys = ON");
  const previous = embeddedMigrations.filter((m) => PREVIOUS_RELEASE.includes(m.tag));
  expect(previous.map((m) => m.tag)).toEqual(PREVIOUS_RELEASE);
  applyMigrations(db, previous);

  const one = (sql: string, ...params: (string | number | null)[]) => (db.query(`${sql} RETURNING id`).get(...params) as { id: string }).id;
  const org = one("INSERT INTO organizations (name, slug) VALUES ('Org', 'org')");
  const brand = one("INSERT INTO brands (organization_id, name, slug, aliases) VALUES (?, 'Acme', 'acme', '[\"ACME\"]')", org);
  one("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, 'acme.com', 1)", brand);
  const competitor = one("INSERT INTO competitors (brand_id, name, domain) VALUES (?, 'Globex', 'globex.com')", brand);
  const set = one("INSERT INTO prompt_sets (brand_id, name, created_at) VALUES (?, 'Core', '2025-01-02T03:04:05.000Z')", brand);
  const prompt = one("INSERT INTO prompts (prompt_set_id, brand_id, text, regions) VALUES (?, ?, 'best crm?', '[\"US\"]')", set, brand);
  const platform = one("INSERT INTO brand_platforms (brand_id, platform, model, created_at) VALUES (?, 'chatgpt', 'gpt-5-mini', '2025-02-03T04:05:06.000Z')", brand);
  const result = one("INSERT INTO prompt_results (brand_id, prompt_id, platform, model, response, mentioned, citations) VALUES (?, ?, 'chatgpt', 'gpt-5-mini', 'Acme is good.', 1, '[]')", brand, prompt);
  for (const url of ["https://a.com/", "https://b.com/", "https://c.com/"])
    one("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain, competitor_id) VALUES (?, ?, 1, ?, ?, 'x.com', ?)", result, brand, url, url, competitor);
  const suggestion = one("INSERT INTO suggestions (brand_id, type, key, title, priority, status) VALUES (?, 'content_gap', 'prompt:x', 'Gap', 'high', 'accepted')", brand);
  const counts = () =>
    Object.fromEntries(
      ["organizations", "brands", "brand_domains", "competitors", "prompt_sets", "prompts", "brand_platforms", "prompt_results", "citations", "suggestions"].map((t) => [
        t,
        (db.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      ]),
    );
  const before = counts();

  const applied = applyMigrations(db, embeddedMigrations);
  expect(applied).toBe(embeddedMigrations.length - PREVIOUS_RELEASE.length);
  expect(counts()).toEqual(before);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);

  // Old values kept, new columns at their defaults.
  expect(db.query("SELECT name, aliases, is_active, shopping_mode_enabled, logo_url FROM brands WHERE id = ?").get(brand)).toEqual({ name: "Acme", aliases: '["ACME"]', is_active: 1, shopping_mode_enabled: 0, logo_url: null });
  expect(db.query("SELECT name, created_at, updated_at FROM prompt_sets WHERE id = ?").get(set)).toEqual({ name: "Core", created_at: "2025-01-02T03:04:05.000Z", updated_at: "2025-01-02T03:04:05.000Z" });
  expect(db.query("SELECT model, api_model, updated_at FROM brand_platforms WHERE id = ?").get(platform)).toEqual({ model: "gpt-5-mini", api_model: "gpt-5-mini", updated_at: "2025-02-03T04:05:06.000Z" });
  expect(db.query("SELECT text, regions, topic_id, work_status, prompt_set_id FROM prompts WHERE id = ?").get(prompt)).toEqual({ text: "best crm?", regions: '["US"]', topic_id: null, work_status: null, prompt_set_id: set });
  expect(db.query("SELECT response, model_used, sources, source_count, shopping_cards FROM prompt_results WHERE id = ?").get(result)).toEqual({ response: "Acme is good.", model_used: "gpt-5-mini", sources: "[]", source_count: 0, shopping_cards: "[]" });
  expect(db.query("SELECT type, key, status, priority FROM suggestions WHERE id = ?").get(suggestion)).toEqual({ type: "content_gap", key: "prompt:x", status: "accepted", priority: "high" });
  // The repeated citation positions became distinct; URLs and their order kept.
  const citations = db.query(`SELECT ${shownColumns("citations", ["url", "position", "prompt_result_id"])} FROM citations ORDER BY rowid`).all() as { url: string; position: number; prompt_result_id: string }[];
  expect(citations.map((c) => c.url)).toEqual(["https://a.com/", "https://b.com/", "https://c.com/"]);
  expect(citations.map((c) => c.position)).toEqual([1, 2, 3]);
  expect(citations.every((c) => c.prompt_result_id === result)).toBe(true);

  // updated_at moves on every update, whichever path writes the row; an explicit value is kept.
  db.query("UPDATE brand_platforms SET last_checked_at = '2026-01-01T00:00:00.000Z' WHERE id = ?").run(platform);
  expect((db.query("SELECT updated_at FROM brand_platforms WHERE id = ?").get(platform) as { updated_at: string }).updated_at > "2025-02-03T04:05:06.000Z").toBe(true);
  db.query("UPDATE prompt_sets SET name = 'Renamed', updated_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(set);
  expect((db.query("SELECT updated_at FROM prompt_sets WHERE id = ?").get(set) as { updated_at: string }).updated_at).toBe("2030-01-01T00:00:00.000Z");
  // Deleting a topic leaves its prompts, without a topic.
  const topic = one("INSERT INTO topics (brand_id, name) VALUES (?, 'CRM')", brand);
  db.query("UPDATE prompts SET topic_id = ? WHERE id = ?").run(topic, prompt);
  db.query("DELETE FROM topics WHERE id = ?").run(topic);
  expect(db.query("SELECT topic_id FROM prompts WHERE id = ?").get(prompt)).toEqual({ topic_id: null });
  // Citations of one result can no longer share a position.
  expect(() => db.query("INSERT INTO citations (result_id, brand_id, position, url, normalized_url, domain) VALUES (?, ?, 1, 'u', 'u', 'd')").run(result, brand)).toThrow();
});
