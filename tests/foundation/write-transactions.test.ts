// Issue #28: every write transaction takes SQLite's write lock when it begins (BEGIN IMMEDIATE). A
// deferred transaction that reads and then writes cannot wait for the lock: when another connection
// commits in between, SQLite refuses the upgrade at once (SQLITE_BUSY_SNAPSHOT), whatever
// busy_timeout says — POST /api/brands/:id/crawler-logs answered 503 that way while the pixel wrote.
// Checked twice: in the source (every `.transaction(` call is immediate) and by behaviour (an ingest
// whose transaction starts while another connection holds the write lock waits and succeeds).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { ROOT } from "../helpers/app";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";
import { testServer } from "../helpers/app";

/** Index just past the `)` closing the `(` at `open`; string and template literals skipped. */
export function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") i = endOfQuoted(text, i, c);
    else if (c === "`") i = endOfTemplate(text, i);
    else if (c === "/" && text[i + 1] === "/") i = text.indexOf("\n", i);
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
    if (i < 0) break;
  }
  return -1;
}
function endOfQuoted(text: string, start: number, quote: string): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === quote) return i;
  }
  return text.length;
}
function endOfTemplate(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "`") return i;
    else if (text[i] === "$" && text[i + 1] === "{") {
      // Skip the expression: braces balanced, nested literals skipped.
      let braces = 0;
      for (i = i + 1; i < text.length; i++) {
        const c = text[i]!;
        if (c === '"' || c === "'") i = endOfQuoted(text, i, c);
        else if (c === "`") i = endOfTemplate(text, i);
        else if (c === "{") braces++;
        else if (c === "}" && --braces === 0) break;
      }
    }
  }
  return text.length;
}

/** Each `.transaction(` call of a file that does not take the write lock at BEGIN, as "file:line". */
export function deferredTransactions(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(\w+)\s*\.transaction\s*\(/g)) {
    const open = m.index! + m[0].length - 1;
    const close = closingParen(text, open);
    const args = text.slice(open, close);
    const after = text.slice(close).trimStart();
    // `const run = db.transaction(…)` called later as `run.immediate(…)`, never as `run(…)`.
    const named = text.slice(0, m.index).match(/(?:(?:const|let)\s+)?(\w+)\s*=\s*$/)?.[1];
    const immediate =
      after.startsWith(".immediate(") ||
      (named !== undefined && text.includes(`${named}.immediate(`) && !new RegExp(`\\b${named}\\s*\\(`).test(text.slice(close))) ||
      // Drizzle's form: the last argument asks for it.
      /,\s*(IMMEDIATE|\{\s*behavior:\s*"immediate"\s*\})\s*\)$/.test(args) ||
      // The REST runner's own transaction() is BEGIN IMMEDIATE (src/platform/rest/query.ts).
      (file.endsWith("platform/rest/query.ts") && m[1] === "run");
    if (!immediate) found.push(`${file}:${text.slice(0, m.index).split("\n").length}`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) && !name.includes(".generated.") ? [path] : [];
  });
}

test("the checker finds a deferred transaction in each spelling, and passes immediate ones", () => {
  const deferred = ["const t = db.transaction(() => 1);\nt.immediate();\nt();", "db.transaction(() => { x(\")\"); })();", "sqlite\n  .transaction(() => `a ${f(1)} )`)(arg);", "const t = db.transaction(() => 1);\nt();", "db.transaction(() => { w(); });", "db.transaction(() => {\n // IMMEDIATE would be right\n w(); })();"];
  for (const text of deferred) expect(deferredTransactions("x.ts", text)).toHaveLength(1);
  const immediate = ["const t = db.transaction((a) => 1);\nt.immediate(2);", "db.transaction(() => { x(\")\"); }).immediate();", "sqlite\n  .transaction(() => 1)\n  .immediate();", "db.transaction(() => { w(); }, IMMEDIATE);", 'db.transaction(() => { w(); }, { behavior: "immediate" });'];
  for (const text of immediate) expect(deferredTransactions("x.ts", text)).toEqual([]);
});

test("every transaction in src/ takes the write lock when it begins", () => {
  const files = sourceFiles(join(ROOT, "src"));
  const found = files.flatMap((path) => deferredTransactions(relative(ROOT, path), readFileSync(path, "utf8")));
  const seen = files.reduce((n, path) => n + (readFileSync(path, "utf8").match(/\.transaction\s*\(/g)?.length ?? 0), 0);
  expect(seen).toBeGreaterThan(20);
  expect(found).toEqual([]);
});

let server: Server;
let org: Org;
beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Locks");
});
afterAll(() => server.stop());

test("crawler logs sent while another connection holds the write lock wait for it and are stored (no 503 'database is busy')", async () => {
  const brand = await createBrand(org.owner, org.id, "locked");
  const GPTBOT = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
  const send = (i: number) =>
    fetch(`${server.url}/api/brands/${brand.id}/crawler-logs`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" },
      body: JSON.stringify([{ timestamp: `2026-11-20T08:00:${String(i).padStart(2, "0")}Z`, method: "GET", host: "locked.example", path: `/p${i}`, status: 200, ip: "20.171.206.17", user_agent: GPTBOT }]),
    });
  // Another process (the server's thread must stay free) takes the write lock, writes, and commits
  // 300 ms later, while the ingest is under way.
  const writer = `const { Database } = require("bun:sqlite"); const db = new Database(${JSON.stringify(server.dbh.sqlite.filename)}); db.run("PRAGMA busy_timeout = 5000");
    for await (const line of console) { db.run("BEGIN IMMEDIATE"); db.run("UPDATE brands SET updated_at = updated_at WHERE id = ?", [${JSON.stringify(brand.id)}]); console.log("locked"); await Bun.sleep(300); db.run("COMMIT"); console.log("committed"); }`;
  const other = Bun.spawn([process.execPath, "-e", writer], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const lines = other.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const next = async () => {
    for (let text = ""; ; ) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the writer exited");
      text += value;
      if (text.includes("\n")) return text.trim();
    }
  };
  try {
    for (let round = 0; round < 5; round++) {
      other.stdin.write("go\n");
      other.stdin.flush();
      expect(await next()).toBe("locked");
      const res = await send(round);
      expect([round, res.status, (await res.json()).accepted]).toEqual([round, 200, 1]);
      expect(await next()).toBe("committed");
    }
  } finally {
    other.kill();
  }
  const stored = server.dbh.sqlite.query("SELECT count(*) AS n FROM crawler_hits WHERE brand_id = ?").get(brand.id) as { n: number };
  expect(stored.n).toBe(5);
});

test("answerwatch logs import beside a server waits out a write lock held longer than a server would wait (5 s), and imports everything", async () => {
  const brand = await createBrand(org.owner, org.id, "waiting");
  const dataDir = dirname(server.dbh.sqlite.filename);
  const log = join(dataDir, "access.log");
  const lines = Array.from({ length: 2_000 }, (_, i) => `20.171.206.17 - - [20/Nov/2026:09:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")} +0000] "GET /doc/${i} HTTP/1.1" 200 512 "-" "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)"`);
  writeFileSync(log, `${lines.join("\n")}\n`);
  // Another process holds the write lock for 6.5 s, as a long bulk write of the server would.
  const holder = Bun.spawn([process.execPath, "-e", `const { Database } = require("bun:sqlite"); const db = new Database(${JSON.stringify(server.dbh.sqlite.filename)}); db.run("BEGIN IMMEDIATE"); db.run("UPDATE brands SET updated_at = updated_at"); console.log("locked"); await Bun.sleep(6500); db.run("COMMIT");`], { stdout: "pipe", stderr: "inherit" });
  try {
    const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value?.trim()).toBe("locked");
    const started = Date.now();
    const cli = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "logs", "import", "--brand", brand.slug, log], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent" }, stdout: "pipe", stderr: "pipe" });
    const [code, out, err] = await Promise.all([cli.exited, new Response(cli.stdout).text(), new Response(cli.stderr).text()]).finally(() => cli.kill());
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toContain("2000");
    // It did wait for the lock (and no longer than the holder held it, plus the import itself).
    expect(Date.now() - started).toBeGreaterThan(4_000);
  } finally {
    holder.kill();
  }
  const stored = server.dbh.sqlite.query("SELECT count(*) AS n FROM crawler_hits WHERE brand_id = ?").get(brand.id) as { n: number };
  expect(stored.n).toBe(2_000);
}, 60_000);
