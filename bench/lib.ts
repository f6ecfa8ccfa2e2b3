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
