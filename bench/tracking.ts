// Tracking throughput. (1) 1,000 units against a zero-latency fake upstream, wall time against a
// bare fetch loop doing the same 1,000 requests at the same concurrency (target ≤ 1.5×).
// (2) At 100 ms upstream latency and concurrency 16, wall time against the ideal ⌈1000/16⌉ × 0.1 s
// (target ≤ 1.15×). Everything runs on 127.0.0.1; the fake upstream in a process of its own.
// For context it prints the CPU time each side used (from /proc): on this machine's cores, a run
// can only be as short as the CPU it needs allows.
import { availableParallelism } from "node:os";
import { testServer } from "../tests/helpers/app";
import { apiClient, organizationOf, seedBrand } from "../tests/helpers/tracking";
import { cpuSince, describeCpu, report, startFakeUpstream, threadCpu, totalCpu } from "./lib";

const UNITS = Number(Bun.env.UNITS ?? 1000);
const CONCURRENCY = 16;

/** CPU per thread name of this process (server and client) and of the fake upstream, from now until the returned function is called. */
function cpuFrom(upstreamPid: number): () => { local: Map<string, number>; upstream: Map<string, number> } {
  const local = threadCpu("self");
  const upstream = threadCpu(upstreamPid);
  return () => ({ local: cpuSince(local, threadCpu("self")), upstream: cpuSince(upstream, threadCpu(upstreamPid)) });
}

interface Measured {
  wall: number;
  cpu: ReturnType<ReturnType<typeof cpuFrom>>;
}


async function trackingRun(latencyMs: number): Promise<Measured> {
  const fake = await startFakeUpstream(latencyMs);
  const server = await testServer({ ...fake.env, WORKERS: "2", PERPLEXITY_CONCURRENCY: String(CONCURRENCY), PERPLEXITY_RPM: "0" });
  try {
    const signup = await (
      await fetch(`${server.url}/auth/v1/signup`, {
        method: "POST",
        headers: { apikey: server.secrets.anonKey, "content-type": "application/json" },
        body: JSON.stringify({ email: `bench.${crypto.randomUUID()}@example.com`, password: "bench-pass" }),
      })
    ).json();
    const { brandId } = seedBrand(server.dbh.sqlite, organizationOf(server.dbh.sqlite, signup.user.id), { prompts: UNITS });
    const api = apiClient(server.url, signup.access_token);
    const cpu = cpuFrom(fake.pid);
    const started = performance.now();
    const { body } = await api.start({ brandId, platforms: ["perplexity"] });
    const { job } = await api.waitFor(body.jobId, 600_000, 10);
    const wall = performance.now() - started;
    const used = cpu();
    if (job.status !== "completed" || job.progress.completed !== UNITS) throw new Error(`run ended ${job.status}: ${job.failedReason}`);
    return { wall, cpu: used };
  } finally {
    await server.stop();
    fake.stop();
  }
}

/** The same requests the adapter sends, straight from a fetch loop with CONCURRENCY in flight. */
async function bareLoop(): Promise<Measured> {
  const fake = await startFakeUpstream(0);
  const sample = fake.env;
  const url = `${sample.PERPLEXITY_BASE_URL}/chat/completions`;
  const cpu = cpuFrom(fake.pid);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < UNITS) {
        const i = next++;
        const res = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${sample.PERPLEXITY_API_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "sonar", messages: [{ role: "user", content: `What is the best project tool for a team of ${i + 2}?` }] }),
        });
        await res.json();
      }
    }),
  );
  const measured = { wall: performance.now() - started, cpu: cpu() };
  fake.stop();
  return measured;
}

const bare = await bareLoop();
const zeroRun = await trackingRun(0);
const baseline = bare.wall;
const zero = zeroRun.wall;
const ideal = Math.ceil(UNITS / CONCURRENCY) * 100;
const slow = (await trackingRun(100)).wall;
report([
  { name: `${UNITS} units, zero-latency upstream, concurrency ${CONCURRENCY}`, ours: zero, baseline, unit: "ms", target: "≤ 1.5×", ok: zero / baseline <= 1.5 },
  { name: `${UNITS} units, 100 ms upstream, concurrency ${CONCURRENCY}`, ours: slow, baseline: ideal, unit: "ms", target: "≤ 1.15× of ideal", ok: slow / ideal <= 1.15 },
]);
const cpuTotal = (m: Measured) => totalCpu(m.cpu.local) + totalCpu(m.cpu.upstream);
console.log("context: CPU time (ms, from /proc, 10 ms ticks) during the zero-latency measurements:");
console.log(`  bare loop: ${cpuTotal(bare)} ms CPU in ${bare.wall.toFixed(0)} ms — client ${totalCpu(bare.cpu.local)} ms, fake upstream ${totalCpu(bare.cpu.upstream)} ms`);
console.log(
  `  tracking run: ${cpuTotal(zeroRun)} ms CPU in ${zero.toFixed(0)} ms — answerwatch and the polling client ${totalCpu(zeroRun.cpu.local)} ms (${describeCpu(zeroRun.cpu.local)}), fake upstream ${totalCpu(zeroRun.cpu.upstream)} ms`,
);
const cores = availableParallelism();
console.log(`  a run of ≤ 1.5× the bare loop's ${baseline.toFixed(0)} ms has at most ${cores} × ${(1.5 * baseline).toFixed(0)} = ${(cores * 1.5 * baseline).toFixed(0)} ms of CPU on this machine's ${cores} cores`);
process.exit(0);
