import { expect, test } from "bun:test";
import { ROOT } from "./helpers/app";

test("the whole project type-checks (tsc --noEmit)", () => {
  const proc = Bun.spawnSync([`${ROOT}node_modules/.bin/tsc`, "--noEmit", "-p", ROOT], { stdout: "pipe", stderr: "pipe", timeout: 180_000 });
  const output = proc.stdout.toString() + proc.stderr.toString();
  expect(output.split("\n").filter((l) => l.includes("error TS")).slice(0, 20)).toEqual([]);
  expect(proc.exitCode).toBe(0);
});
