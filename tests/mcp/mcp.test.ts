// backends: sqlite, postgres
// /mcp driven by the official MCP SDK's own client over Streamable HTTP, against the real server:
// the tools are listed, every read tool is called on a tracked brand and its numbers equal what the
// insights RPCs return through supabase-js; write tools act as the user, and are refused to a viewer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TOOLS } from "../../src/mcp/tools";
import { openaiAnswer } from "../fakes/answers";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { writeResults } from "../helpers/server-db";
import { createBrand, memberOf, signedUpOrg, type Org, type Server } from "../rest/helpers";

let fake: FakeUpstream;
let server: Server;
let org: Org;
let brandId: string;
let promptIds: string[];

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "answerwatch-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
  return JSON.parse(result.content[0]!.text);
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  fake.setBehavior("chatgpt", { respond: () => Response.json(openaiAnswer({ text: "Brand mcp-0 and Rival 0 lead.", query: "best tools", cites: [{ url: "https://reddit.com/r/x", title: "x" }] })) });
  const env = Object.fromEntries(Object.entries(fake.env()).filter(([k]) => k.startsWith("OPENAI_")));
  server = await testServer(env);
  org = await signedUpOrg(server, "MCP");
  const brand = await createBrand(org.owner, org.id, "mcp");
  brandId = brand.id;
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single()).data!;
  promptIds = ((await org.owner.from("prompts").insert(["best tools?", "Is Brand mcp good?"].map((text) => ({ prompt_set_id: set.id, brand_id: brandId, text }))).select("id")).data as { id: string }[]).map((p) => p.id);
  const rival = ((await org.owner.from("competitors").select("id").eq("brand_id", brandId)).data as { id: string }[])[0]!.id;
  await writeResults(
    server,
    Array.from({ length: 20 }, (_, day) =>
      promptIds.map((promptId, i) => ({
        key: { id: crypto.randomUUID(), jobId: null, brandId, promptId, platform: day % 2 ? "chatgpt" : "perplexity", model: "m", region: "", createdAt: new Date(Date.now() - day * 86_400_000).toISOString() },
        values: {
          surface: "api", response: "answer", mentioned: (day + i) % 3 ? 1 : 0, mention_count: 1, mention_position: 1,
          competitor_mentions: JSON.stringify([{ competitor_id: rival, name: "Rival 0", mention_count: 1, position: 2 }]),
          citations: JSON.stringify([{ position: 1, url: `https://reddit.com/r/${day % 3}`, normalized_url: `https://reddit.com/r/${day % 3}`, domain: "reddit.com", host: "reddit.com", title: "t", is_brand: false, competitor_id: null }]),
          citation_count: 1, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: "neutral", sentiment_score: 0, visibility_score: 50, search_queries: JSON.stringify([`q${day % 2}`]), details: "{}",
        },
      })),
    ).flat(),
  );
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
});

test("the SDK client lists every tool; read tools say so", async () => {
  const client = await connect(org.ownerToken);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
  for (const name of ["whoami", "list_brands", "list_prompts", "list_topics", "list_competitors", "get_overview", "get_trend", "compare_competitors", "list_cited_domains", "list_cited_urls", "get_prompt_answers", "list_search_queries", "get_crawlers", "get_crawler_trend", "get_crawler_paths", "get_ai_traffic", "list_suggestions", "get_job"])
    expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint).toBe(true);
  for (const name of ["add_prompts", "add_competitor", "start_tracking", "update_suggestion"]) expect(tools.find((t) => t.name === name)?.annotations?.readOnlyHint).toBe(false);
  await client.close();
});

test("every schema lists the allowed values where the domain is closed; an unknown platform or interval is an error, not zeros", async () => {
  const client = await connect(org.ownerToken);
  const { tools } = await client.listTools();
  const CLOSED: Record<string, string[]> = {
    platforms: ["chatgpt", "perplexity", "gemini", "claude", "grok", "google-ai-overview", "google-ai-mode", "copilot", "openai-compatible"],
    interval: [],
    group_by: ["none", "platform", "model", "region", "topic"],
    status: ["new", "accepted", "dismissed", "in_progress", "done"],
  };
  let checked = 0;
  for (const tool of tools) {
    const props = (tool.inputSchema.properties ?? {}) as Record<string, any>;
    for (const [name, allowed] of Object.entries(CLOSED)) {
      if (!props[name]) continue;
      const values: string[] | undefined = props[name].enum ?? props[name].items?.enum;
      expect([tool.name, name, Array.isArray(values)]).toEqual([tool.name, name, true]);
      if (allowed.length) expect([tool.name, name, values]).toEqual([tool.name, name, allowed]);
      checked++;
    }
  }
  // Every closed field of every tool was listed with its values.
  expect(checked).toBe(TOOLS.reduce((n, t) => n + Object.keys(CLOSED).filter((k) => k in t.input).length, 0));
  expect(checked).toBeGreaterThanOrEqual(15);
  for (const [tool, args] of [
    ["get_overview", { brand_id: brandId, platforms: ["ChatGPT"] }],
    ["get_trend", { brand_id: brandId, platforms: ["no-such-engine"] }],
    ["get_trend", { brand_id: brandId, interval: "year" }],
    ["start_tracking", { brand_id: brandId, platforms: ["Perplexity"] }],
    ["get_overview", { brand_id: brandId, from: "last week" }],
  ] as const) {
    const result = (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; content: { text: string }[] };
    expect([tool, args, result.isError]).toEqual([tool, args, true]);
  }
  // New tools: topics, crawlers, and AI traffic with its default window.
  expect(await call(client, "list_topics", { brand_id: brandId })).toEqual(((await org.owner.from("topics").select("id,name").eq("brand_id", brandId).order("name")).data as unknown[]));
  expect(await call(client, "get_crawlers", { brand_id: brandId })).toEqual((await org.owner.rpc("insights_crawlers", { p_brand_id: brandId })).data);
  const traffic = await call(client, "get_ai_traffic", { brand_id: brandId });
  expect(traffic.totals.visits).toBe(0);
  await client.close();
});

test("every read tool answers for a tracked brand, with the insights RPCs' numbers (n and intervals included)", async () => {
  const client = await connect(org.ownerToken);
  const me = await call(client, "whoami");
  expect(me.organizations).toEqual([{ id: org.id, name: expect.any(String), role: "owner" }]);
  expect((await call(client, "list_brands")).map((b: { id: string }) => b.id)).toEqual([brandId]);
  expect((await call(client, "list_prompts", { brand_id: brandId })).map((p: { id: string }) => p.id).sort()).toEqual([...promptIds].sort());
  expect(await call(client, "list_competitors", { brand_id: brandId })).toHaveLength(1);
  const args = { p_brand_id: brandId, p_platforms: ["chatgpt"] };
  const pairs: [string, string, Record<string, unknown>][] = [
    ["get_overview", "insights_overview", {}],
    ["get_trend", "insights_trend", { interval: "week", group_by: "platform" }],
    ["compare_competitors", "insights_competitors", {}],
    ["list_cited_domains", "insights_citation_domains", {}],
    ["list_cited_urls", "insights_citation_urls", {}],
    ["list_search_queries", "insights_search_queries", {}],
  ];
  for (const [tool, rpc, extra] of pairs) {
    const viaMcp = await call(client, tool, { brand_id: brandId, platforms: ["chatgpt"], ...extra });
    const rpcExtra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k === "interval" ? "p_interval" : "p_group_by", v]));
    const viaRpc = (await org.owner.rpc(rpc, { ...args, ...rpcExtra })).data;
    expect({ tool, value: viaMcp }).toEqual({ tool, value: viaRpc });
  }
  const overview = await call(client, "get_overview", { brand_id: brandId });
  expect(overview.answers).toBe(40);
  expect(overview.visibility_rate).toMatchObject({ n: 40, ci_low: expect.any(Number), ci_high: expect.any(Number) });
  const answers = await call(client, "get_prompt_answers", { brand_id: brandId, prompt_id: promptIds[0] });
  expect(answers.map((a: { platform: string }) => a.platform).sort()).toEqual(["chatgpt", "perplexity"]);
  const traffic = await call(client, "get_ai_traffic", { brand_id: brandId, from: "2026-01-01", to: "2026-01-31" });
  expect(traffic.totals.visits).toBe(0);
  expect(await call(client, "list_suggestions", { brand_id: brandId })).toEqual([]);
  await client.close();
});

test("write tools act as the user: prompts and a competitor added, a run started and followed with get_job; a viewer is refused with the server's message", async () => {
  const client = await connect(org.ownerToken);
  const added = await call(client, "add_prompts", { brand_id: brandId, prompts: ["Which CRM do agencies use?"] });
  expect(added).toEqual([{ id: expect.any(String), text: "Which CRM do agencies use?", is_branded: false }]);
  expect((await call(client, "add_competitor", { brand_id: brandId, name: "Globex", domain: "globex.example" }))[0]).toMatchObject({ name: "Globex" });
  const started = await call(client, "start_tracking", { brand_id: brandId, platforms: ["chatgpt"] });
  expect(started.units).toBe(3);
  let job = await call(client, "get_job", { job_id: started.jobId });
  for (let i = 0; i < 100 && !["completed", "failed"].includes(job.status); i++) {
    await Bun.sleep(100);
    job = await call(client, "get_job", { job_id: started.jobId });
  }
  expect(job.status).toBe("completed");
  await client.close();

  const viewer = await memberOf(server, org.id, "viewer");
  const readOnly = await connect(viewer.token);
  expect((await call(readOnly, "list_brands")).map((b: { id: string }) => b.id)).toEqual([brandId]);
  const refused = (await readOnly.callTool({ name: "start_tracking", arguments: { brand_id: brandId } })) as { isError?: boolean; content: { text: string }[] };
  expect(refused.isError).toBe(true);
  expect(refused.content[0]!.text).toMatch(/Viewers cannot start tracking runs/);
  await readOnly.close();
});

test("without a valid bearer /mcp answers 401; another organization sees none of the brand's data", async () => {
  const res = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
  expect(res.status).toBe(401);
  const stranger = await signedUpOrg(server, "Stranger");
  const client = await connect(stranger.ownerToken);
  expect(await call(client, "list_brands")).toEqual([]);
  expect((await call(client, "get_overview", { brand_id: brandId })).answers).toBe(0);
  await client.close();
});

test("a batch is at most 20 messages, each request with its own id (both duplicates used to run, one answer came back): past that -32600 and nothing runs", async () => {
  const post = (messages: unknown) =>
    fetch(`${server.url}/mcp`, { method: "POST", headers: { authorization: `Bearer ${org.ownerToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify(messages) });
  const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });
  const many = await post(Array.from({ length: 21 }, (_, i) => list(i)));
  expect([many.status, (await many.json()).error.code]).toEqual([400, -32600]);
  const competitors = async () => (await org.owner.from("competitors").select("id").eq("brand_id", brandId)).data!.length;
  const before = await competitors();
  const add = (name: string) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "add_competitor", arguments: { brand_id: brandId, name } } });
  const twice = await post([add("Twin A"), add("Twin B")]);
  expect([twice.status, (await twice.json()).error.code]).toEqual([400, -32600]);
  expect(await competitors()).toBe(before);
  const two = await post([list(1), list(2)]);
  expect(two.status).toBe(200);
  expect(((await two.json()) as { id: number }[]).map((m) => m.id).sort()).toEqual([1, 2]);
});

test("list tools answer a page (500 rows at most, offset on); add_prompts checks every text first, so a refused one leaves no empty prompt set", async () => {
  const client = await connect(org.ownerToken);
  const all = (await call(client, "list_prompts", { brand_id: brandId })) as { id: string }[];
  expect(all.length).toBeGreaterThanOrEqual(2);
  expect(await call(client, "list_prompts", { brand_id: brandId, limit: 1 })).toEqual([all[0]]);
  expect(await call(client, "list_prompts", { brand_id: brandId, limit: 1, offset: 1 })).toEqual([all[1]]);
  const tooMany = (await client.callTool({ name: "list_prompts", arguments: { brand_id: brandId, limit: 501 } })) as { isError?: boolean };
  expect(tooMany.isError).toBe(true);
  const bare = (await createBrand(org.owner, org.id, "mcp-bare")).id;
  const long = (await client.callTool({ name: "add_prompts", arguments: { brand_id: bare, prompts: ["x".repeat(2001)] } })) as { isError?: boolean };
  expect(long.isError).toBe(true);
  expect((await org.owner.from("prompt_sets").select("id").eq("brand_id", bare)).data).toEqual([]);
  // Refused by the server (a topic that is not the brand's): the set made for them goes too.
  const foreign = (await client.callTool({ name: "add_prompts", arguments: { brand_id: bare, prompts: ["Fine text?"], topic_id: crypto.randomUUID() } })) as { isError?: boolean };
  expect(foreign.isError).toBe(true);
  expect((await org.owner.from("prompt_sets").select("id").eq("brand_id", bare)).data).toEqual([]);
  // Two calls at once on a brand with no set, one refused: the other's prompts stay (the refused
  // one used to delete the set it had made, which the other had meanwhile put its prompts in).
  for (let round = 0; round < 3; round++) {
    const fresh = (await createBrand(org.owner, org.id, `mcp-race-${round}`)).id;
    const [refused, added] = (await Promise.all([
      client.callTool({ name: "add_prompts", arguments: { brand_id: fresh, prompts: ["Refused?"], topic_id: crypto.randomUUID() } }),
      client.callTool({ name: "add_prompts", arguments: { brand_id: fresh, prompts: ["Kept?"] } }),
    ])) as { isError?: boolean }[];
    expect([refused!.isError, added!.isError ?? false]).toEqual([true, false]);
    expect(((await org.owner.from("prompts").select("text").eq("brand_id", fresh)).data ?? []).map((p) => p.text)).toEqual(["Kept?"]);
  }
  await client.close();
});
