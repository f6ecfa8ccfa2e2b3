// A client process for bench/scale's "under load" phase: CONCURRENCY loops sending the same request
// until SIGTERM, each response read to the end. Prints one JSON line (requests, statuses) on exit.
export {};
const url = Bun.env.LOAD_URL!;
const method = Bun.env.LOAD_METHOD ?? "GET";
const headers = JSON.parse(Bun.env.LOAD_HEADERS ?? "{}") as Record<string, string>;
const body = Bun.env.LOAD_BODY || undefined;
const concurrency = Number(Bun.env.CONCURRENCY ?? 4);
let stopping = false;
const statuses: Record<string, number> = {};
let done = 0;
process.on("SIGTERM", () => (stopping = true));
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (!stopping) {
      try {
        const res = await fetch(url, { method, headers, body });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch (error) {
        statuses[String((error as Error).name)] = (statuses[String((error as Error).name)] ?? 0) + 1;
        await Bun.sleep(50);
      }
      done++;
    }
  }),
);
console.log(JSON.stringify({ requests: done, statuses }));
