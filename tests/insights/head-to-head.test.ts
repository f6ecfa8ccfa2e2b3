// backends: sqlite, postgres
// insights_head_to_head: per prompt, answers naming both the brand and one competitor, only the
// brand, only the competitor, neither — computed here from the raw rows the test wrote.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { seededRandom } from "../helpers/random";
import { testServer } from "../helpers/app";
import { serverDb, writeResults } from "../helpers/server-db";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brandId: string;
let rivals: string[];
let prompts: { id: string; text: string }[];
const rows: { prompt: string; platform: string; mentioned: boolean; named: string[]; day: number }[] = [];
const addedAt = new Date(Date.now() - 10 * 86_400_000).toISOString();

beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "H2H");
  brandId = (await createBrand(org.owner, org.id, "h2h", { domains: 1, competitors: 2 })).id;
  rivals = ((await org.owner.from("competitors").select("id").eq("brand_id", brandId).order("name")).data as { id: string }[]).map((c) => c.id);
  // The first rival is tracked from before the history below; the second was added 10 days ago, so
  // it was looked for only in the answers since (the leaderboard counts it so too).
  const db = await serverDb(server);
  await db.inspect("UPDATE competitors SET created_at = ? WHERE id = ?", new Date(Date.now() - 400 * 86_400_000).toISOString(), rivals[0]!);
  await db.inspect("UPDATE competitors SET created_at = ? WHERE id = ?", addedAt, rivals[1]!);
  await db.close();
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single()).data!;
  prompts = (await org.owner.from("prompts").insert(["alpha?", "beta?", "gamma?"].map((text) => ({ prompt_set_id: set.id, brand_id: brandId, text }))).select("id, text")).data as { id: string; text: string }[];
  const { random } = seededRandom(20261125);
  const batch: Parameters<typeof writeResults>[1] = [];
  {
    for (let i = 0; i < 120; i++) {
      const prompt = prompts[Math.floor(random() * prompts.length)]!.id;
      const platform = random() < 0.5 ? "chatgpt" : "perplexity";
      const mentioned = random() < 0.5;
      const named = rivals.filter(() => random() < 0.5);
      const day = Math.floor(random() * 40);
      rows.push({ prompt, platform, mentioned, named, day });
      batch.push({
        key: { id: crypto.randomUUID(), jobId: null, brandId, promptId: prompt, platform, model: "m", region: "", createdAt: new Date(Date.now() - day * 86_400_000).toISOString() },
        values: {
          surface: "api", response: "x", mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 : null,
          competitor_mentions: JSON.stringify(named.map((id, k) => ({ competitor_id: id, name: `Rival ${k}`, mention_count: 1, position: k + 2 }))),
          citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: "[]", details: "{}",
        },
      });
    }
  }
  await writeResults(server, batch);
});
afterAll(() => server.stop());

test("per prompt: both, only the brand, only the competitor and neither equal the counts of the raw rows, inside the window and the filters", async () => {
  for (const [filter, keep] of [
    [{}, (r: (typeof rows)[number]) => r.day < 30],
    [{ p_platforms: ["perplexity"] }, (r: (typeof rows)[number]) => r.day < 30 && r.platform === "perplexity"],
  ] as const) {
    for (const rival of rivals) {
      const { data, error } = await org.owner.rpc("insights_head_to_head", { p_brand_id: brandId, p_competitor_id: rival, ...filter });
      expect(error).toBeNull();
      // The second rival counts from the day it was added: answers of that day (10 days ago) on.
      const since = (r: (typeof rows)[number]) => rival === rivals[0] || r.day <= 10;
      const expected = prompts
        .map((p) => {
          const mine = rows.filter((r) => r.prompt === p.id && keep(r) && since(r));
          const both = mine.filter((r) => r.mentioned && r.named.includes(rival)).length;
          return { prompt_id: p.id, text: p.text, answers: mine.length, both, only_brand: mine.filter((r) => r.mentioned && !r.named.includes(rival)).length, only_competitor: mine.filter((r) => !r.mentioned && r.named.includes(rival)).length, neither: mine.filter((r) => !r.mentioned && !r.named.includes(rival)).length };
        })
        .filter((p) => p.answers > 0);
      const byPrompt = (list: { prompt_id: string }[]) => [...list].sort((a, b) => a.prompt_id.localeCompare(b.prompt_id));
      expect(byPrompt(data as { prompt_id: string }[])).toEqual(byPrompt(expected));
    }
  }
});

test("another organization's competitor or brand gives no rows; a missing or malformed competitor id is a 400", async () => {
  const stranger = await signedUpOrg(server, "Stranger");
  expect((await stranger.owner.rpc("insights_head_to_head", { p_brand_id: brandId, p_competitor_id: rivals[0] })).data).toEqual([]);
  expect((await org.owner.rpc("insights_head_to_head", { p_brand_id: brandId })).error?.code).toBe("22023");
  expect((await org.owner.rpc("insights_head_to_head", { p_brand_id: brandId, p_competitor_id: "nope" })).error?.code).toBe("22P02");
});
