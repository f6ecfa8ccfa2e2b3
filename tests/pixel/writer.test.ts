// backends: sqlite, postgres
// Group commit: how rows become batches, that a caller hears back only after its batch is written,
// that one bad row fails alone, and that close() writes everything still waiting.
import { expect, test } from "bun:test";
import { RowNotWrittenError, WriterBusyError, WriterClosedError, createBatchWriter } from "../../src/pixel/writer";

/** A sink that records batches and completes each write only when told. */
function controlledSink() {
  const batches: number[][] = [];
  const completions: (() => void)[] = [];
  const sink = (rows: number[]) => {
    batches.push(rows);
    const { promise, resolve } = Promise.withResolvers<Map<number, string>>();
    completions.push(() => resolve(new Map(rows.flatMap((row, i) => (row < 0 ? [[i, `row ${row} refused`] as [number, string]] : [])))));
    return promise;
  };
  return { sink, batches, completeNext: () => completions.shift()!() };
}

const settled = async <T>(promise: Promise<T>) => {
  let state = "pending";
  promise.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await Bun.sleep(0);
  await Bun.sleep(0);
  return state;
};

test("rows added in one turn of the event loop leave as one batch; rows added while it is written wait for the next", async () => {
  const { sink, batches, completeNext } = controlledSink();
  const writer = createBatchWriter(sink, { maxRows: 1000, maxPending: 10_000 });
  const first = Array.from({ length: 50 }, (_, i) => writer.add(i));
  await Bun.sleep(0);
  expect(batches).toEqual([Array.from({ length: 50 }, (_, i) => i)]);

  const second = [writer.add(100), writer.add(101)];
  await Bun.sleep(0);
  // Nothing leaves while a write is in flight, and nobody has heard back yet.
  expect(batches).toHaveLength(1);
  expect(await settled(first[0])).toBe("pending");

  completeNext();
  await Promise.all(first);
  expect(await settled(second[0])).toBe("pending");
  expect(batches).toEqual([batches[0], [100, 101]]);
  completeNext();
  await Promise.all(second);
});

test("a batch is at most maxRows rows", async () => {
  const { sink, batches, completeNext } = controlledSink();
  const writer = createBatchWriter(sink, { maxRows: 3, maxPending: 100 });
  const all = Array.from({ length: 7 }, (_, i) => writer.add(i));
  await Bun.sleep(0);
  completeNext();
  await Bun.sleep(0);
  completeNext();
  await Bun.sleep(0);
  completeNext();
  await Promise.all(all);
  expect(batches).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
});

test("a row the sink refuses rejects alone; its batch neighbours succeed", async () => {
  const { sink, completeNext } = controlledSink();
  const writer = createBatchWriter(sink, { maxRows: 100, maxPending: 100 });
  const results = [writer.add(1), writer.add(-2), writer.add(3)];
  await Bun.sleep(0);
  completeNext();
  const outcomes = await Promise.allSettled(results);
  expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(RowNotWrittenError);
});

test("a failing sink rejects every row of the batch, and the writer goes on with the next", async () => {
  let calls = 0;
  const writer = createBatchWriter<number>(async () => {
    if (calls++ === 0) throw new Error("disk full");
    return new Map();
  }, { maxRows: 100, maxPending: 100 });
  const failed = await Promise.allSettled([writer.add(1), writer.add(2)]);
  expect(failed.map((o) => o.status)).toEqual(["rejected", "rejected"]);
  await writer.add(3);
});

test("beyond maxPending waiting rows, add() refuses instead of queueing without bound", async () => {
  const { sink, completeNext } = controlledSink();
  const writer = createBatchWriter(sink, { maxRows: 2, maxPending: 3 });
  const accepted = [writer.add(1), writer.add(2)];
  await Bun.sleep(0);
  // 1 and 2 are being written; three more may wait, the fourth may not.
  const waiting = [writer.add(3), writer.add(4), writer.add(5)];
  await expect(writer.add(6)).rejects.toBeInstanceOf(WriterBusyError);
  completeNext();
  await Bun.sleep(0);
  completeNext();
  await Bun.sleep(0);
  completeNext();
  await Promise.all([...accepted, ...waiting]);
});

test("close() writes every waiting row before it resolves, then refuses new ones", async () => {
  const written: number[] = [];
  const writer = createBatchWriter<number>(async (rows) => {
    await Bun.sleep(1);
    written.push(...rows);
    return new Map();
  }, { maxRows: 10, maxPending: 1000 });
  const pending = Array.from({ length: 25 }, (_, i) => writer.add(i));
  await writer.close();
  expect(written.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  await Promise.all(pending);
  await expect(writer.add(99)).rejects.toBeInstanceOf(WriterClosedError);
});

test("the pixel service's close() writes the beacons still waiting (shutdown flush) and stops its writer", async () => {
  const { testApp } = await import("../helpers/app");
  const { createPixelService } = await import("../../src/pixel/service");
  const { CHROME_UA, beaconJson, seedBrandIn, trafficRowsIn } = await import("./fixtures");
  const { sqliteHarnessOn } = await import("../contracts/harness");
  const { pgHarnessOn } = await import("../contracts/harness.pg");
  const { config, dbh, stores } = await testApp();
  // The app's own database, on either backend.
  const db = config.database.url ? await pgHarnessOn(config.database.url) : sqliteHarnessOn(dbh);
  const brand = await seedBrandIn(db, { domains: ["acme.com"] });
  const { inProcessReports } = await import("../../src/reports/registry");
  const service = createPixelService({ store: stores.pixel(), reports: inProcessReports({ ...stores.requestReads(10_000), timeoutMs: 10_000 }) });
  const beacons = Array.from({ length: 100 }, (_, i) =>
    service.collect({
      body: beaconJson({ brand: brand.trackingCode, url: `https://acme.com/flush/${i}` }),
      origin: "https://acme.com",
      userAgent: CHROME_UA,
      peer: `198.51.100.${i}`,
      forwardedFor: null,
      optOutHeader: false,
    }),
  );
  await service.close();
  expect(await trafficRowsIn(db, brand.brandId)).toHaveLength(100);
  expect((await Promise.allSettled(beacons)).every((o) => o.status === "fulfilled")).toBe(true);
  await expect(
    service.collect({ body: beaconJson({ brand: brand.trackingCode, url: "https://acme.com/late" }), origin: "https://acme.com", userAgent: CHROME_UA, peer: "198.51.100.1", forwardedFor: null, optOutHeader: false }),
  ).rejects.toMatchObject({ status: 503, code: "shutting_down" });
  await db.close();
});

test("with maxInFlight 2 a second batch leaves while the first is written; a third waits for one of them", async () => {
  const { sink, batches, completeNext } = controlledSink();
  const writer = createBatchWriter(sink, { maxRows: 1000, maxPending: 10_000, maxInFlight: 2 });
  const first = writer.add(1);
  await Bun.sleep(0);
  const second = writer.add(2);
  await Bun.sleep(0);
  expect(batches).toEqual([[1], [2]]);
  const third = [writer.add(3), writer.add(4)];
  await Bun.sleep(0);
  expect(batches).toHaveLength(2);
  completeNext();
  await first;
  expect(await settled(second)).toBe("pending");
  await Bun.sleep(0);
  expect(batches).toEqual([[1], [2], [3, 4]]);
  completeNext();
  completeNext();
  await Promise.all([second, ...third]);
});
