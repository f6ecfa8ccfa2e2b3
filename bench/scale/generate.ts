// Builds bench/scale's year of data in a DATA_DIR: one organization (made by signing up through the
// real server, so its owner can sign in), 50 brands with competitors, prompts and daily platforms,
// one result per prompt × platform per day written through the product's result store
// (src/results/store.sqlite.ts), and a year of the big brand's traffic in ai_traffic_logs.
//
// The world is the same at every scale: the big brand holds 584/1050 of the results (200 prompts ×
// 8 platforms = 1,600 a day), the other 49 brands (about 26 prompt × platform groups each) the
// rest, all tracked over the same days; only the number of days changes (3.5, 35, 365).
import { rmSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalizeUrl } from "../../src/analysis/urls";
import { loadConfig } from "../../src/config";
import { DB_FILE, lockDataDir } from "../../src/db/open";
import { openDatabase } from "../../src/database";
import { DEFAULT_MODELS, SERP_PLATFORMS } from "../../src/engines/config";
import { PLATFORM_IDS, type PlatformId } from "../../src/engines/types";
import type { Citation } from "../../src/analysis/citations";
import { createResultStore } from "../../src/results/store.sqlite";
import { packRowsWithDictionaries } from "../../src/storage/maintenance";
import { createSqliteStorageStore } from "../../src/storage/store.sqlite";
import type { ResultValues } from "../../src/tracking/unit-runner";
import { ensureSecrets } from "../../src/secrets";
import { ROOT } from "../lib";
import { rng, weighted, zipf, type Rng } from "./random";
import { signUp, startServer } from "./server";
import { createComposer, loadCorpus, trainChain, type AnswerEntity, type AnswerSource } from "./text";

export const SCALES: Record<string, number> = { "10k": 10_000, "100k": 100_000, "1m": 1_050_000 };
const BIG_SHARE = 584 / 1050;
const BIG_PROMPTS = 200;
const BRANDS = 50;
const RESULTS_PER_TRANSACTION = 5_000;
const TRAFFIC_PER_TRANSACTION = 20_000;
const DAY_MS = 86_400_000;
const SEED = "answerwatch-scale-v1";

export interface ScaleMeta {
  key: string;
  scale: string;
  generatedAt: string;
  generationSeconds: number;
  /** Repacking every answer with its brand's dictionaries, as the server's upkeep does (issue #32). */
  dictionaryPackSeconds?: number;
  email: string;
  password: string;
  userId: string;
  organizationId: string;
  bigBrandId: string;
  bigBrandName: string;
  /** prompt × platform groups of the big brand (rows the latest-results RPC returns). */
  bigBrandGroups: number;
  bigBrandChatgptGroups: number;
  days: number;
  results: number;
  bigBrandResults: number;
  citations: number;
  trafficRows: number;
  aiVisits: number;
  /** UTF-8 bytes of every answer, plus every citation's url and title, as generated. */
  plainTextBytes: number;
  answerBytes: number;
  citationTextBytes: number;
  corpus: { sources: { name: string; texts: number; chars: number }[]; words: number; vocabulary: number };
  /** How compressible the generated answers are (a sample of them): each alone at zstd level 3, and concatenated at level 19. */
  textSample: { answers: number; bytes: number; zstd3Each: number; zstd19Together: number };
}

// ---- the world ------------------------------------------------------------------------------------

/** The eight platforms with a model each (the tracked ones: every platform id but the generic endpoint). */
const PLATFORMS = PLATFORM_IDS.filter((p) => p !== "openai-compatible") as PlatformId[];
const MODEL: Record<string, string> = Object.fromEntries(PLATFORMS.map((p) => [p, DEFAULT_MODELS[p] || p]));
/** Typical answer length per platform, in bytes (clamped to 2–8 KB per answer). */
const TYPICAL_BYTES: Record<string, number> = {
  chatgpt: 5600, perplexity: 4200, gemini: 6000, claude: 5200, grok: 6200, "google-ai-overview": 2900, "google-ai-mode": 4600, copilot: 3800,
};

interface Industry {
  name: string;
  topic: string;
  audiences: string[];
  features: string[];
}

const INDUSTRIES: Industry[] = [
  { name: "Customer analytics", topic: "customer analytics software", audiences: ["B2B SaaS companies", "ecommerce brands", "product teams", "growth marketers", "startups", "mobile app teams", "subscription businesses", "mid-market companies"], features: ["cohort analysis", "churn prediction", "session replay", "funnel reports", "warehouse sync", "GDPR compliance", "revenue attribution", "self-serve dashboards", "event tracking", "A/B test analysis"] },
  { name: "CRM", topic: "CRM software", audiences: ["small businesses", "real estate agents", "agencies", "B2B sales teams", "nonprofits"], features: ["email sequences", "pipeline reports", "mobile app", "lead scoring", "Gmail integration"] },
  { name: "Project management", topic: "project management tool", audiences: ["marketing teams", "remote teams", "software teams", "construction firms", "agencies"], features: ["Gantt charts", "time tracking", "automations", "client portals", "resource planning"] },
  { name: "Accounting", topic: "accounting software", audiences: ["freelancers", "small businesses", "ecommerce sellers", "nonprofits", "contractors"], features: ["bank feeds", "multi-currency", "payroll", "receipt capture", "invoicing"] },
  { name: "Email marketing", topic: "email marketing platform", audiences: ["creators", "ecommerce stores", "newsletters", "B2B marketers", "restaurants"], features: ["automation flows", "deliverability", "landing pages", "segmentation", "templates"] },
  { name: "Password managers", topic: "password manager", audiences: ["families", "small businesses", "developers", "enterprises", "students"], features: ["passkeys", "breach monitoring", "SSO", "secure sharing", "offline access"] },
  { name: "Web hosting", topic: "web hosting provider", audiences: ["WordPress sites", "online stores", "developers", "agencies", "beginners"], features: ["managed WordPress", "free SSL", "staging", "daily backups", "CDN"] },
  { name: "Running shoes", topic: "running shoes", audiences: ["marathon runners", "beginners", "flat feet", "trail runners", "wide feet"], features: ["cushioning", "stability", "durability", "carbon plates", "breathability"] },
  { name: "Mobile carriers", topic: "phone plan", audiences: ["families", "seniors", "travelers", "rural areas", "heavy data users"], features: ["unlimited data", "hotspot", "international roaming", "5G coverage", "streaming perks"] },
  { name: "Coffee machines", topic: "espresso machine", audiences: ["beginners", "small kitchens", "latte lovers", "offices", "enthusiasts"], features: ["built-in grinder", "milk frother", "temperature stability", "easy cleaning", "programmable shots"] },
  { name: "Travel cards", topic: "travel credit card", audiences: ["frequent flyers", "students", "families", "business travelers", "beginners"], features: ["lounge access", "no foreign transaction fees", "transfer partners", "travel insurance", "sign-up bonus"] },
  { name: "Online learning", topic: "online learning platform", audiences: ["career changers", "developers", "kids", "data analysts", "designers"], features: ["certificates", "interactive exercises", "mentorship", "offline videos", "projects"] },
  { name: "Help desk", topic: "help desk software", audiences: ["startups", "ecommerce support teams", "IT departments", "SaaS companies", "agencies"], features: ["live chat", "AI answers", "SLA tracking", "knowledge base", "omnichannel inbox"] },
  { name: "Data warehouses", topic: "data warehouse", audiences: ["analytics teams", "startups", "enterprises", "data engineers", "fintech companies"], features: ["separate storage and compute", "open table formats", "cost controls", "streaming ingest", "SQL compatibility"] },
  { name: "Observability", topic: "observability platform", audiences: ["SRE teams", "Kubernetes clusters", "startups", "enterprises", "serverless apps"], features: ["distributed tracing", "log search", "SLO alerts", "OpenTelemetry", "cost controls"] },
  { name: "Payroll", topic: "payroll software", audiences: ["small businesses", "restaurants", "remote companies", "contractors", "nonprofits"], features: ["automatic tax filing", "benefits", "time tracking", "multi-state payroll", "contractor payments"] },
  { name: "Fitness apps", topic: "fitness app", audiences: ["beginners", "runners", "strength training", "busy parents", "seniors"], features: ["guided workouts", "progress tracking", "social challenges", "wearable sync", "nutrition logging"] },
];

const SYLLABLES_A = ["Blue", "Bright", "Cedar", "Clear", "Copper", "Crisp", "Delta", "Ember", "Fern", "Granite", "Harbor", "Iron", "Juniper", "Keystone", "Lark", "Maple", "Nimbus", "Oak", "Pine", "Quarry", "River", "Sage", "Summit", "Tidal", "Umber", "Vale", "Willow", "Zephyr", "Aster", "Birch", "Cobalt", "Drift", "Echo", "Fable", "Glade", "Halo", "Indigo", "Jade", "Kestrel", "Lumen"];
const SYLLABLES_B = ["Labs", "Works", "HQ", "Stack", "Cloud", "Path", "Hub", "Wise", "Forge", "ly", "io", "Point", "Base", "Flow", "Signal", "Metrics", "Loop", "Nest", "Bay", "Field"];

interface Entity {
  name: string;
  domain: string;
  competitorId: string | null;
}

interface Group {
  brand: BrandPlan;
  promptId: string;
  promptText: string;
  platform: string;
  key: string;
  /** Index in the brand's group list (order of the first, partial day). */
  order: number;
  mentionChance: number;
  usualRank: number;
  itemCount: number;
  typicalBytes: number;
  /** The prompt's usual entities besides the brand, most listed first. */
  usual: Entity[];
  /** URL pool indexes this prompt's answers cite most. */
  favorites: number[];
  sentimentBias: number;
  audience: string;
  feature: string;
}

interface BrandPlan {
  id: string;
  name: string;
  domain: string;
  industry: Industry;
  competitors: Entity[];
  others: Entity[];
  groups: Group[];
  /** Minutes after midnight UTC when its daily run starts. */
  runMinute: number;
}

interface PoolUrl {
  url: string;
  normalized_url: string;
  domain: string | null;
  host: string | null;
  title: string;
}

const KNOWN_DOMAINS = [
  "reddit.com", "g2.com", "youtube.com", "wikipedia.org", "capterra.com", "forbes.com", "techradar.com", "trustradius.com", "pcmag.com", "zapier.com",
  "nerdwallet.com", "investopedia.com", "medium.com", "linkedin.com", "quora.com", "gartner.com", "businessinsider.com", "theverge.com", "cnet.com", "wired.com",
  "tomsguide.com", "zdnet.com", "softwareadvice.com", "getapp.com", "producthunt.com", "github.com", "stackoverflow.com", "nytimes.com", "consumerreports.org", "bbc.com",
  "reuters.com", "bloomberg.com", "techcrunch.com", "venturebeat.com", "entrepreneur.com", "inc.com", "shopify.com", "hubspot.com", "atlassian.com", "salesforce.com",
  "mckinsey.com", "hbr.org", "statista.com", "cnbc.com", "usnews.com", "bankrate.com", "runnersworld.com", "seriouseats.com", "thepointsguy.com", "coursera.org",
  "tomshardware.com", "engadget.com", "lifehacker.com", "mashable.com", "digitaltrends.com", "makeuseof.com", "howtogeek.com", "androidauthority.com", "9to5mac.com", "arstechnica.com",
  "gov.uk", "ftc.gov", "nist.gov", "ibm.com", "microsoft.com", "google.com", "aws.amazon.com", "cloudflare.com", "datadoghq.com", "segment.com",
  "amplitude.com", "mixpanel.com", "posthog.com", "heap.io", "fullstory.com", "hotjar.com", "semrush.com", "ahrefs.com", "moz.com", "searchengineland.com",
];
const SLUG_WORDS = [
  "best", "top", "guide", "review", "reviews", "pricing", "comparison", "alternatives", "features", "how", "to", "choose", "for", "small", "business", "teams",
  "enterprise", "free", "tools", "software", "platform", "tips", "beginners", "complete", "ultimate", "vs", "explained", "what", "is", "the", "in", "2025", "2026",
  "checklist", "strategy", "benchmark", "report", "case", "study", "examples", "mistakes", "avoid", "buyers", "cost", "roi", "setup", "migration", "templates",
  "analytics", "data", "customer", "retention", "churn", "growth", "marketing", "sales", "product", "metrics", "dashboard", "privacy", "security", "integration",
];
const SUBREDDITS = ["analytics", "SaaS", "startups", "marketing", "smallbusiness", "dataengineering", "ProductManagement", "Entrepreneur", "sysadmin", "personalfinance", "running", "Coffee", "churning", "webdev"];

function slugWords(r: Rng, topicWords: string[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r() < 0.35 && topicWords.length ? r.pick(topicWords) : r.pick(SLUG_WORDS));
  return out;
}

function titleCase(words: string[]): string {
  return words.map((w) => (w === "vs" ? "vs." : w[0]!.toUpperCase() + w.slice(1))).join(" ");
}

function siteName(domain: string): string {
  const base = domain.split(".")[0]!;
  return base.length <= 3 ? base.toUpperCase() : base[0]!.toUpperCase() + base.slice(1);
}

/** A URL on `domain` with a path shaped like that kind of site's, and a 4–10 word title. */
function makeUrl(r: Rng, domain: string, topicWords: string[]): { url: string; title: string } {
  const n = 4 + r.int(7);
  if (domain === "reddit.com") {
    const words = slugWords(r, topicWords, n);
    return { url: `https://www.reddit.com/r/${r.pick(SUBREDDITS)}/comments/${r.hex(6)}/${words.join("_")}/`, title: `${titleCase(words.slice(0, n - 1))} : r/${r.pick(SUBREDDITS)}` };
  }
  if (domain === "youtube.com") {
    const words = slugWords(r, topicWords, n);
    return { url: `https://www.youtube.com/watch?v=${Buffer.from(r.hex(16), "hex").toString("base64url").slice(0, 11)}`, title: `${titleCase(words.slice(0, n - 1))} - YouTube` };
  }
  if (domain === "wikipedia.org") {
    const words = slugWords(r, topicWords, Math.max(2, n - 4));
    return { url: `https://en.wikipedia.org/wiki/${titleCase(words).replaceAll(" ", "_")}`, title: `${titleCase(words)} - Wikipedia` };
  }
  const words = slugWords(r, topicWords, n);
  const slug = words.join("-");
  const site = siteName(domain);
  const www = r() < 0.6 ? "www." : "";
  const shape = r.int(8);
  const path =
    shape === 0 ? `/blog/${slug}` :
    shape === 1 ? `/categories/${words.slice(0, 3).join("-")}` :
    shape === 2 ? `/compare/${words[0]}-vs-${words[1]}` :
    shape === 3 ? `/${2024 + r.int(3)}/${String(1 + r.int(12)).padStart(2, "0")}/${slug}/` :
    shape === 4 ? `/reviews/${slug}` :
    shape === 5 ? `/resources/guides/${slug}` :
    shape === 6 ? `/products/${words[0]}/${slug}` : `/learn/${slug}`;
  return { url: `https://${www}${domain}${path}`, title: `${titleCase(words.slice(0, Math.max(3, n - 1)))} | ${site}` };
}

function brandName(r: Rng, taken: Set<string>): string {
  for (;;) {
    const b = r.pick(SYLLABLES_B);
    const name = b === "ly" || b === "io" ? `${r.pick(SYLLABLES_A)}${b}` : `${r.pick(SYLLABLES_A)} ${b}`;
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
}

function domainOf(name: string, r: Rng): string {
  return `${name.toLowerCase().replace(/[^a-z0-9]+/g, "")}${r.pick([".com", ".com", ".com", ".io", ".ai", ".co"])}`;
}

function promptTexts(r: Rng, brand: string, industry: Industry, competitors: string[], count: number, year: number): string[] {
  const templates = [
    (a: string, f: string) => `What is the best ${industry.topic} for ${a}?`,
    (a: string) => `Best ${industry.topic} for ${a} in ${year}`,
    (a: string) => `${brand} vs ${r.pick(competitors)}: which is better for ${a}?`,
    () => `Top alternatives to ${r.pick(competitors)}`,
    (a: string) => `Is ${brand} worth it for ${a}?`,
    (a: string, f: string) => `Which ${industry.topic} has the best ${f}?`,
    (a: string) => `How much does ${industry.topic} cost for ${a}?`,
    (a: string, f: string) => `Recommend a ${industry.topic} with ${f} for ${a}`,
    (a: string, f: string) => `${industry.topic} with the best ${f} for ${a}`,
    (a: string, f: string) => `Compare ${industry.topic} options with ${f}`,
    (a: string) => `What do ${a} use for ${industry.topic}?`,
    (a: string, f: string) => `Is there a ${industry.topic} for ${a} that includes ${f}?`,
  ];
  const out = new Set<string>();
  for (let tries = 0; out.size < count && tries < count * 50; tries++) {
    const t = r.pick(templates)(r.pick(industry.audiences), r.pick(industry.features));
    out.add(t[0]!.toUpperCase() + t.slice(1));
  }
  let i = 0;
  while (out.size < count) out.add(`Which ${industry.topic} should ${r.pick(industry.audiences)} pick (${++i})?`);
  return [...out];
}

// ---- generation -----------------------------------------------------------------------------------

export async function generateScale(scale: string, dataDir: string, key: string, log: (line: string) => void): Promise<ScaleMeta> {
  const total = SCALES[scale];
  if (!total) throw new Error(`unknown scale ${scale} (known: ${Object.keys(SCALES).join(", ")})`);
  const t0 = performance.now();
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  // The owner signs up through the real server (its organization comes with it), then the server stops.
  const secrets = await ensureSecrets(loadConfig({ DATA_DIR: dataDir, HOST: "127.0.0.1", LOG_LEVEL: "silent" }));
  const email = "owner@scale-bench.example.com";
  const password = "scale-bench-password";
  const server = await startServer(dataDir);
  let userId: string;
  try {
    userId = (await signUp(server.base, secrets.anonKey, email, password, "Scale Bench")).userId;
  } finally {
    await server.stop();
  }

  const corpus = loadCorpus(ROOT);
  const chain = trainChain(corpus);
  const compose = createComposer(chain);

  const lock = lockDataDir(dataDir);
  const dbh = openDatabase(join(dataDir, DB_FILE));
  const { sqlite } = dbh;
  // This connection only: a bigger page cache, and no fsync per commit (a crash here means regenerating anyway).
  sqlite.run("PRAGMA cache_size = -262144");
  sqlite.run("PRAGMA synchronous = OFF");
  try {
    const organizationId = (sqlite.query("SELECT organization_id FROM organization_members WHERE user_id = ?").get(userId) as { organization_id: string }).organization_id;
    const now = new Date();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const year = now.getUTCFullYear();

    // ---- brands, competitors, prompts, platforms ----
    const world = rng(`${SEED}|world`);
    const insertId = (sql: string, ...params: unknown[]) => (sqlite.query(`${sql} RETURNING id`).get(...(params as [])) as { id: string }).id;
    const names = new Set<string>();
    const brands: BrandPlan[] = [];
    const allDomains = new Set<string>(KNOWN_DOMAINS);
    const bigCompetitorNames = ["Lumen Insights", "Cohortly", "Metricwise", "Segmently", "Pulsetrack", "Funnelcraft", "Retainly", "Insightloop"];
    sqlite.transaction(() => {
      for (let b = 0; b < BRANDS; b++) {
        const big = b === 0;
        const industry = big ? INDUSTRIES[0]! : INDUSTRIES[1 + (b % (INDUSTRIES.length - 1))]!;
        const name = big ? "Northwind Analytics" : brandName(world, names);
        names.add(name);
        const domain = big ? "northwindanalytics.com" : domainOf(name, world);
        allDomains.add(domain);
        const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
        const brandId = insertId(
          "INSERT INTO brands (organization_id, name, slug, industry, region, language, aliases, description) VALUES (?, ?, ?, ?, 'US', 'en', ?, ?)",
          organizationId, name, slug, industry.name, JSON.stringify([name.split(" ")[0]]), `${name} makes ${industry.topic} for ${industry.audiences.slice(0, 2).join(" and ")}.`,
        );
        sqlite.query("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, ?, 1)").run(brandId, domain);
        if (big) sqlite.query("INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (?, ?, 0)").run(brandId, "docs.northwindanalytics.com");
        const competitorCount = big ? 8 : 3 + world.int(3);
        const competitors: Entity[] = [];
        for (let c = 0; c < competitorCount; c++) {
          const cName = big ? bigCompetitorNames[c]! : brandName(world, names);
          const cDomain = domainOf(cName, world);
          allDomains.add(cDomain);
          const id = insertId("INSERT INTO competitors (brand_id, name, domain, aliases) VALUES (?, ?, ?, '[]')", brandId, cName, cDomain);
          competitors.push({ name: cName, domain: cDomain, competitorId: id });
        }
        const others: Entity[] = Array.from({ length: big ? 30 : 8 }, () => {
          const oName = brandName(world, names);
          return { name: oName, domain: domainOf(oName, world), competitorId: null };
        });
        // Prompts × platforms: the big brand 200 × 8; the others about 26 groups (1–4 platforms).
        const platforms = big ? PLATFORMS : world.shuffle([...PLATFORMS]).slice(0, 1 + (b % 4));
        const promptCount = big ? BIG_PROMPTS : Math.round(26 / platforms.length);
        const topics = big
          ? ["Pricing", "Comparisons", "Alternatives", "Use cases", "Features", "Integrations", "Compliance", "Implementation", "Reviews", "Buying guides"].map((t) => insertId("INSERT INTO topics (brand_id, name) VALUES (?, ?)", brandId, t))
          : [];
        const setIds = Array.from({ length: big ? 4 : 1 }, (_, i) => insertId("INSERT INTO prompt_sets (brand_id, name) VALUES (?, ?)", brandId, big ? ["Core", "Competitors", "Buyers", "Long tail"][i]! : "Core"));
        const texts = promptTexts(world, name, industry, competitors.map((c) => c.name), promptCount, year);
        const plan: BrandPlan = { id: brandId, name, domain, industry, competitors, others, groups: [], runMinute: world.int(20 * 60) };
        const lastChecked = new Date(today - DAY_MS + plan.runMinute * 60_000).toISOString();
        for (const p of platforms)
          sqlite.query("INSERT INTO brand_platforms (brand_id, platform, check_frequency, model, last_checked_at) VALUES (?, ?, 'daily', ?, ?)").run(brandId, p, MODEL[p]!, lastChecked);
        texts.forEach((text, i) => {
          const promptId = insertId(
            "INSERT INTO prompts (prompt_set_id, brand_id, text, category, topic_id) VALUES (?, ?, ?, ?, ?)",
            setIds[i % setIds.length]!, brandId, text, industry.name, topics.length ? topics[i % topics.length]! : null,
          );
          for (const platform of platforms) {
            const g = rng(`${SEED}|group|${b}|${i}|${platform}`);
            const usual = g.shuffle([...competitors, ...g.shuffle([...others]).slice(0, 6)]);
            plan.groups.push({
              brand: plan, promptId, promptText: text, platform, key: `${b}|${i}|${platform}`, order: 0,
              mentionChance: Math.min(0.9, Math.max(0.05, 0.4 + (g() - 0.5) * 0.7)),
              usualRank: 1 + Math.floor(Math.pow(g(), 1.6) * 6),
              itemCount: 3 + g.int(6),
              typicalBytes: TYPICAL_BYTES[platform]! * (0.7 + g() * 0.6),
              usual,
              favorites: [],
              sentimentBias: g() * 2 - 0.6,
              audience: g.pick(industry.audiences),
              feature: g.pick(industry.features),
            });
          }
        });
        world.shuffle(plan.groups).forEach((g, i) => (g.order = i));
        brands.push(plan);
      }
    })();
    const big = brands[0]!;

    // ---- the citation URL pool: ~3,000 URLs over ~400 domains, Zipf popularity ----
    const pr = rng(`${SEED}|urls`);
    const synthetic = ["review", "guide", "insider", "digest", "hub", "journal", "lab", "central", "weekly", "pro"];
    const domainList = [...KNOWN_DOMAINS];
    const rest = pr.shuffle([...allDomains].filter((d) => !KNOWN_DOMAINS.includes(d)));
    // The brands' own and competitors' sites rank among the mid-popular domains.
    for (const d of rest) domainList.splice(20 + pr.int(domainList.length - 19), 0, d);
    while (domainList.length < 400) {
      const d = `${pr.pick(["saas", "data", "growth", "tech", "smart", "daily", "the", "modern", "open", "cloud"])}${pr.pick(synthetic)}${pr.pick([".com", ".io", ".net", ".co"])}`;
      if (!domainList.includes(d)) domainList.push(d);
    }
    const domainWeights = domainList.map((_, k) => Math.pow(1 / (k + 1), 0.6));
    const weightSum = domainWeights.reduce((a, b) => a + b, 0);
    const pool: PoolUrl[] = [];
    const poolByDomain = new Map<string, number[]>();
    const topicWordsByDomain = new Map<string, string[]>();
    for (const plan of brands) {
      const words = plan.industry.topic.split(" ").concat(plan.industry.features.flatMap((f) => f.split(" "))).map((w) => w.toLowerCase().replace(/[^a-z0-9]/g, "")).filter(Boolean);
      topicWordsByDomain.set(plan.domain, words);
      for (const c of plan.competitors) topicWordsByDomain.set(c.domain, words);
    }
    const generalTopicWords = INDUSTRIES[0]!.topic.split(" ").concat(INDUSTRIES[0]!.features.flatMap((f) => f.split(" "))).map((w) => w.toLowerCase().replace(/[^a-z0-9]/g, ""));
    domainList.forEach((domain, k) => {
      const count = Math.max(2, Math.round((3000 * domainWeights[k]!) / weightSum));
      const seen = new Set<string>();
      const indexes: number[] = [];
      for (let i = 0; i < count; i++) {
        const { url, title } = makeUrl(pr, domain, topicWordsByDomain.get(domain) ?? generalTopicWords);
        if (seen.has(url)) continue;
        seen.add(url);
        const c = canonicalizeUrl(url);
        indexes.push(pool.length);
        pool.push({ url, normalized_url: c.normalized_url, domain: c.domain, host: c.host, title });
      }
      poolByDomain.set(domain, indexes);
    });
    const pickDomain = zipf(domainList.length, 1.0);
    const globalUrl = (r: Rng) => {
      const list = poolByDomain.get(domainList[pickDomain(r)]!)!;
      return list[Math.min(list.length - 1, Math.floor(Math.pow(r(), 2) * list.length))]!;
    };
    for (const plan of brands) {
      const own = [plan.domain, ...plan.competitors.map((c) => c.domain)].flatMap((d) => poolByDomain.get(d) ?? []);
      for (const g of plan.groups) {
        const r = rng(`${SEED}|favorites|${g.key}`);
        const fav = new Set<number>();
        while (fav.size < 12) fav.add(r() < 0.3 && own.length ? r.pick(own) : globalUrl(r));
        g.favorites = [...fav];
      }
    }

    // ---- the schedule: the big brand's 1,600 groups over `days` days, the others alike ----
    const bigTarget = Math.round(total * BIG_SHARE);
    const bigGroups = big.groups.length;
    const days = Math.ceil(bigTarget / bigGroups);
    const firstDayShare = (bigTarget - (days - 1) * bigGroups) / bigGroups;
    const firstResultDay = today - days * DAY_MS;
    log(`${scale}: ${days} days of results (first day ${(firstDayShare * 100).toFixed(0)} % of the groups), ${brands.reduce((s, b) => s + b.groups.length, 0)} groups, ${pool.length} URLs over ${domainList.length} domains`);

    const store = createResultStore(sqlite);
    const insertTraffic = sqlite.prepare(
      `INSERT INTO ai_traffic_logs (id, brand_id, url, path, referrer_host, source_platform, utm_source, visitor_hash, country, language, screen, user_agent_family, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let results = 0, bigResults = 0, citations = 0, answerBytes = 0, citationTextBytes = 0, trafficRows = 0, aiVisits = 0;
    const sample = { answers: 0, bytes: 0, each: 0, texts: [] as string[] };
    const sampleEvery = Math.max(7, Math.floor(total / 800));

    interface Pending {
      group: Group;
      at: number;
    }
    /** One result: the answer, its citations and sources, and the analysed fields that go with them. */
    function buildResult(p: Pending, dayIndex: number): ResultValues {
      const g = p.group;
      const plan = g.brand;
      const r = rng(`${SEED}|result|${g.key}|${dayIndex}`);
      // Who is listed today: the prompt's usual entities (a neighbour swapped now and then), the brand maybe.
      const count = Math.max(3, Math.min(9, g.itemCount + (r() < 0.25 ? r.int(3) - 1 : 0)));
      const listed = g.usual.slice(0, count);
      for (let i = 0; i + 1 < listed.length; i++) if (r() < 0.15) [listed[i], listed[i + 1]] = [listed[i + 1]!, listed[i]!];
      const mentioned = r() < g.mentionChance;
      if (mentioned) {
        listed.pop();
        const at = Math.max(0, Math.min(listed.length, g.usualRank - 1 + (r() < 0.3 ? r.int(3) - 1 : 0)));
        listed.splice(at, 0, { name: plan.name, domain: plan.domain, competitorId: null });
      }
      // Citations: 3–12, mostly from the prompt's usual pages.
      const n = Math.max(3, Math.min(12, Math.round(7 + (r() + r() + r() - 1.5) * 4)));
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(r() < 0.6 ? r.pick(g.favorites) : globalUrl(r));
      const ownDomains = new Set([plan.domain, `docs.${plan.domain}`]);
      const competitorByDomain = new Map(plan.competitors.map((c) => [c.domain, c.competitorId]));
      const cites: Citation[] = [...chosen].map((k, i) => {
        const u = pool[k]!;
        return {
          position: i + 1, url: u.url, normalized_url: u.normalized_url, domain: u.domain, host: u.host, title: u.title,
          is_brand: u.domain !== null && ownDomains.has(u.domain), competitor_id: (u.domain && competitorByDomain.get(u.domain)) ?? null,
        };
      });
      const uncited: (Citation & { cited: boolean })[] = [];
      for (let i = 0, extra = r.int(5); i < extra; i++) {
        const k = globalUrl(r);
        if (chosen.has(k)) continue;
        chosen.add(k);
        const u = pool[k]!;
        uncited.push({ position: n + uncited.length + 1, url: u.url, normalized_url: u.normalized_url, domain: u.domain, host: u.host, title: u.title, is_brand: u.domain !== null && ownDomains.has(u.domain), competitor_id: (u.domain && competitorByDomain.get(u.domain)) ?? null, cited: false });
      }
      const sources: AnswerSource[] = cites.map((c) => ({ url: c.url, title: c.title ?? "", domain: c.domain ?? "" }));
      const targetBytes = Math.max(2000, Math.min(8000, g.typicalBytes * (0.85 + r() * 0.3)));
      const entities: AnswerEntity[] = listed.map((e) => ({ name: e.name, domain: e.domain }));
      const text = compose(
        { promptKey: `${SEED}|${g.key}`, platform: g.platform, topic: plan.industry.topic, audience: g.audience, year, entities, sources, targetBytes },
        r,
      );
      // The analysis, read off the text: where each listed name first appears, how often the brand does.
      const firsts = listed.map((e) => ({ e, at: text.indexOf(e.name) })).filter((x) => x.at >= 0).sort((a, b) => a.at - b.at);
      const brandFirst = text.indexOf(plan.name);
      let mentionCount = 0;
      for (let at = brandFirst; at >= 0; at = text.indexOf(plan.name, at + plan.name.length)) mentionCount++;
      const position = brandFirst >= 0 ? 1 + firsts.filter((x) => x.at < brandFirst).length : null;
      const competitorMentions = firsts
        .filter((x) => x.e.competitorId)
        .map((x) => {
          let c = 0;
          for (let at = x.at; at >= 0; at = text.indexOf(x.e.name, at + x.e.name.length)) c++;
          return { competitor_id: x.e.competitorId, name: x.e.name, mention_count: c, position: 1 + firsts.indexOf(x) };
        });
      let sentiment: string | null = null;
      let sentimentScore: number | null = null;
      let passage: string | null = null;
      if (brandFirst >= 0) {
        const s = g.sentimentBias + (r() - 0.5) * 1.2;
        sentiment = s > 0.25 ? "positive" : s < -0.35 ? "negative" : "neutral";
        sentimentScore = Math.round(Math.max(-1, Math.min(1, s * 0.8)) * 1000) / 1000;
        const start = Math.max(0, text.lastIndexOf(". ", brandFirst) + 2);
        const end = text.indexOf(". ", brandFirst);
        passage = text.slice(start, end < 0 ? Math.min(text.length, brandFirst + 240) : Math.min(end + 1, start + 400));
      }
      const listRank = mentioned ? listed.findIndex((e) => e.name === plan.name) + 1 : null;
      const words = text.split(/\s+/).length;
      const visibility = position === null ? 0 : Math.round(Math.max(5, Math.min(100, 100 - (position - 1) * 13 + (r() - 0.5) * 16)) * 10) / 10;
      const queries = [g.promptText.replace(/\?$/, "").toLowerCase(), `${plan.industry.topic} ${g.audience} ${year}`, `${listed[0]!.name} ${g.feature}`].slice(0, 1 + r.int(3));
      const citationsJson = JSON.stringify(cites);
      const textBytes = Buffer.byteLength(text);
      answerBytes += textBytes;
      if (results % sampleEvery === 0 && sample.bytes < 4_000_000) {
        sample.answers++;
        sample.bytes += textBytes;
        sample.each += Bun.zstdCompressSync(text, { level: 3 }).length;
        sample.texts.push(text);
      }
      for (const c of cites) citationTextBytes += Buffer.byteLength(c.url) + Buffer.byteLength(c.title ?? "");
      citations += cites.length;
      return {
        surface: SERP_PLATFORMS.has(g.platform as PlatformId) ? "serp" : "api",
        response: text,
        mentioned: brandFirst >= 0 ? 1 : 0,
        mention_count: mentionCount,
        mention_position: position,
        competitor_mentions: JSON.stringify(competitorMentions),
        citations: citationsJson,
        citation_count: cites.length,
        brand_citation_count: cites.filter((c) => c.is_brand).length,
        sources: JSON.stringify([...cites.map((c) => ({ ...c, cited: true })), ...uncited]),
        source_count: cites.length + uncited.length,
        sentiment,
        sentiment_score: sentimentScore,
        visibility_score: visibility,
        search_queries: JSON.stringify(queries),
        reported_model: MODEL[g.platform],
        details: JSON.stringify({
          reported_model: MODEL[g.platform],
          first_mention_offset: brandFirst >= 0 ? brandFirst : null,
          list_rank: listRank,
          position_adjusted_word_count: brandFirst >= 0 ? Math.round((words / Math.max(1, listed.length)) * (1 / (position ?? 1))) : 0,
          word_count_share: brandFirst >= 0 ? Math.round((1 / Math.max(1, listed.length)) * 1000) / 1000 : 0,
          sentiment_passages: passage ? [passage] : [],
          sentiment_source: "lexicon",
          lexicon_sentiment_score: sentimentScore,
        }),
      };
    }

    // ---- traffic: AI visits = the scale's result count over the last 365 days, +30 % of rows other page views ----
    const tr = rng(`${SEED}|traffic`);
    const trafficDays = 365;
    const nullRows = Math.round((total * 3) / 7);
    const dayWeights = Array.from({ length: trafficDays }, (_, d) => {
      const weekday = new Date(today - (trafficDays - d) * DAY_MS).getUTCDay();
      return (0.35 + 0.65 * Math.pow(d / (trafficDays - 1), 1.3)) * (weekday === 0 || weekday === 6 ? 0.72 : 1) * (1 + 0.1 * Math.sin(d / 9));
    });
    const split = (n: number) => {
      const sum = dayWeights.reduce((a, b) => a + b, 0);
      const raw = dayWeights.map((w) => (n * w) / sum);
      const out = raw.map(Math.floor);
      const left = n - out.reduce((a, b) => a + b, 0);
      raw.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]).slice(0, left).forEach(([, i]) => out[i]!++);
      return out;
    };
    const aiPerDay = split(total);
    const otherPerDay = split(nullRows);
    const paths = ["/", "/pricing", "/features", "/integrations", "/customers", "/docs", "/blog", "/about", "/contact", "/signup", "/demo", "/security"];
    const pathWords = INDUSTRIES[0]!.features.map((f) => f.toLowerCase().replace(/[^a-z0-9]+/g, "-"));
    while (paths.length < 200) {
      const kind = tr.pick(["/blog/", "/docs/", "/features/", "/compare/", "/use-cases/", "/guides/"]);
      const p = kind === "/compare/" ? `/compare/northwind-vs-${tr.pick(bigCompetitorNames).toLowerCase().replace(/\s+/g, "-")}` : `${kind}${slugWords(tr, pathWords, 2 + tr.int(5)).join("-")}`;
      if (!paths.includes(p)) paths.push(p);
    }
    const pickPath = zipf(paths.length, 1.1);
    const aiSources: [string, string, string | null, number][] = [
      ["ChatGPT", "chatgpt.com", "chatgpt.com", 0.55], ["Perplexity", "perplexity.ai", null, 0.14], ["Gemini", "gemini.google.com", null, 0.1], ["Claude", "claude.ai", null, 0.07],
      ["Copilot", "copilot.microsoft.com", null, 0.06], ["Grok", "grok.com", null, 0.03], ["Deepseek", "chat.deepseek.com", null, 0.02], ["Meta AI", "meta.ai", null, 0.015], ["You", "you.com", null, 0.01],
    ];
    const pickAi = weighted(aiSources.map((s) => [s, s[3]] as const));
    const pickOther = weighted<string | null>([[null, 0.45], ["google.com", 0.3], ["bing.com", 0.06], ["duckduckgo.com", 0.04], ["linkedin.com", 0.05], ["news.ycombinator.com", 0.03], ["t.co", 0.04], ["reddit.com", 0.03]]);
    const pickVisits = weighted([[1, 0.55], [2, 0.2], [3, 0.12], [4, 0.08], [5, 0.05]] as const);
    const pickLanguage = weighted([["en-US", 0.62], ["en-GB", 0.1], ["de-DE", 0.07], ["fr-FR", 0.06], ["es-ES", 0.05], ["pt-BR", 0.04], ["ja-JP", 0.03], ["nl-NL", 0.03]] as const);
    const pickScreen = weighted([["1920x1080", 0.3], ["1440x900", 0.12], ["1536x864", 0.1], ["2560x1440", 0.08], ["390x844", 0.16], ["414x896", 0.1], ["1366x768", 0.08], ["360x800", 0.06]] as const);
    const pickFamily = weighted([["Chrome", 0.45], ["Safari", 0.14], ["Mobile Safari", 0.16], ["Edge", 0.1], ["Firefox", 0.06], ["Chrome Mobile", 0.07], ["Samsung Internet", 0.02]] as const);

    function trafficOfDay(d: number): unknown[][] {
      const dayStart = today - (trafficDays - d) * DAY_MS;
      const rows: unknown[][] = [];
      const visitors = (count: number, ai: boolean) => {
        while (count > 0) {
          const k = Math.min(count, pickVisits(tr));
          count -= k;
          const hash = tr.hex(32);
          const source = ai ? pickAi(tr) : null;
          const referrer = ai ? source![1] : pickOther(tr);
          const language = pickLanguage(tr), screen = pickScreen(tr), family = pickFamily(tr);
          let at = dayStart + tr.int(DAY_MS - 3 * 3_600_000);
          for (let v = 0; v < k; v++) {
            const path = paths[pickPath(tr)]!;
            const utm = ai && source![2] && tr() < 0.45 ? source![2] : null;
            rows.push([
              Bun.randomUUIDv7("hex", at), big.id, `https://${big.domain}${path}${utm ? `?utm_source=${utm}` : ""}`, path, referrer, ai ? source![0] : null, utm,
              hash, null, language, screen, family, new Date(at).toISOString(),
            ]);
            at += 20_000 + tr.int(40 * 60_000);
          }
        }
      };
      visitors(aiPerDay[d]!, true);
      visitors(otherPerDay[d]!, false);
      aiVisits += aiPerDay[d]!;
      rows.sort((a, b) => (a[12]! < b[12]! ? -1 : 1));
      return rows;
    }

    // ---- write day by day, oldest first, in transactions of RESULTS_PER_TRANSACTION results ----
    let pendingResults: { key: Parameters<typeof store.insert>[0]; values: ResultValues }[] = [];
    let pendingTraffic: unknown[][] = [];
    const writeResults = sqlite.transaction((batch: typeof pendingResults) => {
      for (const { key, values } of batch) if (!store.insert(key, values)) throw new Error(`result ${key.id} was not inserted`);
    });
    const writeTraffic = sqlite.transaction((rows: unknown[][]) => {
      for (const row of rows) insertTraffic.run(...(row as [string]));
    });
    const flushResults = () => {
      if (pendingResults.length) writeResults(pendingResults);
      pendingResults = [];
    };
    const flushTraffic = () => {
      if (pendingTraffic.length) writeTraffic(pendingTraffic);
      trafficRows += pendingTraffic.length;
      pendingTraffic = [];
    };
    let lastLog = performance.now();
    const firstTrafficDay = today - trafficDays * DAY_MS;
    const lastDay = today - DAY_MS;
    for (let dayStart = Math.min(firstTrafficDay, firstResultDay); dayStart <= lastDay; dayStart += DAY_MS) {
      const trafficIndex = Math.round((dayStart - firstTrafficDay) / DAY_MS);
      if (trafficIndex >= 0 && trafficIndex < trafficDays) {
        pendingTraffic.push(...trafficOfDay(trafficIndex));
        if (pendingTraffic.length >= TRAFFIC_PER_TRANSACTION) flushTraffic();
      }
      const dayIndex = Math.round((dayStart - firstResultDay) / DAY_MS);
      if (dayIndex < 0 || dayIndex >= days) continue;
      const sr = rng(`${SEED}|schedule|${dayIndex}`);
      const due: Pending[] = [];
      for (const plan of brands) {
        const n = dayIndex === 0 ? Math.round(plan.groups.length * firstDayShare) : plan.groups.length;
        for (const g of plan.groups) {
          if (g.order >= n) continue;
          // The brand's daily run: groups spread over about two hours from its start, a few minutes' jitter.
          const minute = plan.runMinute + (g.order / plan.groups.length) * 120 + sr() * 10;
          due.push({ group: g, at: dayStart + Math.min(DAY_MS - 1000, Math.floor(minute * 60_000 + sr() * 60_000)) });
        }
      }
      due.sort((a, b) => a.at - b.at);
      for (const p of due) {
        const values = buildResult(p, dayIndex);
        pendingResults.push({
          key: {
            id: Bun.randomUUIDv7("hex", p.at), jobId: null, brandId: p.group.brand.id, promptId: p.group.promptId, platform: p.group.platform,
            model: MODEL[p.group.platform]!, region: "US", createdAt: new Date(p.at).toISOString(),
          },
          values,
        });
        results++;
        if (p.group.brand === big) bigResults++;
        if (pendingResults.length >= RESULTS_PER_TRANSACTION) {
          flushResults();
          if (performance.now() - lastLog > 30_000) {
            lastLog = performance.now();
            const elapsed = (performance.now() - t0) / 1000;
            const expected = total;
            log(`${scale}: ${results.toLocaleString("en")} results (${((100 * results) / expected).toFixed(0)} %), ${trafficRows.toLocaleString("en")} traffic rows, ${elapsed.toFixed(0)} s, about ${((elapsed / results) * (expected - results)).toFixed(0)} s to go`);
          }
        }
      }
    }
    flushResults();
    flushTraffic();
    // The server's storage upkeep within its first hour: answers repacked with their brand's
    // dictionaries (issue #32), timed here without the pauses the server takes between steps.
    const packStarted = performance.now();
    const { packed } = await packRowsWithDictionaries(createSqliteStorageStore(sqlite));
    const dictionaryPackSeconds = (performance.now() - packStarted) / 1000;
    log(`${scale}: ${packed.toLocaleString("en")} answers repacked with their brand's dictionaries in ${dictionaryPackSeconds.toFixed(0)} s`);
    sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");

    const meta: ScaleMeta = {
      key, scale, generatedAt: new Date().toISOString(), generationSeconds: 0, dictionaryPackSeconds, email, password, userId, organizationId,
      bigBrandId: big.id, bigBrandName: big.name, bigBrandGroups: big.groups.length, bigBrandChatgptGroups: big.groups.filter((g) => g.platform === "chatgpt").length,
      days, results, bigBrandResults: bigResults, citations, trafficRows, aiVisits,
      plainTextBytes: answerBytes + citationTextBytes, answerBytes, citationTextBytes,
      corpus: { sources: corpus.map((s) => ({ name: s.name, texts: s.texts.length, chars: s.texts.reduce((a, t) => a + t.length, 0) })), words: chain.totalWords, vocabulary: chain.vocabulary },
      textSample: {
        answers: sample.answers,
        bytes: sample.bytes,
        zstd3Each: sample.each / sample.bytes,
        zstd19Together: Bun.zstdCompressSync(sample.texts.join("\n"), { level: 19 }).length / sample.bytes,
      },
    };
    return meta;
  } finally {
    dbh.close();
    lock.release();
  }
}

/** Writes the meta file last: a cache entry without one is incomplete and is generated again. */
export function writeMeta(dir: string, meta: ScaleMeta): void {
  writeFileSync(join(dir, "scale-meta.json"), JSON.stringify(meta, null, 2) + "\n");
}
