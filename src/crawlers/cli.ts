// `answerwatch logs import --brand SLUG [--org ORG] FILE…`: nginx/Apache combined or JSON-lines
// logs, gzip or not, streamed in batches; re-importing a file adds nothing.
import type { CrawlerIngest } from "./ingest";
import type { CrawlerStore, WriteTurn } from "./store";
import { fileLines, MAX_LOG_LINE_CHARS, OVERLONG, parseLogLine } from "./logs";

type Out = { write(text: string): void };

/**
 * Records per transaction (larger ones write each hot rollup page once for more records), or fewer
 * when lines are long; not more: at 10,000 the importer's peak passed 100 MB resident.
 */
export const IMPORT_BATCH = 8_000;
const IMPORT_BATCH_BYTES = 3 << 19;
/**
 * Past this resident size, a full collection after a batch: a multi-gigabyte log is mostly garbage
 * strings. Resident size hardly falls after one, so in practice it runs after every batch: ~35 ms
 * each, a seventh of the import (issue #32), the price of staying under 100 MB resident
 * (tests/crawlers/large-file.test.ts); collecting on heap growth instead let it reach 165 MB.
 */
const RSS_CEILING = 64 << 20;

export interface LogsCommandDeps {
  store: CrawlerStore;
  ingest: CrawlerIngest;
  /**
   * Batches written at once (default 1). SQLite has one writer, so 1. On Postgres 2: one batch's
   * rows go in while the other's rollups are summed (they queue on the brand's lock), which took a
   * 200,000-line import from ~15 s to ~11 s on two cores (bench/postgres.ts part 4); the store must
   * take concurrent calls for the same brand.
   */
  writers?: number;
}

export async function runLogsCommand(args: string[], deps: LogsCommandDeps, out: Out = process.stdout, err: Out = process.stderr): Promise<number> {
  const writers = Math.max(1, Math.floor(deps.writers ?? 1));
  const usage = "usage: answerwatch logs import --brand SLUG [--org ORGANIZATION] FILE…\n";
  if (args[0] !== "import") return err.write(usage), 2;
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const slug = value("--brand");
  const org = value("--org");
  const files = args.slice(1).filter((a, i, rest) => !a.startsWith("--") && rest[i - 1] !== "--brand" && rest[i - 1] !== "--org");
  if (!slug || !files.length) return err.write(usage), 2;
  const brands = await deps.store.brandsBySlug({ slug, organization: org ?? null });
  if (brands.length !== 1) return err.write(brands.length ? `answerwatch: several brands "${slug}": add --org\n` : `answerwatch: no brand "${slug}"\n`), 2;
  let failed = false;
  for (const file of files) {
    if (!(await Bun.file(file).exists())) return err.write(`answerwatch: no file ${file}\n`), 2;
    let lines = 0;
    let malformed = 0;
    let accepted = 0;
    let duplicates = 0;
    let batch: Record<string, unknown>[] = [];
    let batchBytes = 0;
    // Up to `writers` batches written while the next is read and parsed (on Postgres a write waits
    // on the server and its commit; SQLite's runs on this thread, so there it changes nothing). A
    // failed write stops the import at the next batch; the writes under way end first.
    const writing: Promise<void>[] = [];
    let writeError: unknown;
    // Batches record first sightings in file order, even when a later one reaches the database
    // first (store.ts, WriteTurn): each waits for the one before to take its turn.
    let lastTaken: Promise<void> = Promise.resolve();
    const write = async (records: Record<string, unknown>[], turn: WriteTurn) => {
      try {
        const r = await deps.ingest.ingest(brands[0]!, records, turn);
        accepted += r.accepted;
        duplicates += r.duplicates;
        malformed += r.errors.length;
      } finally {
        turn.taken();
      }
      if (process.memoryUsage.rss() > RSS_CEILING) Bun.gc(true);
    };
    const settle = async (room = 0) => {
      while (writing.length > room) await writing.shift();
      if (!writeError) return;
      await Promise.all(writing.splice(0));
      throw writeError;
    };
    const flush = async () => {
      const records = batch;
      batch = [];
      batchBytes = 0;
      await settle(writers - 1);
      let taken!: () => void;
      const turn: WriteTurn = { after: lastTaken, taken: () => taken() };
      lastTaken = new Promise<void>((resolve) => (taken = resolve));
      writing.push(write(records, turn).catch((error) => void (writeError = error)));
    };
    for await (const line of fileLines(file)) {
      if (line === OVERLONG) {
        lines++;
        malformed++;
        continue;
      }
      if (!line.trim()) continue;
      lines++;
      const record = parseLogLine(line);
      if (!record) {
        malformed++;
        continue;
      }
      batch.push(record);
      batchBytes += line.length;
      if (batch.length >= IMPORT_BATCH || batchBytes >= IMPORT_BATCH_BYTES) await flush();
    }
    if (batch.length) await flush();
    await settle();
    out.write(`${file}: ${lines} line(s): ${accepted} new, ${duplicates} already imported, ${malformed} malformed\n`);
    // A file of nothing but malformed lines is almost surely the wrong file or format: say so by the exit code.
    if (lines > 0 && malformed === lines) {
      err.write(`answerwatch: ${file}: all ${lines} line(s) malformed (combined/JSON-lines logs, lines up to ${MAX_LOG_LINE_CHARS} characters)\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}
