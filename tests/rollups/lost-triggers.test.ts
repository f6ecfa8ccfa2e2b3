// A later migration that rebuilds a table (create, copy, drop, rename) drops its triggers. The
// next open for serving notices every missing latest-results or rollup trigger, puts it back and
// rebuilds what it keeps from raw rows: rows written meanwhile are not lost from either.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { DB_FILE } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { tempDir } from "../helpers/app";
import { rollupDifferences } from "./recompute";

test("missing triggers are recreated at the next open, and the tables they keep rebuilt", () => {
  const path = join(tempDir(), DB_FILE);
  let dbh = openDatabase(path);
  const db = dbh.sqlite;
  db.run("INSERT INTO organizations (id, name, slug) VALUES ('o', 'O', 'o')");
  db.run("INSERT INTO brands (id, organization_id, name, slug) VALUES ('b', 'o', 'B', 'b')");
  db.run("INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s', 'b', 'S')");
  db.run("INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES ('p', 's', 'b', 'q')");
  const result = (id: string, at: string) =>
    db.run("INSERT INTO prompt_results (id, brand_id, prompt_id, platform, model, response, mentioned, created_at) VALUES (?, 'b', 'p', 'chatgpt', 'm', 'a', 1, ?)", [id, at]);
  result("r1", "2026-01-01T00:00:00.000Z");
  // As a table rebuild would: the triggers are gone; a newer row arrives unseen by them.
  for (const { name } of db.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND (name LIKE 'prompt_results_latest_%' OR name LIKE 'rollup_result_%')").all() as { name: string }[])
    db.run(`DROP TRIGGER ${name}`);
  result("r2", "2026-01-02T00:00:00.000Z");
  expect(db.query("SELECT result_id FROM prompt_results_latest").all()).toEqual([{ result_id: "r1" }]);
  expect(rollupDifferences(db).length).toBeGreaterThan(0);
  dbh.close();

  dbh = openDatabase(path);
  expect(dbh.sqlite.query("SELECT result_id FROM prompt_results_latest").all()).toEqual([{ result_id: "r2" }]);
  expect(rollupDifferences(dbh.sqlite)).toEqual([]);
  // …and they keep working.
  dbh.sqlite.run("INSERT INTO prompt_results (id, brand_id, prompt_id, platform, model, response, created_at) VALUES ('r3', 'b', 'p', 'chatgpt', 'm', 'a', '2026-01-03T00:00:00.000Z')");
  expect(dbh.sqlite.query("SELECT result_id FROM prompt_results_latest").all()).toEqual([{ result_id: "r3" }]);
  expect(rollupDifferences(dbh.sqlite)).toEqual([]);
  dbh.close();
});
