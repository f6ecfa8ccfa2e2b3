// backends: sqlite, postgres
// Spreadsheets and BI (issue #31): a share link serves each insights table as CSV at a URL that
// needs no header — what Google Sheets' IMPORTDATA and Looker Studio's CSV connector fetch. The
// numbers are the insights RPCs' (read here as JSON by the owner through supabase-js); the link's
// brand is the only one it reads, whatever the URL asks; a revoked link answers 404.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SHEET_TABLES } from "../../src/common/sheets";
import { INSIGHT_RPCS } from "../../src/insights/rpc";
import { testServer } from "../helpers/app";
import { writeResults } from "../helpers/server-db";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brandId: string;
let otherBrandId: string;
let link: string;

const DAY = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

async function shareLink(brand: string): Promise<{ url: string; id: string }> {
  const res = await fetch(`${server.url}/api/share-links`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json" }, body: JSON.stringify({ brand_id: brand }) });
  const body = await res.json();
  return { url: body.url, id: body.link.id };
}

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Sheets");
  brandId = (await createBrand(org.owner, org.id, "sheets")).id;
  otherBrandId = (await createBrand(org.owner, org.id, "hidden")).id;
  for (const [brand, texts] of [[brandId, ["best crm for startups?", "=HYPERLINK(\"x\") pricing?"]], [otherBrandId, ["secret prompt?"]]] as const) {
    const set = (await org.owner.from("prompt_sets").insert({ brand_id: brand, name: "S" }).select().single()).data!;
    const prompts = (await org.owner.from("prompts").insert(texts.map((text) => ({ prompt_set_id: set.id, brand_id: brand, text }))).select()).data!;
    await writeResults(
      server,
      prompts.flatMap((p: { id: string }, n: number) =>
        Array.from({ length: 8 }, (_, i) => ({
          key: { id: crypto.randomUUID(), jobId: null, brandId: brand, promptId: p.id, platform: i % 2 ? "chatgpt" : "perplexity", model: "m", region: "", createdAt: new Date(Date.now() - (i % 4) * DAY).toISOString() },
          values: { surface: "api", response: "x", mentioned: (i + n) % 3 ? 1 : 0, mention_count: (i + n) % 3 ? 1 : 0, mention_position: (i + n) % 3 ? 1 : null, competitor_mentions: "[]", citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: (i + n) % 3 ? 70 : 0, search_queries: "[]", details: "{}" },
        })),
      ),
    );
  }
  link = (await shareLink(brandId)).url;
});
afterAll(() => server.stop());

/** RFC 4180 fields, with the doubled backslashes of PostgREST's record text undone. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if ((c === '"' || c === "\\") && text[i + 1] === c) {
        field += c;
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n") {
      rows.push([...row, field]);
      row = [];
      field = "";
    } else field += c;
  }
  rows.push([...row, field]);
  return rows;
}

/** A CSV cell against the RPC's JSON value: numbers as numbers, null empty, booleans t/f, JSON as JSON, text as text (a formula-like one kept as text with a leading '). */
function expectCell(column: string, cell: string, value: unknown) {
  if (value === null) expect({ column, cell }).toEqual({ column, cell: "" });
  else if (typeof value === "number") expect({ column, value: Number(cell) }).toEqual({ column, value });
  else if (typeof value === "boolean") expect({ column, cell }).toEqual({ column, cell: value ? "t" : "f" });
  else if (typeof value === "object") expect({ column, value: JSON.parse(cell) }).toEqual({ column, value });
  else expect({ column, cell: cell.replace(/^'(?=[=+\-@])/, "") }).toEqual({ column, cell: String(value) });
}

async function sheet(path: string): Promise<{ status: number; type: string | null; rows: string[][] }> {
  const res = await fetch(`${link}/csv/${path}`);
  return { status: res.status, type: res.headers.get("content-type"), rows: parseCsv(await res.text()) };
}

async function compare(name: string, args: Record<string, unknown>, query = "") {
  const got = await sheet(`${name}${query}`);
  expect({ name, status: got.status, type: got.type }).toEqual({ name, status: 200, type: "text/csv; charset=utf-8" });
  const { data, error } = await org.owner.rpc(name, { p_brand_id: brandId, ...args });
  expect(error).toBeNull();
  const rows = data as Record<string, unknown>[];
  expect(rows.length).toBeGreaterThan(0);
  const [header, ...cells] = got.rows;
  expect(header).toEqual(Object.keys(rows[0]!));
  expect(cells.length).toBe(rows.length);
  rows.forEach((row, r) => header!.forEach((column, c) => expectCell(column, cells[r]![c]!, row[column])));
  return { header: header!, cells };
}

test("each insights table of the shared brand as CSV with no header sent, equal to the RPC the owner reads", async () => {
  const prompts = await compare("insights_prompts", {});
  // The prompt that looks like a formula stays text in a spreadsheet.
  const text = prompts.header.indexOf("text");
  expect(prompts.cells.map((c) => c[text])).toContain('\'=HYPERLINK("x") pricing?');
  await compare("insights_trend", { p_interval: "day", p_group_by: "platform" }, "?p_interval=day&p_group_by=platform");
  await compare("insights_competitors", {});
});

test("the URL's window, filters, order and limit apply as on the RPC", async () => {
  await compare("insights_trend", { p_from: day(-2), p_to: day(0) }, `?p_from=${day(-2)}&p_to=${day(0)}`);
  await compare("insights_prompts", { p_platforms: ["chatgpt"] }, `?p_platforms=${encodeURIComponent("{chatgpt}")}`);
  const ordered = await sheet("insights_prompts?select=text,answers&order=text.desc&limit=1");
  expect(ordered.rows).toHaveLength(2);
  expect(ordered.rows[0]).toEqual(["text", "answers"]);
  expect(ordered.rows[1]![0]).toBe("best crm for startups?");
});

test("the link reads its brand only: a p_brand_id in the URL is replaced, another brand's prompt never appears", async () => {
  const got = await sheet(`insights_prompts?p_brand_id=${otherBrandId}`);
  expect(got.status).toBe(200);
  expect(JSON.stringify(got.rows)).not.toContain("secret prompt");
  expect(JSON.stringify(got.rows)).toContain("best crm for startups?");
});

test("a table that is one object, an unknown table, a bad argument and a revoked link: clear errors, never a 5xx", async () => {
  const overview = await fetch(`${link}/csv/insights_overview`);
  expect(overview.status).toBe(404);
  expect((await overview.json()).message).toContain("insights_prompts");
  expect((await fetch(`${link}/csv/brands`)).status).toBe(404);
  const bad = await fetch(`${link}/csv/insights_trend?p_from=2026-02-30`);
  expect([bad.status, (await bad.json()).code]).toEqual([400, "22007"]);
  const revoked = await shareLink(brandId);
  await fetch(`${server.url}/api/share-links/${revoked.id}`, { method: "DELETE", headers: { authorization: `Bearer ${org.ownerToken}` } });
  const gone = await fetch(`${revoked.url}/csv/insights_prompts`);
  expect(gone.status).toBe(404);
  expect(await gone.text()).toContain("revoked");
});

test("the tables offered are exactly the insights RPCs that return rows", () => {
  const sets = Object.entries(INSIGHT_RPCS).filter(([, rpc]) => rpc.returns === "set").map(([name]) => name);
  expect([...SHEET_TABLES].sort() as string[]).toEqual(sets.sort());
});
