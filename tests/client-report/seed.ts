// A brand with answers for the client-report suites: six prompts (one naming the brand), three
// platforms, two rivals, cited domains and sentiment over 60 days, and suggestions in every status.
// The raw rows are returned, so a suite can compute figures itself.
import { seededRandom } from "../helpers/random";
import { serverDb, settled, writeResults } from "../helpers/server-db";
import type { Org, Server } from "../rest/helpers";

const DAY = 86_400_000;
export const dayOffset = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);

export const BRAND_NAME = `Lumenly & "Co" <Analytics>`;
export const PROMPTS = [
  "What is the best customer analytics tool for a startup?",
  "Which analytics platform has the best cohort reports?",
  "Best product analytics for a team of 5 <script>alert(1)</script>?",
  "Which tools track retention well?",
  "Cheapest alternative to big analytics suites?",
  "Is Lumenly good for product teams?",
];
const DOMAINS = ["lumenly.example", "quantia.example", "reddit.com", "wikipedia.org", "g2.com", "capterra.com", "medium.com", "youtube.com", "forbes.com", "techcrunch.com", "stackoverflow.com", "producthunt.com"];
export const PLATFORMS = ["chatgpt", "perplexity", "gemini"];

export interface RawRow {
  promptId: string;
  platform: string;
  createdAt: string;
  mentioned: boolean;
}

export interface SeededBrand {
  brandId: string;
  slug: string;
  promptIds: string[];
  brandedPromptId: string;
  rivals: { id: string; name: string }[];
  rows: RawRow[];
}

export async function seedReportBrand(server: Server, org: Org, options: { slug?: string; seed?: number; answers?: number } = {}): Promise<SeededBrand> {
  const slug = options.slug ?? `lumenly-${crypto.randomUUID().slice(0, 6)}`;
  const brand = (await org.owner.from("brands").insert({ organization_id: org.id, name: BRAND_NAME, slug, aliases: ["Lumenly"] }).select().single()).data as { id: string };
  if (!brand) throw new Error("brand not created");
  const brandId = brand.id;
  await org.owner.from("brand_domains").insert({ brand_id: brandId, domain: "lumenly.example", is_primary: true });
  const rivals = (await org.owner.from("competitors").insert([{ brand_id: brandId, name: "Quantia", domain: "quantia.example" }, { brand_id: brandId, name: "Metricsly", domain: "metricsly.example" }]).select("id, name")).data as { id: string; name: string }[];
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "Core" }).select().single()).data as { id: string };
  const prompts = (await org.owner.from("prompts").insert(PROMPTS.map((text) => ({ prompt_set_id: set.id, brand_id: brandId, text }))).select("id, text")).data as { id: string; text: string }[];
  const brandedPromptId = prompts.find((p) => p.text.includes("Lumenly"))!.id;
  // On Postgres is_branded is set a moment after the write (src/insights/branded.pg.ts).
  const db = await serverDb(server);
  const branded = await settled(async () => (await db.inspect<{ id: string }>("SELECT id FROM prompts WHERE brand_id = ? AND is_branded = ?", brandId, db.backend === "postgres" ? true : 1)).map((r) => r.id), [brandedPromptId]);
  if (JSON.stringify(branded) !== JSON.stringify([brandedPromptId])) throw new Error(`is_branded not settled: ${JSON.stringify(branded)}`);

  const { random, pick, chance } = seededRandom(options.seed ?? 20260331);
  const rows: RawRow[] = [];
  const batch: Parameters<typeof writeResults>[1] = [];
  for (let i = 0; i < (options.answers ?? 240); i++) {
    const prompt = pick(prompts);
    const platform = pick(PLATFORMS);
    // The latest month sees the brand more often on chatgpt: a move beyond noise there.
    const day = Math.floor(random() * 60);
    const mentioned = chance(platform === "chatgpt" && day < 30 ? 0.8 : 0.35) || prompt.id === brandedPromptId;
    const named = rivals.filter(() => chance(0.45));
    const cited = DOMAINS.filter((_, k) => chance(k === 0 ? 0.3 : 0.5 / (1 + k / 3)));
    const citations = cited.map((domain, k) => ({ position: k + 1, url: `https://${domain}/page-${k}`, normalized_url: `https://${domain}/page-${k}`, domain, host: domain, title: `Page on ${domain}`, is_brand: domain === "lumenly.example", competitor_id: domain === "quantia.example" ? rivals[0]!.id : null }));
    const createdAt = new Date(Date.now() - day * DAY - Math.floor(random() * 3_600_000)).toISOString();
    const sentiment = mentioned ? Math.round((random() * 2 - 1) * 100) / 100 : null;
    rows.push({ promptId: prompt.id, platform, createdAt, mentioned });
    batch.push({
      key: { id: crypto.randomUUID(), jobId: null, brandId, promptId: prompt.id, platform, model: `${platform}-model`, region: "", createdAt },
      values: {
        surface: "api", response: "x", mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 + Math.floor(random() * 3) : null,
        competitor_mentions: JSON.stringify(named.map((r, k) => ({ competitor_id: r.id, name: r.name, mention_count: 1 + k, position: k + 1 }))),
        citations: JSON.stringify(citations), citation_count: citations.length, brand_citation_count: citations.filter((c) => c.is_brand).length, sources: "[]", source_count: 0,
        sentiment: sentiment === null ? null : sentiment > 0.05 ? "positive" : sentiment < -0.05 ? "negative" : "neutral", sentiment_score: sentiment,
        visibility_score: mentioned ? 60 : 0, search_queries: "[]", details: "{}",
      },
    });
  }
  await writeResults(server, batch);

  const suggestions = [
    { title: "Publish a comparison page against Quantia", detail: "Quantia is named in 40 % of answers to cohort prompts & cited from quantia.example.", priority: "high", status: "new" },
    { title: "Get listed on g2.com", detail: null, priority: "medium", status: "accepted" },
    { title: "Answer retention questions on reddit.com", detail: "x".repeat(900), priority: "low", status: "in_progress" },
    { title: "Dismissed idea", detail: null, priority: "high", status: "dismissed" },
    { title: "Done already", detail: null, priority: "high", status: "done" },
  ];
  // Suggestions are the server's to write (the analysis makes them).
  for (const [i, s] of suggestions.entries())
    await db.inspect("INSERT INTO suggestions (brand_id, type, key, title, detail, priority, status) VALUES (?, 'visibility_gap', ?, ?, ?, ?, ?)", brandId, `k${i}`, s.title, s.detail, s.priority, s.status);
  return { brandId, slug, promptIds: prompts.map((p) => p.id), brandedPromptId, rivals, rows };
}

/** A 1×1 PNG as a data: URL. */
export const PNG_LOGO = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
