// backends: sqlite, postgres
// Config as code through the CLI (issue #20): apply prints its plan and makes the file true; a
// second apply, and apply of what export prints, change nothing; removed prompts are deactivated,
// not deleted; a bad file gets one line per problem naming file, line, column and field.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/database";
import { ROOT, TEST_BACKEND, tempDir } from "../helpers/app";
import { testPostgres } from "../helpers/postgres";
import { pgHarnessOn, type PgHarness } from "../contracts/harness.pg";

const dataDir = tempDir("aw-apply-");
/** Postgres runs: the database the CLI and the server share (DATABASE_URL), and a pool of the test's own on it. */
let databaseUrl: string | undefined;
let pg: PgHarness | undefined;
const database = () => (databaseUrl ? { DATABASE_URL: databaseUrl } : {});
const cli = (...args: string[]) => {
  const run = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, ...args], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...database() } });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
};
const file = (name: string, text: string) => {
  const path = join(dataDir, name);
  writeFileSync(path, text);
  return path;
};

const BRAND = `brand:
  name: Lumenly
  slug: lumenly
  website: https://www.lumenly.example/
  domains: [docs.lumenly.example]
  region: us
  language: en
  aliases: [Lumen]
competitors:
  - name: Quantora
    domain: quantora.example
    aliases: [Quantora Analytics]
  - name: Cohorta
topics: [Buying, Support]
prompts:
  - text: Best customer analytics tool for a startup?
    topic: Buying
  - Is Lumenly good for product teams?
  - text: How do I export cohorts?
    topic: Support
platforms:
  - platform: chatgpt
    frequency: daily
    samples: 2
  - perplexity
`;

beforeAll(async () => {
  if (TEST_BACKEND === "postgres") {
    databaseUrl = await (await testPostgres())!.createDatabase("apply");
    pg = await pgHarnessOn(databaseUrl);
  }
  expect(cli("user", "add", "--email", "owner@example.com", "--password", "correct-horse", "--org", "Agency").code).toBe(0);
});

afterAll(async () => {
  await pg?.close();
});

/** Rows of the deployment's database, read beside the CLI (SQLite: a read-only connection of its own). */
async function rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]> {
  if (pg) return pg.inspect<T>(sql, ...params);
  const d = new Database(join(dataDir, "answerwatch.db"), { readonly: true });
  try {
    return d.query(sql).all(...(params as never[])) as T[];
  } finally {
    d.close();
  }
}
const brandCount = async () => Number((await rows<{ n: number | string }>("SELECT count(*) AS n FROM brands"))[0]!.n);
/** A JSON column: text on SQLite, already parsed (jsonb) on Postgres. */
const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

test("apply creates the brand and everything in the file, after printing the plan; a second apply changes nothing", async () => {
  const path = file("brand.yaml", BRAND);
  const dry = cli("apply", path, "--dry-run");
  expect(dry.code).toBe(0);
  expect(dry.out).toContain("(dry run: nothing applied)");
  expect(dry.out).toContain("+ competitor Quantora");
  expect(await brandCount()).toBe(0);
  const first = cli("apply", path);
  expect(first.code).toBe(0);
  expect(first.out).toMatch(/lumenly: \d+ change\(s\)/);
  expect(first.out).toContain("applied");
  const brand = (await rows<{ id: string; region: string; aliases: unknown }>("SELECT id, region, aliases FROM brands WHERE slug = 'lumenly'"))[0]!;
  expect(brand.region).toBe("US");
  expect(json(brand.aliases)).toEqual(["Lumen"]);
  expect(await rows("SELECT domain, is_primary FROM brand_domains WHERE brand_id = ? ORDER BY is_primary DESC", brand.id)).toEqual([{ domain: "lumenly.example", is_primary: 1 }, { domain: "docs.lumenly.example", is_primary: 0 }]);
  expect(await rows("SELECT text, is_branded FROM prompts WHERE brand_id = ? ORDER BY text", brand.id)).toEqual([
    { text: "Best customer analytics tool for a startup?", is_branded: 0 },
    { text: "How do I export cohorts?", is_branded: 0 },
    { text: "Is Lumenly good for product teams?", is_branded: 1 },
  ]);
  expect(await rows("SELECT platform, check_frequency, samples FROM brand_platforms WHERE brand_id = ? ORDER BY platform", brand.id)).toEqual([
    { platform: "chatgpt", check_frequency: "daily", samples: 2 },
    { platform: "perplexity", check_frequency: "daily", samples: 1 },
  ]);
  expect(cli("apply", path).out).toBe("lumenly: no changes\n");
});

test("export prints the same file: apply → export → apply is a no-op", () => {
  const exported = cli("export", "brand", "lumenly");
  expect(exported.code).toBe(0);
  expect(exported.out).toContain("slug: lumenly");
  expect(cli("apply", file("exported.yaml", exported.out)).out).toBe("lumenly: no changes\n");
  expect(cli("brands").out).toContain("Agency\tlumenly\tLumenly\t3 prompt(s)");
});

test("names and texts stored with spaces around them (through /rest/v1) survive export → apply: the competitor renamed in place (its citations keep it), the prompt and topic unchanged", async () => {
  const write = async (sql: string) => {
    if (pg) return void (await pg.inspect(sql));
    // The product's own opening: the tables' triggers call its SQL functions.
    const d = openDatabase(join(dataDir, "answerwatch.db"));
    try {
      d.sqlite.run(sql);
    } finally {
      d.close();
    }
  };
  const before = await rows<{ id: string; name: string }>("SELECT id, name FROM competitors ORDER BY name");
  await write("UPDATE competitors SET name = 'Quantora  ' WHERE name = 'Quantora'");
  await write("UPDATE prompts SET text = ' Is Lumenly good for product teams? ' WHERE text = 'Is Lumenly good for product teams?'");
  await write("UPDATE topics SET name = 'Support ' WHERE name = 'Support'");
  const applied = cli("apply", file("spaced.yaml", cli("export", "brand", "lumenly").out));
  expect(applied.code).toBe(0);
  expect(applied.out).toContain("~ competitor Quantora");
  expect(applied.out).not.toContain("- competitor");
  expect(applied.out).not.toContain("prompt");
  expect(applied.out).not.toContain("topic");
  expect(await rows("SELECT id, name FROM competitors ORDER BY name")).toEqual(before);
  expect((await rows<{ n: number | string }>("SELECT count(*) AS n FROM prompts WHERE text LIKE '%Is Lumenly good%'")).map((r) => Number(r.n))).toEqual([1]);
  await write("UPDATE prompts SET text = 'Is Lumenly good for product teams?' WHERE text = ' Is Lumenly good for product teams? '");
  await write("UPDATE topics SET name = 'Support' WHERE name = 'Support '");
  expect(cli("apply", file("brand.yaml", BRAND)).out).toBe("lumenly: no changes\n");
});

test("a prompt removed from the file is deactivated, not deleted; a competitor removed is deleted; a changed schedule is updated", async () => {
  const edited = BRAND.replace("  - text: How do I export cohorts?\n    topic: Support\n", "").replace("  - name: Cohorta\n", "").replace("samples: 2", "samples: 3");
  const applied = cli("apply", file("edited.yaml", edited));
  expect(applied.out).toContain("- prompt deactivated: How do I export cohorts?");
  expect(applied.out).toContain("- competitor Cohorta");
  expect(applied.out).toContain("~ platform chatgpt: daily, 3 sample(s)");
  expect(await rows("SELECT is_active FROM prompts WHERE text = 'How do I export cohorts?'")).toEqual([{ is_active: 0 }]);
  // Put back: reactivated, not duplicated.
  expect(cli("apply", file("brand.yaml", BRAND)).out).toContain("~ prompt reactivated: How do I export cohorts?");
  expect((await rows<{ n: number | string }>("SELECT count(*) AS n FROM prompts WHERE text = 'How do I export cohorts?'")).map((r) => Number(r.n))).toEqual([1]);
});

test("a bad file: each problem on its own line with file, line, column and field; nothing is applied", async () => {
  const bad = file(
    "bad.yaml",
    `brand:
  name: Lumenly
  slug: Lumenly Inc
  website: not a domain
  colour: blue
competitors:
  - domain: quantora.example
topics: [Buying]
prompts:
  - text: Best tool?
    topic: Pricing
platforms:
  - platform: chatgpt
    samples: 11
  - platform: myspace
`,
  );
  const run = cli("apply", bad);
  expect(run.code).toBe(2);
  const lines = run.err.trim().split("\n");
  expect(lines).toContain(`${bad}:3:9: brand.slug: must be lower-case letters, digits and hyphens`);
  expect(lines).toContain(`${bad}:4:12: brand.website: must be a domain or a site's address (example.com)`);
  expect(lines).toContain(`${bad}:5:3: brand.colour: unknown field (known: name, slug, organization, website, domains, region, language, aliases, industry, description)`);
  expect(lines).toContain(`${bad}:7:5: competitors[0].name: is required`);
  expect(lines).toContain(`${bad}:11:12: prompts[0].topic: is not one of topics (Buying)`);
  expect(lines).toContain(`${bad}:14:14: platforms[0].samples: must be a whole number from 1 to 10`);
  expect(lines.some((l) => l.startsWith(`${bad}:15:15: platforms[1].platform: unknown platform`))).toBe(true);
  // What /rest/v1 would refuse is refused here too, before anything is written: a domain twice (it
  // failed the write with the database's error), more than 100 aliases or one over 500 characters.
  const twice = file(
    "twice.yaml",
    `brand:
  name: Twice
  slug: twice
  website: twice.example
  domains: [docs.twice.example, "https://DOCS.twice.example/x"]
  aliases: [${Array.from({ length: 101 }, (_, i) => `a${i}`).join(", ")}]
competitors:
  - name: Rival
    aliases: ["${"r".repeat(501)}"]
`,
  );
  const refused = cli("apply", twice);
  expect(refused.code).toBe(2);
  const problems = refused.err.trim().split("\n");
  expect(problems.some((l) => l.startsWith(`${twice}:5:`) && l.endsWith("brand.domains[1]: is listed twice"))).toBe(true);
  expect(problems.some((l) => l.endsWith("brand.aliases: lists at most 100 aliases"))).toBe(true);
  expect(problems.some((l) => l.endsWith("competitors[0].aliases[0]: must be at most 500 characters"))).toBe(true);
  const syntax = cli("apply", file("syntax.yaml", "brand:\n  name: [unclosed\n"));
  expect(syntax.code).toBe(2);
  expect(syntax.err).toMatch(/syntax\.yaml:\d+:\d+: /);
  expect(await brandCount()).toBe(1);
});

test("run BRAND --wait starts a run the server carries out, and follows it to the end; user list and user remove", async () => {
  const { startFakeUpstream } = await import("../fakes/upstream");
  const { testServer } = await import("../helpers/app");
  const fake = await startFakeUpstream();
  const fakeEnv = fake.env();
  const server = await testServer({ ...fakeEnv, DATA_DIR: dataDir, ...database() });
  try {
    const env = { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...fake.env(), ...database() };
    const proc = Bun.spawn([process.execPath, `${ROOT}src/main.ts`, "run", "lumenly", "--wait"], { env, stdout: "pipe", stderr: "pipe" });
    const [code, out, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]).finally(() => proc.kill());
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(out).toMatch(/^job [0-9a-f-]+: 9 answer\(s\) on chatgpt, perplexity; the server runs it\n/);
    expect(out).toContain("completed: 9 answered, 0 failed");
    expect(out).not.toContain("\r");
    const unknown = Bun.spawnSync([process.execPath, `${ROOT}src/main.ts`, "run", "nope"], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr.toString()).toContain('no brand "nope"');
  } finally {
    await server.stop();
    await fake.stop();
  }
  // No server on DATA_DIR any more: --wait says so and stops instead of waiting forever.
  const orphan = Bun.spawn([process.execPath, `${ROOT}src/main.ts`, "run", "lumenly", "--wait"], { env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", ...fakeEnv, ...database() }, stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => orphan.kill(), 20_000);
  try {
    const [code, out, err] = await Promise.all([orphan.exited, new Response(orphan.stdout).text(), new Response(orphan.stderr).text()]);
    expect(out).toMatch(/^job [0-9a-f-]+: 9 answer\(s\)/);
    expect({ code, err }).toEqual({ code: 3, err: expect.stringContaining(`no server runs on DATA_DIR=${dataDir}`) as unknown as string });
    expect(err).toContain("stays queued and runs when one starts");
  } finally {
    clearTimeout(killer);
    orphan.kill();
  }
  expect(cli("user", "add", "--email", "analyst@example.com", "--password", "correct-horse", "--org", "Agency", "--role", "viewer").code).toBe(0);
  const listed = cli("user", "list").out;
  expect(listed).toMatch(/^owner@example\.com\t[0-9a-f-]+\tAgency \(owner\)$/m);
  expect(listed).toMatch(/^analyst@example\.com\t[0-9a-f-]+\tAgency \(viewer\)$/m);
  const lastOwner = cli("user", "remove", "--email", "owner@example.com");
  expect(lastOwner.code).toBe(2);
  expect(lastOwner.err).toContain("is the last owner of Agency");
  expect(cli("user", "remove", "--email", "analyst@example.com").out).toBe("removed user analyst@example.com\n");
  expect(cli("user", "list").out).not.toContain("analyst@example.com");
}, 60_000);
