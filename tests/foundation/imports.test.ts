// Issue #28: arrows point down. No import circle in src/ (type-only imports count: a circle of types
// is still two modules that cannot be understood apart), and nothing below the composition roots
// imports them (app.ts, runtime.ts, server.ts; main.ts and cli.ts start the process); src/db/ imports no feature (they hand their schema
// parts down through src/database.ts).
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../helpers/app";

const SRC = join(ROOT, "src");
const ROOTS = new Set(["main.ts", "cli.ts", "server.ts", "runtime.ts", "app.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.includes(".generated.") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Relative imports of a module (static, type-only, re-exports and dynamic), resolved to files. */
export function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specifiers
    .filter((s) => s.startsWith("."))
    .flatMap((s) => {
      const base = resolve(dirname(file), s);
      const found = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((c) => existsSync(c) && statSync(c).isFile());
      return found ? [found] : [];
    });
}

/** The circles of a graph: its strongly connected components of more than one module (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const graph = new Map(sourceFiles(SRC).map((f) => [f, importsOf(f, readFileSync(f, "utf8"))]));

test("the checker finds circles, of types too, and passes a tree", () => {
  expect(circles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]))).toEqual([["a", "b", "c"]]);
  expect(circles(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  const here = join(SRC, "web/pages/x.tsx");
  expect(importsOf(here, `import type { BrandContext } from "../lib/brand-context";\nexport { a } from "./brand";\nconst m = import("../components/ui");`).map((p) => relative(SRC, p))).toEqual(["web/lib/brand-context.ts", "web/pages/brand.tsx", "web/components/ui.tsx"]);
});

test("no import circle in src/", () => {
  expect(graph.size).toBeGreaterThan(200);
  expect(circles(graph).map((c) => c.map((f) => relative(SRC, f)).join(" → "))).toEqual([]);
});

test("nothing below the composition roots imports app.ts, runtime.ts or server.ts", () => {
  const upward = [...graph].flatMap(([file, imports]) => (ROOTS.has(relative(SRC, file)) ? [] : imports.filter((i) => ROOTS.has(relative(SRC, i))).map((i) => `${relative(SRC, file)} → ${relative(SRC, i)}`)));
  expect(upward).toEqual([]);
});

test("the database layer knows no feature: src/db/ imports only src/db/ and config.ts", () => {
  const reaching = [...graph].flatMap(([file, imports]) =>
    relative(SRC, file).startsWith("db/") ? imports.filter((i) => !relative(SRC, i).startsWith("db/") && relative(SRC, i) !== "config.ts").map((i) => `${relative(SRC, file)} → ${relative(SRC, i)}`) : [],
  );
  expect(reaching).toEqual([]);
});
