/**
 * Issue #25: a clone of the repository alone passes its tests. Nothing in src/, tests/, bench/ or
 * scripts/ may name a path that leaves the repository — the team's folder beside the clone is
 * there on the team's machines only, so a test reading it passes in CI and fails for every user.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { ROOT } from "../helpers/app";

const FOLDERS = ["src", "tests", "bench", "scripts"];
const TEXT = /\.(ts|tsx|js|mjs|sh|json|ya?ml|md|html|css)$/;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.endsWith(".generated.ts")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

/** Every place in `text` that names a path outside `root`, read as relative to `fileDir` or to the root. */
export function escapingPaths(text: string, fileDir: string, root: string): string[] {
  const found: string[] = [];
  const inside = (p: string) => {
    const rel = relative(root, p);
    return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep));
  };
  // A relative path in a string: `../../x`, `./../x`.
  for (const m of text.matchAll(/["'`]((?:\.\.?\/)*\.\.\/[^"'`\s]*)["'`]/g)) {
    const path = m[1]!;
    if (!inside(resolve(fileDir, path))) found.push(path);
  }
  // The team's folder beside the clone, however it is reached (from the root, or absolutely).
  for (const m of text.matchAll(/(?:\.\.\/|\/work\/)shared\b[^"'`\s)]*/g)) found.push(m[0]);
  return found;
}

test("the checker finds what it is meant to find", () => {
  const root = "/repo";
  // The three spellings the project once had, built here so this file names none of them itself.
  const beside = ["..", "shared"].join("/");
  expect(escapingPaths(`join(import.meta.dir, '../../${beside}/fixtures/engines')`, "/repo/tests/fakes", root)).toContain(`../../${beside}/fixtures/engines`);
  expect(escapingPaths(`join(root, "${beside}/fixtures/engines")`, "/repo/bench/scale", root)).toContain(`${beside}/fixtures/engines`);
  expect(escapingPaths(`read("/work/${"shared"}/data/x.json")`, "/repo/src", root)).toHaveLength(1);
  expect(escapingPaths(`import x from "../../src/a"`, "/repo/tests/foundation", root)).toEqual([]);
  expect(escapingPaths(`new URL("./build-web.ts", import.meta.url)`, "/repo/scripts", root)).toEqual([]);
});

test("no file in src/, tests/, bench/ or scripts/ names a path outside the repository", () => {
  const root = resolve(ROOT);
  const offenders: string[] = [];
  let read = 0;
  for (const folder of FOLDERS) {
    for (const file of files(join(root, folder))) {
      read++;
      for (const path of escapingPaths(readFileSync(file, "utf8"), dirname(file), root)) offenders.push(`${relative(root, file)}: ${path}`);
    }
  }
  expect(read).toBeGreaterThan(300);
  expect(offenders).toEqual([]);
});
