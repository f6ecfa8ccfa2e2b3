// `answerwatch logs import` writes one batch while it reads the next (src/crawlers/cli.ts): never more
// writes at once than the backend's writers (one on SQLite, two on Postgres), every batch started in
// order, and a failed write stops the import once the writes under way have ended.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { IMPORT_BATCH, runLogsCommand } from "../../src/crawlers/cli";
import type { CrawlerIngest } from "../../src/crawlers/ingest";
import type { CrawlerStore } from "../../src/crawlers/store";
import { tempDir } from "../helpers/app";

const LINES = 25_000;
const line = (i: number) => `203.0.113.${i % 250} - - [10/Oct/2026:13:55:36 +0000] "GET /p${i} HTTP/1.1" 200 123 "-" "Mozilla/5.0 (compatible; GPTBot/1.2)"`;

function logFile(): string {
  const file = join(tempDir("aw-logs-pipeline-"), "access.log");
  writeFileSync(file, Array.from({ length: LINES }, (_, i) => line(i)).join("\n") + "\n");
  return file;
}

function deps(ingest: CrawlerIngest["ingest"], writers?: number) {
  const store = { brandsBySlug: async () => [{ id: "b1", org: "Org" }] } as unknown as CrawlerStore;
  return { store, writers, ingest: { ingest } as CrawlerIngest };
}

const sink = () => {
  let text = "";
  return { write: (t: string) => void (text += t), text: () => text };
};

/** Imports the log with `writers`, each write taking 30 ms: the most writes at once, and each batch's first path in the order they started. */
async function importWith(writers?: number) {
  let inFlight = 0;
  let most = 0;
  const firstPaths: string[] = [];
  const out = sink();
  const code = await runLogsCommand(
    ["import", "--brand", "acme", logFile()],
    deps(async (_brand, records) => {
      inFlight++;
      most = Math.max(most, inFlight);
      firstPaths.push(String((records[0] as { path?: string }).path));
      await Bun.sleep(30);
      inFlight--;
      return { accepted: records.length, duplicates: 0, errors: [] };
    }, writers),
    out,
  );
  expect(code).toBe(0);
  expect(out.text()).toContain(`${LINES} line(s): ${LINES} new, 0 already imported, 0 malformed`);
  // Batches of IMPORT_BATCH lines (the last one shorter), in the file's order.
  expect(firstPaths).toEqual(Array.from({ length: Math.ceil(LINES / IMPORT_BATCH) }, (_, i) => `/p${i * IMPORT_BATCH}`));
  expect(firstPaths.length).toBeGreaterThan(2);
  return most;
}

test("one batch is written at a time, in order, while the next is read; every line is counted", async () => {
  expect(await importWith()).toBe(1);
});

test("a failed write stops the import: no batch after it is written, and the error reaches the caller", async () => {
  let calls = 0;
  const out = sink();
  const command = runLogsCommand(
    ["import", "--brand", "acme", logFile()],
    deps(async () => {
      calls++;
      throw new Error("database went away");
    }),
    out,
  );
  await expect(command).rejects.toThrow("database went away");
  expect(calls).toBe(1);
  expect(out.text()).toBe("");
});

test("with two writers, two batches are written at once, never three; each batch once, started in order", async () => {
  expect(await importWith(2)).toBe(2);
});

test("with two writers, a failed write stops the import after the other write under way has ended", async () => {
  let calls = 0;
  let ended = 0;
  const out = sink();
  const command = runLogsCommand(
    ["import", "--brand", "acme", logFile()],
    deps(async (_brand, records) => {
      const call = ++calls;
      await Bun.sleep(call === 1 ? 20 : 100);
      if (call === 1) throw new Error("database went away");
      ended++;
      return { accepted: records.length, duplicates: 0, errors: [] };
    }, 2),
    out,
  );
  await expect(command).rejects.toThrow("database went away");
  // The second batch was already being written when the first failed: it ends before the import does; no third starts.
  expect(calls).toBe(2);
  expect(ended).toBe(1);
  expect(out.text()).toBe("");
});

test("with two writers, each batch waits for the one before to take its turn: first sightings are recorded in file order", async () => {
  const steps: string[] = [];
  let calls = 0;
  const code = await runLogsCommand(
    ["import", "--brand", "acme", logFile()],
    deps(async (_brand, records, turn) => {
      const call = ++calls;
      // The first batch is slow to reach the database (a large INSERT, slow address checks): the second must still wait for it.
      if (call === 1) await Bun.sleep(100);
      await turn!.after;
      steps.push(`turn ${call}`);
      await Bun.sleep(10);
      turn!.taken();
      // A batch that failed before taking its turn would still release the next: the importer takes it once the write ends.
      return { accepted: records.length, duplicates: 0, errors: [] };
    }, 2),
    sink(),
  );
  expect(code).toBe(0);
  expect(steps).toEqual(Array.from({ length: Math.ceil(LINES / IMPORT_BATCH) }, (_, i) => `turn ${i + 1}`));
});

test("a batch that fails before taking its turn still lets the next one through", async () => {
  let calls = 0;
  const command = runLogsCommand(
    ["import", "--brand", "acme", logFile()],
    deps(async (_brand, records, turn) => {
      const call = ++calls;
      if (call === 1) {
        // Failing while the second batch is already under way, before this one took its turn.
        await Bun.sleep(50);
        throw new Error("address checks failed");
      }
      await turn!.after;
      return { accepted: records.length, duplicates: 0, errors: [] };
    }, 2),
    sink(),
  );
  // Without the importer taking the failed batch's turn, the second would wait forever and the import would hang.
  const outcome = await Promise.race([command.then(() => "done", (error: Error) => error.message), Bun.sleep(3_000).then(() => "hung")]);
  expect(outcome).toBe("address checks failed");
  expect(calls).toBe(2);
});
