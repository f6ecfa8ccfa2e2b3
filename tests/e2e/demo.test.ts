import { expect, test } from "bun:test";
import { buildBinary } from "../helpers/binary";
import { tempDir } from "../helpers/app";

test("answerwatch demo (the compiled binary, in an empty directory) runs a tracking job on recorded answers and prints the table", () => {
  const proc = Bun.spawnSync([buildBinary(), "demo"], { cwd: tempDir("aw-demo-"), env: { PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  const out = proc.stdout.toString();
  expect(proc.exitCode).toBe(0);
  expect(out).toContain("real recorded ones");
  expect(out).toMatch(/12\/12 done/);
  const table = out.slice(out.indexOf("platform"));
  for (const platform of ["chatgpt", "claude", "perplexity", "grok"]) expect(table).toMatch(new RegExp(`^${platform}\\s+\\d+% \\(n=3\\)`, "m"));
  // The OpenAI recording names Vercel; the others do not.
  expect(table).toMatch(/^chatgpt\s+100% \(n=3\)/m);
  expect(table).toMatch(/^claude\s+0% \(n=3\)/m);
});
