import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { renderEnvExample } from "../../scripts/env-example";
import { ROOT } from "../helpers/app";

test(".env.example is up to date (bun scripts/env-example.ts)", async () => {
  expect(await Bun.file(`${ROOT}.env.example`).text()).toBe(renderEnvExample());
});

test("every environment variable the code reads is listed in .env.example", () => {
  const example = readFileSync(`${ROOT}.env.example`, "utf8");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) files.push(path);
    }
  };
  walk(`${ROOT}src`);
  const read = new Set<string>();
  for (const file of files) {
    for (const m of readFileSync(file, "utf8").matchAll(/(?:\b(?:env|Bun\.env)\.([A-Z][A-Z0-9_]+)|(?:\benv\[|Var\(env, )["']([A-Z][A-Z0-9_]+)["'])/g)) read.add(m[1] ?? m[2]);
  }
  expect(read.size).toBeGreaterThan(10);
  for (const name of read) expect({ name, listed: example.includes(`#${name}=`) }).toEqual({ name, listed: true });
});
