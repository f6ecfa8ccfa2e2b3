// Shared pieces for the benchmarks: free ports, medians, and printing a ratio against a target.
import { mkdtempSync } from "node:fs";
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
