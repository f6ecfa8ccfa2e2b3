// Shared pieces for the benchmarks: free ports, medians, CPU time from /proc, and printing a ratio
// against a target.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = new URL("..", import.meta.url).pathname;

export function tempDir(prefix = "aw-bench-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface RatioReport {
  name: string;
  ours: number;
  baseline: number;
  unit: string;
  target: string;
  ok: boolean;
}

export function report(rows: RatioReport[]): void {
  for (const r of rows) {
    const ratio = r.ours / r.baseline;
    console.log(
      `${r.name}: answerwatch ${r.ours.toFixed(2)} ${r.unit}, baseline ${r.baseline.toFixed(2)} ${r.unit}, ratio ${ratio.toFixed(2)}× (target ${r.target}) ${r.ok ? "OK" : "MISSED"}`,
    );
  }
}

/** A thread's (or, for /proc/PID/stat, a whole process's) name and CPU time so far in ms (user + system, 10 ms ticks). */
function statCpu(path: string): { name: string; ms: number } {
  const stat = readFileSync(path, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ms: (Number(fields[11]) + Number(fields[12])) * 10 };
}

/** CPU ms a process has used so far: its main thread and all its threads. */
export function processCpu(pid: number): { main: number; all: number } {
  return { main: statCpu(`/proc/${pid}/task/${pid}/stat`).ms, all: statCpu(`/proc/${pid}/stat`).ms };
}

/** CPU ms used so far by the threads of a process, summed by thread name ("bun", "Worker", "JITWorker", …). */
export function threadCpu(pid: number | "self"): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const { name, ms } = statCpu(`/proc/${pid}/task/${tid}/stat`);
      byName.set(name, (byName.get(name) ?? 0) + ms);
    } catch {
      // the thread ended meanwhile
    }
  }
  return byName;
}

/** Resolves once `url` answers below 500; throws after 20 s. */
export async function waitFor(url: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not come up`);
    await Bun.sleep(20);
  }
}

/** The JSON body of a 2xx response; anything else throws with the body. */
export async function responseJson(res: Response): Promise<any> {
  if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The nearest-rank percentile (p in 0–100). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The fake AI upstream (bench/fixtures/fake-upstream.ts) as a process of its own, answering after `latencyMs`. */
export async function startFakeUpstream(latencyMs: number) {
  const proc = Bun.spawn([process.execPath, `${ROOT}bench/fixtures/fake-upstream.ts`], { env: { ...Bun.env, FAKE_LATENCY_MS: String(latencyMs) }, stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const line = async (): Promise<string> => {
    while (!text.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the fake upstream (pid ${proc.pid}) ended its output`);
      text += decoder.decode(value, { stream: true });
    }
    const at = text.indexOf("\n");
    const first = text.slice(0, at);
    text = text.slice(at + 1);
    return first;
  };
  const env = JSON.parse(await line()) as Record<string, string>;
  return {
    env,
    pid: proc.pid,
    proc,
    stop: () => proc.kill("SIGTERM"),
    /** Its answers so far and their mean time from a request's arrival to its answer. */
    answerTimes: async (): Promise<{ count: number; meanMs: number }> => (proc.kill("SIGUSR2"), JSON.parse(await line())),
  };
}

/** CPU ms per thread name used between two threadCpu snapshots (threads that ended are not counted). */
export function cpuSince(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([name, ms]) => [name, ms - (before.get(name) ?? 0)] as [string, number]).filter(([, ms]) => ms > 0));
}
export const totalCpu = (cpu: Map<string, number>) => [...cpu.values()].reduce((a, b) => a + b, 0);
export const describeCpu = (cpu: Map<string, number>) => [...cpu].sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms}`).join(", ");
