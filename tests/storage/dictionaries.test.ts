// Issue #32: storage upkeep repacks a brand's answers with zstd dictionaries made from its newest
// answers (src/storage/dictionaries.sqlite.ts, src/db/text-codec.ts). What a reader gets is the
// text written, through SQL on any connection (one that never loaded the dictionary included) and
// through /rest/v1; the rollups and citations are untouched; a brand below the threshold keeps its
// frames; a brand grown past `growth`× gets new dictionaries while older answers keep theirs; an
// answer moved to another brand is unpacked, so deleting its old brand (and its dictionaries) loses
// nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDatabase } from "../../src/database";
import { registerSqlFunctions } from "../../src/db/functions";
import { DB_FILE } from "../../src/db/open";
import { dictionaryOf, packText, createTextUnpacker, LoadedDictionaries, unpackedSql, registerTextFunctions, PACKED_COLUMNS } from "../../src/db/text-codec";
import { createResultStore } from "../../src/results/store.sqlite";
import { runMaintenance } from "../../src/storage/maintenance";
import { createSqliteStorageStore } from "../../src/storage/store.sqlite";
import type { DictionaryOptions } from "../../src/storage/dictionaries.sqlite";
import type { ResultValues } from "../../src/tracking/unit-runner";
import { tempDir, testServer } from "../helpers/app";
import { writeResults } from "../helpers/server-db";
import { rollupCounts, rollupDifferences } from "../rollups/recompute";
import { createBrand, signedUpOrg } from "../rest/helpers";

const NOW = new Date("2026-06-30T12:00:00.000Z");
const SENTENCES = [
  "Acme Analytics is a strong choice for product teams that want funnels and retention in one place.",
  "Pricing starts with a free tier and grows with tracked events, which suits early-stage startups.",
  "Compared with its rivals it offers warehouse-native modelling and a generous data retention window.",
  "Reviewers praise the onboarding, but some mention that advanced segmentation takes time to learn.",
  "For enterprise buyers, single sign-on, audit logs and regional hosting are available on request.",
  "If you need session replay as well, consider pairing it with a dedicated replay tool.",
  "The best option depends on your stack, your budget and how much self-serve analysis you expect.",
  "Teams migrating from spreadsheets usually see value within the first two weeks of use.",
];
const DOMAINS = ["acme.example", "rival.example", "reviews.example", "news.example", "docs.example"];

/** A deterministic answer: sentences and sources drawn from the brand's shared vocabulary, so answers resemble each other as real ones do. */
function values(brand: string, i: number): ResultValues {
  const pick = (n: number, k: number) => Array.from({ length: n }, (_, j) => SENTENCES[(i * 7 + j * k) % SENTENCES.length]!);
  const sources = Array.from({ length: 6 }, (_, j) => {
    const domain = DOMAINS[(i + j) % DOMAINS.length]!;
    return { position: j + 1, url: `https://www.${domain}/${brand}/guide-${(i * 3 + j) % 40}`, normalized_url: `https://${domain}/${brand}/guide-${(i * 3 + j) % 40}`, domain, host: domain, title: `Guide ${(i * 3 + j) % 40} | ${domain}`, is_brand: j === 0, competitor_id: null, cited: j < 3 };
  });
  const citations = sources.filter((s) => s.cited).map(({ cited: _, ...s }) => s);
  return {
    surface: "api", response: `${brand} answer ${i}. ${pick(6, 3).join(" ")} ${pick(4, 5).join(" ")}`, mentioned: 1, mention_count: 2, mention_position: 1, competitor_mentions: "[]",
    citations: JSON.stringify(citations), citation_count: citations.length, brand_citation_count: 1, sources: JSON.stringify(sources), source_count: sources.length,
    sentiment: "positive", sentiment_score: 0.5, visibility_score: 80, search_queries: "[]",
    details: JSON.stringify({ reported_model: "gpt-4o", first_mention_offset: i % 50, list_rank: null, position_adjusted_word_count: 40 + (i % 9), word_count_share: 0.2, sentiment_passages: [], sentiment_source: "lexicon" }),
  };
}

const SMALL: DictionaryOptions = { minAnswers: 40, growth: 3, sampleAnswers: 30, bytes: { response: 4096, citations: 4096, sources: 4096, details: 2048 }, recountMs: 0 };

describe("answers repacked with their brand's dictionaries", () => {
  const dir = tempDir();
  const dbh = openDatabase(join(dir, DB_FILE));
  const db = dbh.sqlite;
  const store = createResultStore(db);
  const written = new Map<string, ResultValues>();
  const write = (brand: string, from: number, to: number) =>
    db.transaction(() => {
      for (let i = from; i < to; i++) {
        const id = `${brand}-${String(i).padStart(4, "0")}`;
        const v = values(brand, i);
        store.insert({ id, jobId: `j-${brand}-${i}`, brandId: brand, promptId: `p-${brand}`, platform: "chatgpt", model: "m", region: "", createdAt: new Date(NOW.getTime() - (to - i) * 60_000).toISOString() }, v);
        written.set(id, v);
      }
    })();
  const read = (conn: Database = db) =>
    conn.query(`SELECT id, ${PACKED_COLUMNS.map((c) => `${unpackedSql(c)} AS ${c}`).join(", ")} FROM prompt_results ORDER BY id`).all() as Record<string, string>[];
  const expected = () => [...written].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, v]) => ({ id, response: v.response, citations: v.citations, sources: v.sources, details: v.details }));
  const framesOf = (brand: string) =>
    db.query(`SELECT ${PACKED_COLUMNS.map((c) => `${c}`).join(", ")} FROM prompt_results WHERE brand_id = ? ORDER BY id`).all(brand) as Record<string, unknown>[];
  const bytesOf = (brand: string) => (db.query(`SELECT sum(length(response) + length(citations) + length(sources) + length(details)) AS n FROM prompt_results WHERE brand_id = ?`).get(brand) as { n: number }).n;
  const dictionaries = () => db.query("SELECT id, brand_id, column_name, answers, length(dictionary) AS bytes FROM text_dictionaries ORDER BY id").all() as { id: number; brand_id: string; column_name: string; answers: number; bytes: number }[];

  beforeAll(() => {
    db.run("INSERT INTO organizations (id, name, slug) VALUES ('o', 'O', 'o')");
    for (const b of ["big", "small", "other"]) {
      db.run(`INSERT INTO brands (id, organization_id, name, slug) VALUES ('${b}', 'o', '${b}', '${b}')`);
      db.run(`INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s-${b}', '${b}', 'S')`);
      db.run(`INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES ('p-${b}', 's-${b}', '${b}', 'q')`);
    }
    write("big", 0, 60);
    write("small", 0, 20);
  });
  afterAll(() => dbh.close());

  test("a brand past the threshold gets one dictionary per column and its answers shrink; below it nothing changes; every text reads back", async () => {
    const beforeBig = bytesOf("big");
    const smallFrames = framesOf("small");
    const rollups = rollupCounts(db);
    const changes = () => (db.query("SELECT total_changes() AS n").get() as { n: number }).n;
    const changesBefore = changes();
    const report = await runMaintenance(createSqliteStorageStore(db, SMALL), { retentionDays: 0, now: NOW });
    expect(report.rowsPacked).toBe(60);
    expect(dictionaries().map((d) => [d.brand_id, d.column_name, d.answers])).toEqual([["big", "response", 60], ["big", "citations", 60], ["big", "sources", 60], ["big", "details", 60]]);
    for (const d of dictionaries()) expect(d.bytes).toBeLessThanOrEqual(SMALL.bytes[d.column_name as "response"]);
    const ids = new Set(dictionaries().map((d) => d.id));
    for (const row of framesOf("big")) for (const c of PACKED_COLUMNS) expect(ids.has(dictionaryOf(row[c])!)).toBe(true);
    expect(bytesOf("big")).toBeLessThan(beforeBig * 0.6);
    expect(framesOf("small")).toEqual(smallFrames);
    expect(read()).toEqual(expected());
    // The citations (read by the rollup triggers) are repacked too, and no rollup trigger ran: the
    // rows changed are the 60 answers and the 4 dictionaries (a repack firing the citation rollups'
    // update triggers would change hundreds of rollup rows, to the same sums).
    expect(changes() - changesBefore).toBe(60 + 4);
    expect(rollupCounts(db)).toEqual(rollups);
    expect(rollupDifferences(db)).toEqual([]);
    // A second round has nothing left to pack.
    expect((await runMaintenance(createSqliteStorageStore(db, SMALL), { retentionDays: 0, now: NOW })).rowsPacked).toBe(0);
  });

  test("a connection that never loaded a dictionary reads it from the table; without it a frame is an error, not wrong text", () => {
    const fresh = new Database(join(dir, DB_FILE), { readonly: true });
    registerTextFunctions(fresh);
    expect(read(fresh)).toEqual(expected());
    // aw_text alone (what the rollup triggers call) loads the dictionary itself, through a connection of its own.
    const alone = new Database(join(dir, DB_FILE), { readonly: true });
    registerTextFunctions(alone);
    expect(alone.query(`SELECT id, ${PACKED_COLUMNS.map((c) => `aw_text(${c}) AS ${c}`).join(", ")} FROM prompt_results ORDER BY id`).all()).toEqual(expected());
    alone.close();
    const frame = framesOf("big")[0]!.response;
    expect(() => createTextUnpacker(2, new LoadedDictionaries())(frame as Uint8Array)).toThrow(/dictionary \d+/);
    fresh.close();
  });

  test("a brand grown past growth× gets new dictionaries; its older answers keep theirs and read the same", async () => {
    const first = new Set(dictionaries().map((d) => d.id));
    write("big", 60, 180);
    await runMaintenance(createSqliteStorageStore(db, SMALL), { retentionDays: 0, now: NOW });
    const all = dictionaries();
    expect(all.length).toBe(8);
    const second = new Set(all.filter((d) => !first.has(d.id)).map((d) => d.id));
    expect(all.filter((d) => second.has(d.id)).map((d) => d.answers)).toEqual([180, 180, 180, 180]);
    const used = (from: number, to: number) =>
      new Set(framesOf("big").slice(from, to).flatMap((row) => PACKED_COLUMNS.map((c) => dictionaryOf(row[c]))));
    expect([...used(0, 60)].every((id) => first.has(id!))).toBe(true);
    expect([...used(60, 180)].every((id) => second.has(id!))).toBe(true);
    expect(read()).toEqual(expected());
  });

  test("a delete on a connection that never loaded a dictionary takes a repacked answer's citations out of the rollups (aw_text loads it for the triggers)", () => {
    const writer = new Database(join(dir, DB_FILE));
    registerSqlFunctions(writer, []);
    const gone = ["big-0003", "big-0100"];
    writer.run(`DELETE FROM prompt_results WHERE id IN ('${gone.join("', '")}')`);
    writer.close();
    for (const id of gone) written.delete(id);
    expect(rollupDifferences(db)).toEqual([]);
    expect(read()).toEqual(expected());
  });

  test("an answer moved to another brand is unpacked as it moves; deleting its old brand then loses nothing", () => {
    db.run("UPDATE prompt_results SET brand_id = 'other', prompt_id = 'p-other' WHERE id = 'big-0007'");
    const moved = db.query(`SELECT ${PACKED_COLUMNS.join(", ")} FROM prompt_results WHERE id = 'big-0007'`).get() as Record<string, unknown>;
    for (const c of PACKED_COLUMNS) expect(dictionaryOf(moved[c])).toBeNull();
    db.run("DELETE FROM brands WHERE id = 'big'");
    expect(dictionaries()).toEqual([]);
    for (const id of [...written.keys()]) if (id.startsWith("big-") && id !== "big-0007") written.delete(id);
    expect(read()).toEqual(expected());
  });
});

describe("the repack in a server's rounds", () => {
  /** A database, with `first` brand and its `answers` when given; answers written as the result writer writes them. */
  function world(first?: string, answers = 0) {
    const dir = tempDir();
    const dbh = openDatabase(join(dir, DB_FILE));
    const db = dbh.sqlite;
    db.run("INSERT INTO organizations (id, name, slug) VALUES ('o', 'O', 'o')");
    const brand = (b: string) => {
      db.run(`INSERT INTO brands (id, organization_id, name, slug) VALUES ('${b}', 'o', '${b}', '${b}')`);
      db.run(`INSERT INTO prompt_sets (id, brand_id, name) VALUES ('s-${b}', '${b}', 'S')`);
      db.run(`INSERT INTO prompts (id, prompt_set_id, brand_id, text) VALUES ('p-${b}', 's-${b}', '${b}', 'q')`);
    };
    const store = createResultStore(db);
    const write = (b: string, from: number, to: number) =>
      db.transaction(() => {
        for (let i = from; i < to; i++) store.insert({ id: `${b}-${String(i).padStart(4, "0")}`, jobId: `j-${b}-${i}`, brandId: b, promptId: `p-${b}`, platform: "chatgpt", model: "m", region: "", createdAt: new Date(NOW.getTime() - (to - i) * 60_000).toISOString() }, values(b, i));
      })();
    const packedWith = (b: string) =>
      (db.query(`SELECT ${PACKED_COLUMNS.join(", ")} FROM prompt_results WHERE brand_id = ? ORDER BY id`).all(b) as Record<string, unknown>[]).map((row) => PACKED_COLUMNS.map((c) => dictionaryOf(row[c]) !== null));
    const texts = (b: string) => db.query(`SELECT ${PACKED_COLUMNS.map((c) => `${unpackedSql(c)} AS ${c}`).join(", ")} FROM prompt_results WHERE brand_id = ? ORDER BY id`).all(b);
    const expectedTexts = (b: string, n: number) => Array.from({ length: n }, (_, i) => { const v = values(b, i); return { response: v.response, citations: v.citations, sources: v.sources, details: v.details }; });
    if (first) {
      brand(first);
      write(first, 0, answers);
    }
    return { dbh, db, brand, write, packedWith, texts, expectedTexts };
  }

  test("a brand given dictionaries mid-walk has its earlier answers repacked in the next round (the server's cursor starts over)", async () => {
    const w = world("late");
    const storage = createSqliteStorageStore(w.db, SMALL);
    const cursor = { compressedThrough: 0, packedThrough: 0 };
    w.write("late", 0, 30); // under the threshold of 40: nothing to do
    expect((await runMaintenance(storage, { retentionDays: 0, now: NOW, cursor })).rowsPacked).toBe(0);
    expect(cursor.packedThrough).toBe(30);
    w.write("late", 30, 50);
    // The round walks from its cursor: the 20 new answers, and the brand gets its dictionaries.
    expect((await runMaintenance(storage, { retentionDays: 0, now: NOW, cursor })).rowsPacked).toBe(20);
    expect(cursor.packedThrough).toBe(0);
    expect(w.packedWith("late").slice(0, 30).flat().some(Boolean)).toBe(false);
    // The next round walks from the start and repacks the 30 it passed.
    expect((await runMaintenance(storage, { retentionDays: 0, now: NOW, cursor })).rowsPacked).toBe(30);
    expect(w.packedWith("late").every((row) => row.every(Boolean))).toBe(true);
    expect(cursor.packedThrough).toBe(50);
    expect(w.texts("late")).toEqual(w.expectedTexts("late", 50));
    w.dbh.close();
  });

  test("a pause that says stop (a server stopping) ends the walk after its step and the round with it; the cursor stays where the walk got to", async () => {
    const w = world("stop", 60);
    const storage = createSqliteStorageStore(w.db, SMALL);
    const cursor = { compressedThrough: 0, packedThrough: 0 };
    // A first round gives the brand its dictionaries and packs all 60.
    await runMaintenance(storage, { retentionDays: 0, now: NOW, cursor });
    await runMaintenance(storage, { retentionDays: 0, now: NOW, cursor });
    expect(cursor.packedThrough).toBe(60);
    w.write("stop", 60, 160);
    let freed = 0;
    const counting = { ...storage, releaseFreePages: async () => (freed++, storage.releaseFreePages()) };
    // The compress walk's one step pauses first; the pause after the first repack step says stop.
    let pauses = 0;
    const report = await runMaintenance(counting, { retentionDays: 0, now: NOW, cursor, pause: async () => ++pauses < 2 });
    expect({ packed: report.rowsPacked, stopped: report.stopped }).toEqual({ packed: 25, stopped: true });
    expect(cursor.packedThrough).toBe(85);
    expect(freed).toBe(0);
    expect(w.packedWith("stop").filter((row) => row.every(Boolean)).length).toBe(85);
    // The compress walk stops too, at the end of its step.
    const compressStop = await runMaintenance(counting, { retentionDays: 0, now: NOW, cursor: { compressedThrough: 0 }, pause: async () => false });
    expect({ packed: compressStop.rowsPacked, stopped: compressStop.stopped, freed }).toEqual({ packed: 0, stopped: true, freed: 0 });
    w.dbh.close();
  });

  test("a repack step that fails ends the walk and is reported; the rest of the round runs", async () => {
    const w = world("full", 60);
    const storage = createSqliteStorageStore(w.db, SMALL);
    let freed = 0;
    let steps = 0;
    const failing = {
      ...storage,
      packWithDictionaries: async (input: Parameters<typeof storage.packWithDictionaries>[0]) => {
        if (++steps === 2) throw new Error("database or disk is full");
        return storage.packWithDictionaries(input);
      },
      releaseFreePages: async () => (freed++, storage.releaseFreePages()),
    };
    const cursor = { compressedThrough: 0, packedThrough: 0 };
    const report = await runMaintenance(failing, { retentionDays: 0, now: NOW, cursor });
    expect({ packed: report.rowsPacked, failure: report.packFailure, freed }).toEqual({ packed: 25, failure: "Error: database or disk is full", freed: 1 });
    // The brand got its first dictionaries in the step that ran: the next round walks from the start.
    expect(cursor.packedThrough).toBe(0);
    expect((await runMaintenance(storage, { retentionDays: 0, now: NOW, cursor })).rowsPacked).toBe(35);
    w.dbh.close();
  });

  test("with retention on, the answers' own text keeps its frames: no dictionary holds answer text that retention would outlive", async () => {
    const w = world("kept", 60);
    await runMaintenance(createSqliteStorageStore(w.db, SMALL), { retentionDays: 3650, now: NOW });
    expect(w.packedWith("kept").every(([response, citations, sources, details]) => !response && citations && sources && details)).toBe(true);
    expect(w.db.query("SELECT DISTINCT column_name FROM text_dictionaries ORDER BY 1").all()).toEqual([{ column_name: "citations" }, { column_name: "details" }, { column_name: "sources" }]);
    expect(w.texts("kept")).toEqual(w.expectedTexts("kept", 60));
    w.dbh.close();
  });

  test("a damaged frame, among the answers a dictionary is made from too, is left as it is and counted; the others are repacked", async () => {
    const w = world("hurt", 60);
    // Looks like a zstd frame (its first byte), is not one; among the newest answers the dictionaries are made from.
    w.db.run("UPDATE prompt_results SET sources = x'28b52ffd0000deadbeef' WHERE id = 'hurt-0055'");
    // A damaged citations frame too, as a disk could leave it: the rollup triggers would refuse to
    // write one, so it is written on a connection whose aw_text reads anything as no citations.
    const disk = new Database(w.db.filename);
    disk.function("aw_text", (_value: unknown) => "[]");
    disk.run("UPDATE prompt_results SET citations = x'28b52ffd0000deadbeef' WHERE id = 'hurt-0056'");
    disk.close();
    const report = await runMaintenance(createSqliteStorageStore(w.db, SMALL), { retentionDays: 0, now: NOW });
    expect({ packed: report.rowsPacked, unreadable: report.rowsUnreadable, failure: report.packFailure }).toEqual({ packed: 60, unreadable: 2, failure: undefined });
    // Their readable columns are repacked (setting only those: citations left as it was runs no rollup trigger); the damaged ones are left byte for byte.
    expect(w.packedWith("hurt")[55]).toEqual([true, true, false, true]);
    expect(w.packedWith("hurt")[56]).toEqual([true, false, true, true]);
    expect(w.db.query("SELECT hex(sources) AS h FROM prompt_results WHERE id = 'hurt-0055'").get()).toEqual({ h: "28B52FFD0000DEADBEEF" });
    expect(w.db.query("SELECT hex(citations) AS h FROM prompt_results WHERE id = 'hurt-0056'").get()).toEqual({ h: "28B52FFD0000DEADBEEF" });
    expect(w.db.query("SELECT count(*) AS n FROM text_dictionaries").get()).toEqual({ n: 4 });
    w.dbh.close();
  });

  test("one packer outliving a brand: deleted and made again under its id, the brand gets new dictionaries and every answer reads back", async () => {
    const w = world("again");
    const storage = createSqliteStorageStore(w.db, { ...SMALL, recountMs: 3_600_000 });
    w.write("again", 0, 60);
    expect((await runMaintenance(storage, { retentionDays: 0, now: NOW })).rowsPacked).toBe(60);
    const first = (w.db.query("SELECT max(id) AS id FROM text_dictionaries").get() as { id: number }).id;
    w.db.run("DELETE FROM brands WHERE id = 'again'");
    expect(w.db.query("SELECT count(*) AS n FROM text_dictionaries").get()).toEqual({ n: 0 });
    w.brand("again");
    w.write("again", 0, 60);
    expect((await runMaintenance(storage, { retentionDays: 0, now: NOW })).rowsPacked).toBe(60);
    const ids = (w.db.query("SELECT id FROM text_dictionaries ORDER BY id").all() as { id: number }[]).map((r) => r.id);
    expect(ids.length).toBe(4);
    expect(ids.every((id) => id > first)).toBe(true);
    expect(w.texts("again")).toEqual(w.expectedTexts("again", 60));
    w.dbh.close();
  });

  test("the trigger that unpacks a moved answer is made again at the next open when a table rebuild dropped it", () => {
    const dir = tempDir();
    let dbh = openDatabase(join(dir, DB_FILE));
    dbh.sqlite.run("DROP TRIGGER prompt_results_unpack_on_brand_move");
    dbh.close();
    dbh = openDatabase(join(dir, DB_FILE));
    expect(dbh.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name = 'prompt_results_unpack_on_brand_move'").all()).toEqual([{ name: "prompt_results_unpack_on_brand_move" }]);
    dbh.close();
  });
});

test("packText with a dictionary frames its id; text too short or not gaining a tenth stays text", () => {
  const dictionary = { id: 70_000, bytes: Buffer.from(SENTENCES.join(" ").repeat(4)) };
  const text = SENTENCES.slice(2, 6).join(" ");
  const frame = packText(text, dictionary) as Uint8Array;
  expect(frame).toBeInstanceOf(Uint8Array);
  expect(dictionaryOf(frame)).toBe(70_000);
  expect(frame.byteLength).toBeLessThan(Buffer.byteLength(text) / 4);
  expect(packText("short", dictionary)).toBe("short");
  // 40 characters of random base64: a frame and its header would not be a tenth smaller.
  const random = Buffer.from(crypto.getRandomValues(new Uint8Array(30))).toString("base64");
  expect(packText(random, dictionary)).toBe(random);
  const loaded = new LoadedDictionaries();
  const unpack = createTextUnpacker(2, loaded);
  expect(unpack(frame, dictionary.bytes)).toBe(text);
  expect(loaded.has(70_000)).toBe(true);
  // Once loaded, the dictionary need not be handed in again.
  expect(unpack(packText(SENTENCES[1]! + SENTENCES[7]!, dictionary) as Uint8Array)).toBe(SENTENCES[1]! + SENTENCES[7]!);
});

test("a connection keeps the 64 dictionaries it used last: one read again stays, the least recently used goes", () => {
  let loads = 0;
  const loaded = new LoadedDictionaries((id) => (loads++, Buffer.from([id])));
  for (let id = 1; id <= 64; id++) loaded.get(id);
  loaded.get(1);
  loaded.get(65);
  expect(loads).toBe(65);
  expect([loaded.has(1), loaded.has(2), loaded.has(65)]).toEqual([true, false, true]);
  expect(loaded.get(1)).toEqual(Buffer.from([1]));
  expect(loads).toBe(65);
});

describe("through /rest/v1 (its reader threads load the dictionaries themselves)", () => {
  let server: Awaited<ReturnType<typeof testServer>>;
  beforeAll(async () => {
    server = await testServer();
  });
  afterAll(() => server.stop());

  test("prompt_results read through the REST API give the text written, before and after the repack", async () => {
    if (server.backend.kind !== "sqlite") return;
    const org = await signedUpOrg(server, "Dictionaries");
    const brand = await createBrand(org.owner, org.id, "dict");
    const set = (await org.owner.from("prompt_sets").insert({ brand_id: brand.id, name: "S" }).select().single()).data!;
    const prompt = (await org.owner.from("prompts").insert({ prompt_set_id: set.id, text: "q" }).select().single()).data!;
    const batch = Array.from({ length: 50 }, (_, i) => ({
      key: { id: crypto.randomUUID(), jobId: null, brandId: brand.id, promptId: prompt.id, platform: "chatgpt", model: "m", region: "", sample: i, createdAt: new Date(NOW.getTime() + i * 1000).toISOString() },
      values: values("dict", i),
    }));
    await writeResults(server, batch);
    const rest = async () => {
      const { data, error } = await org.owner.from("prompt_results").select("id, response, citations, sources, details").order("created_at").limit(100);
      expect(error).toBeNull();
      return data!;
    };
    const want = batch.map((b) => ({ id: b.key.id, response: b.values.response, citations: JSON.parse(b.values.citations), sources: JSON.parse(b.values.sources!), details: JSON.parse(b.values.details) }));
    expect(await rest()).toEqual(want);
    const report = await runMaintenance(createSqliteStorageStore(server.backend.dbh.sqlite, SMALL), { retentionDays: 0, now: NOW });
    expect(report.rowsPacked).toBe(50);
    expect(await rest()).toEqual(want);
    // The latest-results RPC (one group: its newest answer, the last written) reads them the same way.
    const { data: latest, error } = await org.owner.rpc("get_latest_prompt_results", { p_brand_id: brand.id }).select("id, response, citations, sources, details");
    expect(error).toBeNull();
    expect(latest).toEqual([want[want.length - 1]]);
  });
});
