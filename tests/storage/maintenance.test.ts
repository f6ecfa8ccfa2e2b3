// Issue #17, compact storage: answers are written compressed by the result store; retention
// (RETENTION_DAYS_RAW_ANSWERS) empties the text of old answers and nothing else — analysed
// columns, citations, the latest table and the rollups stay as they were; incremental vacuum gives
// whole freed pages back (space inside pages that retention thinned needs `vacuum --full`).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DB_FILE } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { unpackedSql } from "../../src/db/text-codec";
import { createResultStore } from "../../src/results/store.sqlite";
import { runMaintenance } from "../../src/storage/maintenance";
import { createSqliteStorageStore } from "../../src/storage/store.sqlite";
import type { ResultValues } from "../../src/tracking/unit-runner";
import { tempDir } from "../helpers/app";
import { rollupCounts } from "../rollups/recompute";

const NOW = new Date("2026-06-30T12:00:00.000Z");
const answer = (i: number) => `Answer ${i}: ` + Array.from({ length: 120 }, (_, w) => `word${(w * 7 + i) % 50}`).join(" ");

function values(i: number): ResultValues {
  const citations = JSON.stringify([{ position: 1, url: `https://ex.com/${i}`, normalized_url: `ex.com/${i}`, domain: "ex.com", host: "ex.com", title: "A page title", is_brand: false, competitor_id: null }]);
  return {
    surface: "api", response: answer(i), mentioned: 1, mention_count: 2, mention_position: 1, competitor_mentions: "[]", citations, citation_count: 1,
    brand_citation_count: 0, sources: citations, source_count: 1, sentiment: "positive", sentiment_score: 0.5, visibility_score: 80, search_queries: "[]", details: "{}",
  };
}

test("answers are stored compressed; retention empties old answers' text and keeps everything else; freed pages go back", async () => {
  const dbh = openDatabase(join(tempDir(), DB_FILE));
  const db = dbh.sqlite;
  expect(db.query("PRAGMA auto_vacuum").get()).toEqual({ auto_vacuum: 2 });
  db.run("INSERT INTO organizations (id, name, slug) VALUES ('o', 'O', 'o')");
  db.run("INSERT INTO brands (id, organization_id, name, slug) VALUES ('b', 'o', 'B', 'b')");
  db.run("INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s', 'b', 'S')");
  db.run("INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES ('p', 's', 'b', 'q')");
  const store = createResultStore(db);
  db.transaction(() => {
    for (let i = 0; i < 400; i++) {
      const at = new Date(NOW.getTime() - i * 86_400_000).toISOString();
      store.insert({ id: `r${String(i).padStart(3, "0")}`, jobId: `j${i}`, brandId: "b", promptId: "p", platform: "chatgpt", model: "m", region: "", createdAt: at }, values(i));
    }
  })();
  // Compressed on disk, the same text through aw_text().
  const stored = db.query("SELECT typeof(response) AS kind, length(response) AS bytes, aw_text(response) AS text FROM prompt_results WHERE id = 'r007'").get() as { kind: string; bytes: number; text: string };
  expect(stored.kind).toBe("blob");
  expect(stored.text).toBe(answer(7));
  expect(stored.bytes).toBeLessThan(Buffer.byteLength(answer(7)) / 2);

  const analysed = () => db.query("SELECT id, mentioned, mention_count, sentiment_score, visibility_score, aw_text(citations) AS citations, created_at FROM prompt_results ORDER BY id").all();
  const before = { analysed: analysed(), rollups: rollupCounts(db), sums: db.query("SELECT sum(results), sum(mentioned), sum(visibility_sum) FROM result_rollups_daily").get(), latest: db.query("SELECT * FROM prompt_results_latest").all(), citations: db.query("SELECT count(*) AS n FROM citations").get() };

  const report = await runMaintenance(createSqliteStorageStore(db), { retentionDays: 90, now: NOW });
  const cutoff = new Date(NOW.getTime() - 90 * 86_400_000).toISOString();
  const old = (db.query("SELECT count(*) AS n FROM prompt_results WHERE created_at < ?").get(cutoff) as { n: number }).n;
  expect(old).toBe(309);
  expect(report.answersDropped).toBe(old);
  expect(db.query("SELECT count(*) AS n FROM prompt_results WHERE created_at < ? AND response != ''").get(cutoff)).toEqual({ n: 0 });
  const kept = db.query(`SELECT id, ${unpackedSql("response")} AS text FROM prompt_results WHERE created_at >= ? ORDER BY id`).all(cutoff) as { id: string; text: string }[];
  expect(kept.length).toBe(400 - old);
  for (const row of kept) expect(row.text).toBe(answer(Number(row.id.slice(1))));
  expect({ analysed: analysed(), rollups: rollupCounts(db), sums: db.query("SELECT sum(results), sum(mentioned), sum(visibility_sum) FROM result_rollups_daily").get(), latest: db.query("SELECT * FROM prompt_results_latest").all(), citations: db.query("SELECT count(*) AS n FROM citations").get() }).toEqual(before);
  // With the server's cursor, the retention pass (a walk of every answer) runs once a day, not hourly.
  const cursor = { compressedThrough: 0 };
  let walks = 0;
  const counting = { ...createSqliteStorageStore(db), dropAnswerText: async (...a: Parameters<ReturnType<typeof createSqliteStorageStore>["dropAnswerText"]>) => (walks++, createSqliteStorageStore(db).dropAnswerText(...a)) };
  for (const hours of [0, 1, 23, 24, 25]) await runMaintenance(counting, { retentionDays: 90, now: new Date(NOW.getTime() + hours * 3_600_000), cursor });
  expect(walks).toBe(2);
  // A second pass has nothing left to do; 0 days keeps everything.
  expect(await runMaintenance(createSqliteStorageStore(db), { retentionDays: 90, now: NOW })).toEqual({ answersDropped: 0, rowsCompressed: 0, rowsPacked: 0, pagesFreed: 0, partitionsMade: 0, partitionsDropped: 0, defaultRowsDeleted: 0, tablesRetired: 0 });
  expect((await runMaintenance(createSqliteStorageStore(db), { retentionDays: 0, now: new Date("2030-01-01") })).answersDropped).toBe(0);

  // Whole pages freed (here by deleting a brand) go back to the file system at the next upkeep.
  db.run("INSERT INTO brands (id, organization_id, name, slug) VALUES ('b2', 'o', 'B2', 'b2')");
  db.run("INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s2', 'b2', 'S')");
  db.run("INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES ('p2', 's2', 'b2', 'q')");
  db.transaction(() => {
    for (let i = 0; i < 400; i++) store.insert({ id: `x${i}`, jobId: `k${i}`, brandId: "b2", promptId: "p2", platform: "chatgpt", model: "m", region: "", createdAt: NOW.toISOString() }, values(i));
  })();
  const pagesWithB2 = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  db.run("DELETE FROM brands WHERE id = 'b2'");
  const freed = (await runMaintenance(createSqliteStorageStore(db), { retentionDays: 90, now: NOW })).pagesFreed;
  expect(freed).toBeGreaterThan(20);
  expect((db.query("PRAGMA page_count").get() as { page_count: number }).page_count).toBe(pagesWithB2 - freed);
  dbh.close();
});

test("the compression walk sets only the columns it compresses: a damaged citations frame beside plain text is left as it is and stops nothing", async () => {
  const dbh = openDatabase(join(tempDir(), DB_FILE));
  const db = dbh.sqlite;
  db.run("INSERT INTO organizations (id, name, slug) VALUES ('o', 'O', 'o')");
  db.run("INSERT INTO brands (id, organization_id, name, slug) VALUES ('b', 'o', 'B', 'b')");
  db.run("INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s', 'b', 'S')");
  db.run("INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES ('p', 's', 'b', 'q')");
  const store = createResultStore(db);
  for (const i of [0, 1]) store.insert({ id: `r${i}`, jobId: `j${i}`, brandId: "b", promptId: "p", platform: "chatgpt", model: "m", region: "", createdAt: NOW.toISOString() }, values(i));
  // Answers written plain (as through /rest/v1); one with a citations frame a disk damaged, written on a
  // connection whose aw_text reads anything as no citations (the rollup triggers refuse to write one).
  const disk = new Database(db.filename);
  disk.function("aw_text", (_value: unknown) => "[]");
  disk.run("UPDATE prompt_results SET response = ?, citations = x'28b52ffd0000deadbeef' WHERE id = 'r0'", [answer(0)]);
  disk.close();
  db.run("UPDATE prompt_results SET response = ? WHERE id = 'r1'", [answer(1)]);
  const report = await runMaintenance(createSqliteStorageStore(db), { retentionDays: 0, now: NOW });
  expect(report.rowsCompressed).toBe(2);
  expect(db.query("SELECT typeof(response) AS kind, aw_text(response) AS text FROM prompt_results WHERE id = 'r0'").get()).toEqual({ kind: "blob", text: answer(0) });
  expect(db.query("SELECT typeof(response) AS kind FROM prompt_results WHERE id = 'r1'").get()).toEqual({ kind: "blob" });
  expect(db.query("SELECT hex(citations) AS h FROM prompt_results WHERE id = 'r0'").get()).toEqual({ h: "28B52FFD0000DEADBEEF" });
  dbh.close();
});
