// backends: sqlite, postgres
import { shownColumns } from "../helpers/stored";
import { Database } from "bun:sqlite";
import { registerSqlFunctions } from "../../src/database";
import { afterAll, describe, expect, test } from "bun:test";
import { createResultWriter } from "../../src/tracking/result-writer";
import type { ResultValues, UnitTask } from "../../src/tracking/unit-runner";
import type { SqliteHarness } from "../contracts/harness";
import { TEST_BACKEND } from "../helpers/app";
import { countOf, seedBrandIn, textOf, unitDb, type ServerDb } from "../helpers/tracking-db";

const opened: ServerDb[] = [];
afterAll(() => Promise.all(opened.map((db) => db.close())));

async function setUp(prompts = 3) {
  const { db, stores } = await unitDb();
  opened.push(db);
  const org = await db.fixtures.organization("Org");
  const { brandId, promptIds, competitorIds } = await seedBrandIn(db, org, { prompts });
  const store = stores.queue();
  const jobId = await store.enqueue({ type: "tracking", brandId, organizationId: org, data: {}, units: promptIds.map((promptId) => ({ promptId, platform: "perplexity", model: "sonar", region: "US" })) });
  await store.claim({ owner: "test-owner", leaseMs: 30_000 });
  const task = (seq: number): UnitTask => ({ jobId, seq, brandId, promptId: promptIds[seq]!, platform: "perplexity", model: "sonar", region: "US", sample: 0 });
  const count = (sql: string, ...params: unknown[]) => countOf(db, sql, ...params);
  return { db, count, store, tracking: stores.tracking, jobId, competitorIds, task };
}

/** An answered outcome the way a worker sends it: the row as one JSON string. */
function answered(citations: unknown[]): { kind: "answered"; result: string } {
  const row: ResultValues = {
    surface: "api", response: "Acme and Globex.", mentioned: 1, mention_count: 1, mention_position: 1, competitor_mentions: "[]",
    citations: JSON.stringify(citations), citation_count: citations.length, brand_citation_count: 1, sources: "[]", source_count: 0, sentiment: "neutral", sentiment_score: 0,
    visibility_score: 80, search_queries: "[]", details: "{}",
  };
  return { kind: "answered", result: JSON.stringify(row) };
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("result writer", () => {
  test("a unit's row, one citation row per entry of its citations column, and its status commit together; a repeated unit adds nothing", async () => {
    const { db, count, store, jobId, competitorIds, task, tracking } = await setUp();
    const writer = createResultWriter(tracking);
    const citations = [
      { position: 1, url: "https://acme.com/a", normalized_url: "https://acme.com/a", domain: "acme.com", host: "acme.com", title: "Acme", is_brand: true, competitor_id: null },
      { position: 2, url: "https://globex.com/", normalized_url: "https://globex.com/", domain: null, host: "globex.com", title: null, is_brand: false, competitor_id: competitorIds[0] },
    ];
    expect(await writer.write(task(0), answered(citations))).toBe("written");

    const [row] = await db.inspect<{ id: string; citation_count: number }>("SELECT id, citation_count FROM prompt_results WHERE job_id = ?", jobId);
    expect(row!.id).toMatch(UUID_V7);
    const stored = await db.inspect<{ id: string }>(`SELECT ${shownColumns("citations", ["id", "position", "url", "normalized_url", "domain", "title", "is_brand", "competitor_id"])} FROM citations WHERE result_id = ? ORDER BY position`, row!.id);
    expect(stored.map(({ id, ...rest }) => rest)).toEqual([
      { position: 1, url: "https://acme.com/a", normalized_url: "https://acme.com/a", domain: "acme.com", title: "Acme", is_brand: 1, competitor_id: null },
      // A citation without a registrable domain is stored under its host.
      { position: 2, url: "https://globex.com/", normalized_url: "https://globex.com/", domain: "globex.com", title: null, is_brand: 0, competitor_id: competitorIds[0] },
    ]);
    for (const c of stored) expect(c.id).toMatch(UUID_V7);
    expect(await store.counts(jobId)).toMatchObject({ done: 1, pending: 2 });

    expect(await writer.write(task(0), answered(citations))).toBe("duplicate");
    expect(await count("SELECT count(*) AS n FROM citations")).toBe(2);
  });

  test("an answer holding NUL characters is written and does not fail its neighbours (Postgres stores U+FFFD in their place)", async () => {
    const { db, jobId, task, tracking } = await setUp();
    const writer = createResultWriter(tracking, { idleMs: 60_000, maxWaitMs: 60_000, maxBatch: 2 });
    const nul = answered([{ position: 1, url: "https://acme.com/a", normalized_url: "https://acme.com/a", domain: "acme.com", host: "acme.com", title: "Ac\u0000me", is_brand: true, competitor_id: null }]);
    const withNul = { kind: "answered" as const, result: nul.result.replace("Acme and Globex.", "Acme\\u0000 and Globex.") };
    expect(await Promise.all([writer.write(task(0), withNul), writer.write(task(1), answered([]))])).toEqual(["written", "written"]);
    const kept = db.backend === "postgres" ? "\uFFFD" : "\u0000";
    const rows = await db.inspect<{ response: string }>(`SELECT ${textOf(db, "response")} AS response FROM prompt_results WHERE job_id = ? ORDER BY response`, jobId);
    expect(rows.map((r) => r.response).sort()).toEqual([`Acme${kept} and Globex.`, "Acme and Globex."].sort());
    const [citation] = await db.inspect<{ title: string }>(`SELECT ${shownColumns("citations", ["title"])} FROM citations`);
    expect(citation!.title).toBe(`Ac${kept}me`);
  });

  test("the samples of one prompt × platform × model × region are rows of their own; a repeated sample adds nothing", async () => {
    const { db, jobId, task, tracking } = await setUp();
    const writer = createResultWriter(tracking);
    const sample = (n: number): UnitTask => ({ ...task(0), sample: n });
    expect(await writer.write(sample(0), answered([]))).toBe("written");
    expect(await writer.write(sample(1), answered([]))).toBe("written");
    expect(await writer.write(sample(2), answered([]))).toBe("written");
    // A unit run again after a crash finds its row by the unit key, sample included.
    expect(await writer.write(sample(1), answered([]))).toBe("duplicate");
    expect(await db.inspect("SELECT sample FROM prompt_results WHERE job_id = ? ORDER BY sample", jobId)).toEqual([{ sample: 0 }, { sample: 1 }, { sample: 2 }]);
  });

  test("an answer that arrives after its job was cancelled is not kept", async () => {
    const { count, store, jobId, task, tracking } = await setUp();
    const writer = createResultWriter(tracking);
    expect(await writer.write(task(0), answered([]))).toBe("written");
    await store.cancel(jobId);
    expect(await writer.write(task(1), answered([]))).toBe("job_inactive");
    expect(await writer.write(task(2), { kind: "no_surface", reason: "no AI overview" })).toBe("job_inactive");
    expect(await count("SELECT count(*) AS n FROM prompt_results")).toBe(1);
    expect(await store.counts(jobId)).toMatchObject({ done: 1, pending: 2 });
  });

  test("a unit that cannot be written fails alone; the others of its batch are written", async () => {
    const { db, count, store, jobId, task, tracking } = await setUp();
    const writer = createResultWriter(tracking, { idleMs: 60_000, maxWaitMs: 60_000, maxBatch: 3 });
    // The prompt of unit 1 is deleted while its answer is on its way: its row breaks a foreign key.
    await db.inspect("DELETE FROM prompts WHERE id = ?", task(1).promptId);
    const outcomes = await Promise.allSettled([0, 1, 2].map((seq) => writer.write(task(seq), answered([]))));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(await count("SELECT count(*) AS n FROM prompt_results WHERE job_id = ?", jobId)).toBe(2);
    expect(await store.counts(jobId)).toMatchObject({ done: 2 });
  });

  test("flush() commits what is waiting at once (a clean stop keeps answers already received)", async () => {
    const { count, jobId, task, tracking } = await setUp();
    const writer = createResultWriter(tracking, { idleMs: 60_000, maxWaitMs: 60_000, maxBatch: 64 });
    const pending = writer.write(task(0), answered([]));
    expect(await count("SELECT count(*) AS n FROM prompt_results WHERE job_id = ?", jobId)).toBe(0);
    await writer.flush();
    expect(await count("SELECT count(*) AS n FROM prompt_results WHERE job_id = ?", jobId)).toBe(1);
    expect(await pending).toBe("written");
  });

  // SQLite only: a database-wide write lock and busy_timeout; Postgres has neither (row locks, no lock on the whole database).
  test.skipIf(TEST_BACKEND === "postgres")("a locked database fails the batch once, without retrying unit by unit on the serving thread", async () => {
    const { db, count, jobId, task, tracking } = await setUp(20);
    const { sqlite } = (db as SqliteHarness).dbh;
    sqlite.run("PRAGMA busy_timeout = 100");
    const other = new Database(sqlite.filename);
    registerSqlFunctions(other);
    other.run("BEGIN IMMEDIATE");
    try {
      const writer = createResultWriter(tracking, { idleMs: 60_000, maxWaitMs: 60_000, maxBatch: 20 });
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, seq) => writer.write(task(seq), answered([]))));
      const blockedMs = performance.now() - started;
      expect(outcomes.every((o) => o.status === "rejected")).toBe(true);
      // One busy_timeout (100 ms), not one per unit (~2 s).
      expect(blockedMs).toBeLessThan(1000);
    } finally {
      other.run("ROLLBACK");
      other.close();
    }
    expect(await count("SELECT count(*) AS n FROM prompt_results WHERE job_id = ?", jobId)).toBe(0);
  });

  test("results are committed together: a full batch at once, the rest once results stop arriving", async () => {
    const { task, tracking } = await setUp();
    const settledWithin = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => true), Bun.sleep(ms).then(() => false)]);

    // Nothing but a full batch can end the wait here.
    const full = createResultWriter(tracking, { idleMs: 60_000, maxWaitMs: 60_000, maxBatch: 2 });
    const first = full.write(task(0), answered([]));
    expect(await settledWithin(first, 50)).toBe(false);
    const second = full.write(task(1), answered([]));
    expect(await settledWithin(Promise.all([first, second]), 1000)).toBe(true);

    // A lone result waits for company only as long as nothing else arrives (idleMs)…
    const idle = createResultWriter(tracking, { idleMs: 20, maxWaitMs: 60_000, maxBatch: 64 });
    expect(await settledWithin(idle.write(task(2), { kind: "no_surface", reason: "none" }), 1000)).toBe(true);

    // …and a steady stream is committed every maxWaitMs, not only when it ends.
    const streaming = createResultWriter(tracking, { idleMs: 200, maxWaitMs: 30, maxBatch: 64 });
    const earliest = streaming.write(task(0), answered([]));
    let streamEnded = false;
    const stream = (async () => {
      for (let i = 0; i < 40; i++, await Bun.sleep(10)) void streaming.write(task(0), answered([]));
      streamEnded = true;
    })();
    await earliest;
    expect(streamEnded).toBe(false);
    await stream;
    // Nothing left waiting on a timer when the suite closes its databases.
    await streaming.flush();
  });

  test("a writer batches as its store asks: on Postgres a commit gathers results for longer (its triggers cost per commit), on SQLite it commits within milliseconds", async () => {
    const { task, tracking } = await setUp(4);
    const batchSizes: number[] = [];
    const counted: typeof tracking = { ...tracking, recordResults: (batch) => (batchSizes.push(batch.length), tracking.recordResults(batch)) };
    const writer = createResultWriter(counted);
    const first = writer.write(task(0), answered([]));
    await Bun.sleep(10);
    const second = writer.write(task(1), answered([]));
    expect(await Promise.all([first, second])).toEqual(["written", "written"]);
    if (TEST_BACKEND === "postgres") expect(batchSizes).toEqual([2]);
    else expect(batchSizes).toEqual([1, 1]);
  });

  test("one commit in flight at a time: results arriving meanwhile wait and go in the next one, together", async () => {
    const { task, tracking } = await setUp(6);
    let inFlight = 0;
    let mostInFlight = 0;
    const batchSizes: number[] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    // The real store, its first commit held open until the test lets it go.
    const held: typeof tracking = {
      ...tracking,
      async recordResults(batch) {
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        batchSizes.push(batch.length);
        try {
          if (batchSizes.length === 1) await firstHeld;
          return await tracking.recordResults(batch);
        } finally {
          inFlight--;
        }
      },
    };
    const writer = createResultWriter(held, { idleMs: 1, maxWaitMs: 5, maxBatch: 2 });
    const first = [writer.write(task(0), answered([])), writer.write(task(1), answered([]))];
    await Bun.sleep(20);
    // Four more arrive while the first commit is open: full batches and timers come due, none starts a second commit.
    const rest = [2, 3, 4, 5].map((seq) => writer.write(task(seq), answered([])));
    await Bun.sleep(50);
    expect(batchSizes).toEqual([2]);
    release();
    expect(await Promise.all([...first, ...rest])).toEqual(Array(6).fill("written"));
    expect(mostInFlight).toBe(1);
    expect(batchSizes).toEqual([2, 4]);
  });
});
