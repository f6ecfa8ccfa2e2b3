// backends: sqlite, postgres
// Source categories in insights_citation_domains: the shipped list, institutional suffixes, and the
// user's SOURCE_CATEGORIES_FILE read by the server at start and used by the reader threads.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, testServer } from "../helpers/app";
import { writeResults } from "../helpers/server-db";
import { createBrand, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brandId: string;
const DOMAINS = ["reddit.com", "wikipedia.org", "nasa.gov", "ox.ac.uk", "forum.example.org", "categories-0.example.com", "rival-categories-0.com", "unknown-blog.net"];

beforeAll(async () => {
  const file = join(tempDir(), "categories.json");
  // reddit.com is a forum in the shipped list: the user's entry wins.
  writeFileSync(file, JSON.stringify({ forum: ["forum.example.org"], review: ["reddit.com"] }));
  server = await testServer({ SOURCE_CATEGORIES_FILE: file });
  org = await signedUpOrg(server, "Categories");
  const brand = await createBrand(org.owner, org.id, "categories");
  brandId = brand.id;
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single()).data!;
  const prompt = (await org.owner.from("prompts").insert({ prompt_set_id: set.id, brand_id: brandId, text: "best tools" }).select().single()).data!;
  const citations = DOMAINS.map((domain, i) => ({ position: i + 1, url: `https://${domain}/page`, normalized_url: `https://${domain}/page`, domain, host: domain, title: null, is_brand: false, competitor_id: null }));
  await writeResults(server, [{
    key: { id: crypto.randomUUID(), jobId: null, brandId, promptId: prompt.id, platform: "chatgpt", model: "m", region: "" },
    values: { surface: "api", response: "x", mentioned: 0, mention_count: 0, mention_position: null, competitor_mentions: "[]", citations: JSON.stringify(citations), citation_count: citations.length, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: "[]", details: "{}" },
  }]);
});
afterAll(() => server.stop());

test("each cited domain carries its class and its category; the user's file extends and overrides the shipped list", async () => {
  const { data, error } = await org.owner.rpc("insights_citation_domains", { p_brand_id: brandId });
  expect(error).toBeNull();
  const byDomain = Object.fromEntries((data as { domain: string; class: string; category: string; competitor_id: string | null }[]).map((r) => [r.domain, [r.class, r.category]]));
  expect(byDomain).toEqual({
    "reddit.com": ["third_party", "review"],
    "wikipedia.org": ["third_party", "reference"],
    "nasa.gov": ["third_party", "institutional"],
    "ox.ac.uk": ["third_party", "institutional"],
    "forum.example.org": ["third_party", "forum"],
    "categories-0.example.com": ["own", "other"],
    "rival-categories-0.com": ["competitor", "other"],
    "unknown-blog.net": ["third_party", "other"],
  });
  const rival = (await org.owner.from("competitors").select("id").eq("brand_id", brandId).single()).data!;
  expect((data as { domain: string; competitor_id: string | null }[]).find((r) => r.domain === "rival-categories-0.com")!.competitor_id).toBe(rival.id);
});
