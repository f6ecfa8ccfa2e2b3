// The demo's own data set: a fictional brand, its fictional competitors, topics and prompts, and the
// pieces its sample answers are written from (src/demo/answers.ts puts them together). Every name
// and domain of a company here is invented; the domains end in .example (RFC 2606), so nothing real
// is named. The third-party sites the answers cite (reddit.com, g2.com, wikipedia.org, …) are real
// sites with invented pages. None of these answers was produced by an AI engine.

export interface DemoEntity {
  key: string;
  name: string;
  domain: string;
  aliases: string[];
}

export const BRAND = {
  name: "Lumenly",
  slug: "lumenly",
  domain: "lumenly.example",
  aliases: ["Lumenly Analytics"],
  industry: "customer analytics software",
  region: "US",
  language: "en",
  description:
    "Fictional brand of the answerwatch demo. Its AI answers are sample answers written for the demo and served by a local fake upstream — not answers recorded from real AI engines.",
} as const;

export const COMPETITORS: DemoEntity[] = [
  { key: "quantora", name: "Quantora", domain: "quantora.example", aliases: ["Quantora Analytics"] },
  { key: "trailmetric", name: "Trailmetric", domain: "trailmetric.example", aliases: ["Trailmetric Cloud"] },
  { key: "cohorta", name: "Cohorta", domain: "cohorta.example", aliases: ["Cohorta Retention"] },
  { key: "insightra", name: "Insightra", domain: "insightra.example", aliases: ["Insightra Suite"] },
];

export type CompetitorKey = "quantora" | "trailmetric" | "cohorta" | "insightra";
export type EntityKey = "brand" | CompetitorKey;

export const TOPICS = [
  { key: "choosing", name: "Choosing a customer analytics tool" },
  { key: "retention", name: "Churn and retention" },
  { key: "reviews", name: "Pricing, reviews and comparisons" },
] as const;
export type TopicKey = (typeof TOPICS)[number]["key"];

export const PROMPT_SET_NAME = "Demo prompts (sample answers written for the demo, not recorded)";

/** The platforms the demo answers for, each in its provider's own wire format. */
export const DEMO_PLATFORMS = ["chatgpt", "claude", "perplexity", "gemini"] as const;
export type DemoPlatform = (typeof DEMO_PLATFORMS)[number];

// ---- sources -------------------------------------------------------------------------------------

export interface DemoSource {
  url: string;
  title: string;
  /** What cited text an engine quotes from it (Claude's cited_text). */
  snippet: string;
}

const src = (url: string, title: string, snippet: string): DemoSource => ({ url, title, snippet });

/** The brand's own pages. */
export const OWN_SOURCES: Record<string, DemoSource> = {
  product: src("https://lumenly.example/product/customer-analytics", "Customer analytics for B2B teams | Lumenly", "Lumenly ties product usage to accounts and shows which customers are at risk."),
  pricing: src("https://lumenly.example/pricing", "Pricing | Lumenly", "Plans are priced by tracked accounts, with a 14-day trial."),
  churn: src("https://lumenly.example/blog/predicting-churn-from-usage-data", "How to predict churn from product usage data | Lumenly Blog", "Start with a baseline of active days, feature breadth and seat utilisation."),
  health: src("https://docs.lumenly.example/guides/health-scores", "Build a customer health score | Lumenly Docs", "A health score combines usage, support and billing signals per account."),
  integrations: src("https://docs.lumenly.example/integrations/crm-and-warehouse", "CRM and warehouse integrations | Lumenly Docs", "Two-way sync with CRMs and warehouse tables, updated hourly."),
  customers: src("https://lumenly.example/customers", "Customer stories | Lumenly", "How mid-size SaaS teams cut churn with account-level analytics."),
};

/** Each competitor's own pages. */
export const COMPETITOR_SOURCES: Record<CompetitorKey, DemoSource[]> = {
  quantora: [
    src("https://quantora.example/product/funnels", "Funnels and path analysis | Quantora", "Find where users drop off with multi-step funnels."),
    src("https://quantora.example/compare/quantora-vs-lumenly", "Quantora vs Lumenly: an honest comparison | Quantora", "Quantora offers deeper event analysis; Lumenly focuses on accounts."),
    src("https://quantora.example/blog/feature-adoption-metrics", "The feature adoption metrics that matter | Quantora Blog", "Adoption rate, time to adopt and stickiness per feature."),
  ],
  trailmetric: [
    src("https://trailmetric.example/pricing", "Simple pricing | Trailmetric", "A free plan for small sites and flat monthly plans after that."),
    src("https://trailmetric.example/blog/best-customer-analytics-tools", "The best customer analytics tools, compared | Trailmetric Blog", "We compared the most popular tools on setup time and price."),
    src("https://trailmetric.example/docs/install", "Install in five minutes | Trailmetric Docs", "Paste one script tag; no engineering work required."),
  ],
  cohorta: [
    src("https://cohorta.example/retention-analytics", "Retention analytics for subscription businesses | Cohorta", "Cohorts, churn and MRR movements in one view."),
    src("https://cohorta.example/guides/customer-health-score", "The complete guide to customer health scores | Cohorta", "Weight usage, sentiment and billing signals by their link to renewal."),
  ],
  insightra: [
    src("https://insightra.example/platform/warehouse-native", "Warehouse-native customer analytics | Insightra", "Model customer data where it already lives."),
    src("https://insightra.example/integrations", "300+ integrations | Insightra", "Connectors for CRMs, support desks and billing systems."),
  ],
};

/** Third-party pages (real sites, invented pages), by the kind of site they are. */
export const THIRD_PARTY: Record<"forum" | "review" | "reference" | "guide", DemoSource[]> = {
  forum: [
    src("https://www.reddit.com/r/analytics/comments/1k7qz2m/which_customer_analytics_tool_do_you_actually_use/", "Which customer analytics tool do you actually use? : r/analytics", "We moved off spreadsheets last year and tried three tools."),
    src("https://www.reddit.com/r/SaaS/comments/1kb3x9d/lumenly_raised_prices_again/", "Lumenly raised prices again? : r/SaaS", "Our renewal quote went up 30% with no new features we use."),
    src("https://www.reddit.com/r/CustomerSuccess/comments/1kd0a4f/how_do_you_build_health_scores/", "How do you build health scores? : r/CustomerSuccess", "Usage alone was a poor predictor for us until we added support tickets."),
    src("https://news.ycombinator.com/item?id=43981207", "Ask HN: Product analytics without a data team? | Hacker News", "Whatever you pick, make sure you can export raw events."),
  ],
  review: [
    src("https://www.g2.com/categories/customer-analytics", "Best Customer Analytics Software: user reviews | G2", "Top-rated customer analytics products by satisfaction and market presence."),
    src("https://www.g2.com/products/lumenly/reviews", "Lumenly reviews | G2", "Users like the onboarding and dashboards; some mention price increases."),
    src("https://www.capterra.com/customer-analytics-software/", "Customer analytics software: compare top tools | Capterra", "Compare pricing, features and reviews of customer analytics tools."),
    src("https://www.trustradius.com/customer-analytics", "Customer analytics tools: reviews and ratings | TrustRadius", "Verified reviews from B2B software buyers."),
  ],
  reference: [
    src("https://en.wikipedia.org/wiki/Customer_analytics", "Customer analytics - Wikipedia", "Customer analytics is a process by which data from customer behavior is used to help make key business decisions."),
    src("https://en.wikipedia.org/wiki/Churn_rate", "Churn rate - Wikipedia", "Churn rate is a measure of the proportion of individuals or items moving out of a group over a period."),
    src("https://en.wikipedia.org/wiki/Cohort_analysis", "Cohort analysis - Wikipedia", "Cohort analysis breaks data into related groups before analysis."),
  ],
  guide: [
    src("https://medium.com/@product-ops/feature-adoption-without-the-guesswork-5c1f0e7d2a41", "Feature adoption without the guesswork | Medium", "Measure adoption per account, not only per user."),
    src("https://saasmetrics.example/guides/customer-health-score", "Customer health scores, step by step | SaaS Metrics Guide", "Pick three to five signals and validate them against past renewals."),
    src("https://saasmetrics.example/reports/customer-analytics-pricing", "What customer analytics tools really cost | SaaS Metrics Guide", "Per-event pricing grows fastest; per-account pricing suits B2B."),
  ],
};

// ---- what the answers say about each company ----------------------------------------------------

/** One-line descriptions for list entries (after "**Name** — "). Neutral in tone. */
export const DESCRIPTIONS: Record<EntityKey, string[]> = {
  brand: [
    "a customer analytics platform that ties product usage to accounts, with ready-made retention and churn-risk reports.",
    "combines event tracking with account-level health scores, so customer success teams can see which accounts are slipping.",
    "no-code event setup and a visual journey builder; a good fit when there is no dedicated data team.",
    "cohort and retention dashboards with a two-way sync to CRMs and data warehouses.",
  ],
  quantora: [
    "event-based product analytics with deep funnel and path analysis, popular with larger product teams.",
    "the most feature-rich option here, though setup usually needs an engineer.",
    "strong feature adoption and experiment reporting alongside classic product analytics.",
  ],
  trailmetric: [
    "lightweight analytics that installs with one script tag and needs very little configuration.",
    "simple, flat-priced plans aimed at small teams and startups.",
    "clean self-serve dashboards, with fewer account-level features than the others.",
  ],
  cohorta: [
    "specialises in cohort, retention and subscription revenue analysis.",
    "built for subscription businesses: churn, expansion and MRR reporting in one place.",
    "customer health scoring and playbooks for customer success teams.",
  ],
  insightra: [
    "an enterprise suite that bundles customer analytics with BI and data governance.",
    "warehouse-native modelling for teams with analysts on staff.",
    "broad CRM and billing integrations, with quote-only pricing aimed at large companies.",
  ],
};

/** Sentences about the brand alone, by the tone the demo wants them to carry. */
export const BRAND_SENTENCES: Record<"positive" | "neutral" | "negative", string[]> = {
  positive: [
    "Reviewers consistently praise Lumenly for its fast onboarding and clear, helpful dashboards.",
    "Users often describe Lumenly as easy to set up and excellent for retention analysis.",
    "Lumenly's churn-risk scoring is a standout, and customers say its support team is responsive and friendly.",
    "Teams that switched to Lumenly report that it saved their analysts hours every week.",
  ],
  neutral: [
    "Lumenly prices by tracked accounts rather than by events, which suits B2B teams with fewer, larger customers.",
    "Lumenly offers a 14-day trial, and its plans are billed monthly or annually.",
    "Lumenly syncs account data to CRMs and warehouses on an hourly schedule.",
  ],
  negative: [
    "Some users complain that Lumenly gets expensive quickly as the number of accounts grows, and a few report slow support.",
    "Several threads criticize Lumenly's recent price increase and call its data export limited and frustrating.",
    "Reviewers note that Lumenly's reports can feel rigid, and some found its warehouse sync unreliable.",
    "A recurring complaint is that Lumenly's support is slow to answer and its pricing page is confusing.",
  ],
};

// ---- prompts ----------------------------------------------------------------------------------------

export type AnswerKind = "list" | "howto" | "review" | "comparison";

export interface DemoPrompt {
  key: string;
  text: string;
  topic: TopicKey;
  kind: AnswerKind;
  /** How readily engines bring the brand up for this question (non-branded prompts); 1 = as the platform does on average. */
  affinity: number;
  /** How readily each competitor comes up. */
  competitors: Partial<Record<CompetitorKey, number>>;
  /** Openings; `howto` prompts also have the steps that follow. */
  intros: string[];
  steps?: string[];
  /** Closings; {top} and {second} are the first two entries of the list. */
  outros: string[];
  /** Queries an engine searches for this question (fan-out). */
  queries: string[];
  /** Own pages that fit the question. */
  ownPages: (keyof typeof OWN_SOURCES)[];
  /** Third-party pages that fit the question (URLs of THIRD_PARTY entries). */
  references: string[];
}

const WIKI_ANALYTICS = "https://en.wikipedia.org/wiki/Customer_analytics";
const WIKI_CHURN = "https://en.wikipedia.org/wiki/Churn_rate";
const WIKI_COHORT = "https://en.wikipedia.org/wiki/Cohort_analysis";
const G2_CATEGORY = "https://www.g2.com/categories/customer-analytics";
const G2_BRAND = "https://www.g2.com/products/lumenly/reviews";
const CAPTERRA = "https://www.capterra.com/customer-analytics-software/";
const TRUSTRADIUS = "https://www.trustradius.com/customer-analytics";
const REDDIT_TOOLS = "https://www.reddit.com/r/analytics/comments/1k7qz2m/which_customer_analytics_tool_do_you_actually_use/";
const REDDIT_PRICES = "https://www.reddit.com/r/SaaS/comments/1kb3x9d/lumenly_raised_prices_again/";
const REDDIT_HEALTH = "https://www.reddit.com/r/CustomerSuccess/comments/1kd0a4f/how_do_you_build_health_scores/";
const HN = "https://news.ycombinator.com/item?id=43981207";
const MEDIUM_ADOPTION = "https://medium.com/@product-ops/feature-adoption-without-the-guesswork-5c1f0e7d2a41";
const GUIDE_HEALTH = "https://saasmetrics.example/guides/customer-health-score";
const GUIDE_PRICING = "https://saasmetrics.example/reports/customer-analytics-pricing";

export const PROMPTS: DemoPrompt[] = [
  {
    key: "best-b2b",
    text: "What is the best customer analytics software for a B2B SaaS startup?",
    topic: "choosing",
    kind: "list",
    affinity: 1.1,
    competitors: { quantora: 0.8, trailmetric: 0.6, cohorta: 0.5, insightra: 0.3 },
    intros: [
      "For a B2B SaaS startup the right tool depends on whether you need account-level reporting or only product usage. The options that come up most often are:",
      "Here are the customer analytics tools most often recommended for early-stage B2B SaaS companies:",
      "Startups usually want quick setup, account-level views and pricing that grows with them. Good candidates:",
    ],
    outros: [
      "If you need account health and churn signals early, start with {top}; teams that mostly care about funnels tend to pick {second}.",
      "Most teams trial two of these side by side for a couple of weeks before committing; {top} is the usual first pick.",
    ],
    queries: ["best customer analytics software b2b saas startup", "customer analytics tools comparison for startups", "account level product analytics b2b"],
    ownPages: ["product", "customers"],
    references: [G2_CATEGORY, WIKI_ANALYTICS, REDDIT_TOOLS, CAPTERRA],
  },
  {
    key: "no-engineers",
    text: "Which product analytics tools are easiest to set up without engineers?",
    topic: "choosing",
    kind: "list",
    affinity: 0.9,
    competitors: { trailmetric: 0.9, quantora: 0.5, cohorta: 0.3, insightra: 0.2 },
    intros: [
      "If nobody on the team writes code, look for tools with a script-tag install and a visual event editor. These are the easiest to get running:",
      "The tools below can be installed and configured by a marketer or product manager in an afternoon:",
    ],
    outros: [
      "{top} is the quickest to get value from; check that you can still export raw events later.",
      "Start with {top} and revisit the choice once you have a few months of data.",
    ],
    queries: ["no code product analytics setup", "product analytics tools easy setup without developers", "visual event tracking tool"],
    ownPages: ["product"],
    references: [HN, CAPTERRA, REDDIT_TOOLS],
  },
  {
    key: "customer-journey",
    text: "What are good tools for tracking the full customer journey across web and app?",
    topic: "choosing",
    kind: "list",
    affinity: 0.8,
    competitors: { quantora: 0.7, insightra: 0.5, trailmetric: 0.5, cohorta: 0.2 },
    intros: [
      "Tracking a journey across web and app needs identity resolution, so that one person is one profile on every device. Tools that do this well:",
      "For cross-device customer journeys, these platforms are the ones most teams shortlist:",
    ],
    outros: [
      "Whichever you choose, decide on one user identifier early; {top} makes that step easiest.",
      "For most teams {top} covers the journey end to end, with {second} as the runner-up.",
    ],
    queries: ["customer journey analytics web and mobile app", "cross device customer journey tracking tool", "identity resolution analytics"],
    ownPages: ["product"],
    references: [WIKI_ANALYTICS, G2_CATEGORY, TRUSTRADIUS],
  },
  {
    key: "crm-warehouse",
    text: "Which customer analytics platforms integrate well with a CRM and a data warehouse?",
    topic: "choosing",
    kind: "list",
    affinity: 0.8,
    competitors: { insightra: 0.9, quantora: 0.6, cohorta: 0.3, trailmetric: 0.2 },
    intros: [
      "Good CRM and warehouse integration means two-way sync: usage flows into the CRM and account data flows back. Platforms that do this well:",
      "If your source of truth is a warehouse and your sales team lives in a CRM, these are the platforms to look at:",
    ],
    outros: [
      "Ask each vendor how often the sync runs; {top} and {second} both document it clearly.",
      "{top} is the safest choice when the warehouse is the source of truth.",
    ],
    queries: ["customer analytics crm integration data warehouse sync", "warehouse native customer analytics", "reverse etl customer analytics crm"],
    ownPages: ["integrations"],
    references: [TRUSTRADIUS, G2_CATEGORY, WIKI_ANALYTICS],
  },
  {
    key: "predict-churn",
    text: "How can I predict customer churn from product usage data?",
    topic: "retention",
    kind: "howto",
    affinity: 0.7,
    competitors: { cohorta: 0.8, quantora: 0.4, insightra: 0.3 },
    intros: [
      "Churn prediction works best when you start simple and validate against customers who actually left.",
      "You can get a useful churn model from usage data alone, as long as you define churn precisely first.",
    ],
    steps: [
      "Define churn for your business (cancelled, not renewed, or inactive for 30 days) and label past accounts.",
      "Build features per account: active days, breadth of features used, seats used versus seats bought, and the trend of each.",
      "Fit a simple model such as logistic regression first and check it against the last two quarters of renewals.",
      "Turn the score into actions: alert the account owner when a healthy account drops below the threshold.",
    ],
    outros: ["Tools can save you most of this work if you do not have a data team:", "If you would rather not build it yourself, several tools score churn risk out of the box:"],
    queries: ["predict customer churn product usage data", "churn prediction model saas usage features", "churn risk score tools"],
    ownPages: ["churn"],
    references: [WIKI_CHURN, REDDIT_HEALTH, GUIDE_HEALTH],
  },
  {
    key: "cohort-retention",
    text: "What tools help with cohort analysis and retention reporting?",
    topic: "retention",
    kind: "list",
    affinity: 1.0,
    competitors: { cohorta: 0.9, quantora: 0.6, trailmetric: 0.3, insightra: 0.2 },
    intros: [
      "Cohort analysis groups customers by when they started and follows how many stay. These tools make it easy:",
      "For retention curves and cohort tables without writing SQL, the common choices are:",
    ],
    outros: ["For subscription revenue cohorts {top} is the most complete; {second} is stronger on product usage.", "{top} is the usual recommendation for retention reporting."],
    queries: ["cohort analysis retention reporting tools", "retention curve cohort table software", "subscription retention analytics"],
    ownPages: ["product", "customers"],
    references: [WIKI_COHORT, G2_CATEGORY, REDDIT_TOOLS],
  },
  {
    key: "health-score",
    text: "How do I build a customer health score for a subscription business?",
    topic: "retention",
    kind: "howto",
    affinity: 0.7,
    competitors: { cohorta: 0.7, insightra: 0.4, quantora: 0.2 },
    intros: [
      "A customer health score combines a few signals into one number per account that predicts renewal.",
      "Health scores are most useful when they are simple, explainable and checked against real renewals.",
    ],
    steps: [
      "Pick three to five signals: product usage, support tickets, billing issues and engagement with your team.",
      "Weight each signal by how strongly it moved with renewals in the past year.",
      "Bucket accounts into healthy, at risk and critical, and review the thresholds every quarter.",
      "Share the score where customer success works every day, usually the CRM.",
    ],
    outros: ["Tools that calculate health scores for you:", "Several platforms build and maintain the score for you:"],
    queries: ["build customer health score subscription", "customer health score signals weights", "customer success health score software"],
    ownPages: ["health"],
    references: [GUIDE_HEALTH, REDDIT_HEALTH, WIKI_CHURN],
  },
  {
    key: "feature-adoption",
    text: "Which analytics tool is best for measuring feature adoption?",
    topic: "retention",
    kind: "list",
    affinity: 0.9,
    competitors: { quantora: 0.9, trailmetric: 0.4, cohorta: 0.2, insightra: 0.2 },
    intros: [
      "Feature adoption is best measured per account as well as per user, with time to adopt and repeat use. Tools that report it well:",
      "These analytics tools have dedicated feature adoption reports:",
    ],
    outros: ["{top} has the most detailed adoption reports; {second} is simpler to run.", "Most product teams pick {top} for adoption tracking."],
    queries: ["best tool to measure feature adoption", "feature adoption metrics analytics software", "feature usage tracking per account"],
    ownPages: ["product"],
    references: [MEDIUM_ADOPTION, G2_CATEGORY, HN],
  },
  {
    key: "worth-it",
    text: "Is Lumenly worth it for a 50-person company?",
    topic: "reviews",
    kind: "review",
    affinity: 1,
    competitors: { trailmetric: 0.6, cohorta: 0.5, quantora: 0.4 },
    intros: [
      "Lumenly is a customer analytics platform built around accounts rather than individual users.",
      "Lumenly focuses on account-level customer analytics for B2B software companies.",
    ],
    outros: ["Alternatives worth comparing before you decide:", "If you are still unsure, compare it with:"],
    queries: ["Lumenly review 50 employees", "Lumenly pricing small company", "is Lumenly worth it"],
    ownPages: ["pricing", "customers"],
    references: [G2_BRAND, REDDIT_PRICES, CAPTERRA],
  },
  {
    key: "vs-quantora",
    text: "Lumenly vs Quantora: which is better for customer analytics?",
    topic: "reviews",
    kind: "comparison",
    affinity: 1,
    competitors: { quantora: 1, cohorta: 0.2 },
    intros: ["Lumenly and Quantora overlap, but they are built for different teams.", "Both are capable tools; the better choice depends on who will use it."],
    outros: [],
    queries: ["Lumenly vs Quantora", "Quantora Lumenly comparison customer analytics", "Lumenly or Quantora for b2b"],
    ownPages: ["product"],
    references: [G2_BRAND, G2_CATEGORY, REDDIT_TOOLS],
  },
  {
    key: "pricing-support",
    text: "What do users say about Lumenly's pricing and support?",
    topic: "reviews",
    kind: "review",
    affinity: 1,
    competitors: { trailmetric: 0.5, insightra: 0.3 },
    intros: ["Feedback on Lumenly's pricing and support is mixed.", "Here is what reviewers and forum users say about Lumenly's pricing and support."],
    outros: ["Tools that reviewers mention as cheaper alternatives:", "Alternatives that come up in the same threads:"],
    queries: ["Lumenly pricing reviews", "Lumenly customer support reviews", "Lumenly price increase"],
    ownPages: ["pricing"],
    references: [REDDIT_PRICES, G2_BRAND, GUIDE_PRICING],
  },
  {
    key: "affordable",
    text: "What is the most affordable customer analytics platform for small teams?",
    topic: "choosing",
    kind: "list",
    affinity: 0.8,
    competitors: { trailmetric: 0.9, cohorta: 0.5, quantora: 0.3, insightra: 0.1 },
    intros: [
      "For small teams, pricing model matters as much as the list price: per-event pricing grows fastest. Affordable options:",
      "These platforms have free tiers or low flat prices that suit small teams:",
    ],
    outros: ["{top} is the cheapest to start with; {second} is worth it once retention reporting matters.", "On a tight budget, begin with {top}."],
    queries: ["affordable customer analytics small team", "cheap customer analytics software free tier", "customer analytics pricing comparison"],
    ownPages: ["pricing"],
    references: [GUIDE_PRICING, CAPTERRA, REDDIT_TOOLS],
  },
];

/** What a prompt the data set does not know (one added in the dashboard) is answered with. */
export const FALLBACK_PROMPT: Omit<DemoPrompt, "key" | "text"> = {
  topic: "choosing",
  kind: "list",
  affinity: 0.8,
  competitors: { quantora: 0.6, trailmetric: 0.5, cohorta: 0.5, insightra: 0.4 },
  intros: ["Here is an overview of the customer analytics tools that are relevant to this question:", "Several customer analytics platforms come up for this kind of question:"],
  outros: ["{top} is the most common recommendation, with {second} close behind.", "Compare {top} and {second} on a trial before deciding."],
  queries: ["customer analytics tools overview", "customer analytics software recommendations"],
  ownPages: ["product"],
  references: [G2_CATEGORY, WIKI_ANALYTICS, REDDIT_TOOLS],
};

// ---- how each platform behaves over the eight weeks ---------------------------------------------

export interface PlatformProfile {
  /** Chance that a non-branded answer names the brand, at t = 0 (eight weeks ago) and t = 1 (today). */
  visibility: [number, number];
  /** How early the brand comes in a list (a score against the competitors' weights), at t = 0 and t = 1. */
  brandStrength: [number, number];
  /** Chance that the brand's entry cites one of its own pages, at t = 0 and t = 1. */
  ownCitation: [number, number];
  /** How readily each competitor comes up on this platform, at t = 0 and t = 1. */
  competitors: Record<CompetitorKey, [number, number]>;
  /** Chance of a negative (and of a positive) sentence about the brand when it is named, at t = 0 and t = 1. */
  negative: [number, number];
  positive: [number, number];
  /** Chance that a segment cites something at all, and the kinds of third-party site it prefers. */
  citeRate: number;
  thirdParty: ("forum" | "review" | "reference" | "guide")[];
  /** Fan-out queries per answer (0 for a platform whose API reports none). */
  queries: [min: number, max: number];
}

/**
 * The story the eight weeks tell: ChatGPT picks the brand up (visibility rises, its own pages get
 * cited), Claude stays where it was, Perplexity drifts away from it towards Trailmetric and forum
 * threads complaining about a price increase, Gemini stays low and steady.
 */
export const PLATFORM_PROFILES: Record<DemoPlatform, PlatformProfile> = {
  chatgpt: {
    visibility: [0.15, 0.85],
    brandStrength: [0.35, 1.3],
    ownCitation: [0.1, 0.75],
    competitors: { quantora: [1.2, 1.1], trailmetric: [0.8, 0.8], cohorta: [1.0, 0.9], insightra: [0.9, 0.8] },
    negative: [0.25, 0.1],
    positive: [0.3, 0.6],
    citeRate: 0.6,
    thirdParty: ["review", "guide", "reference", "forum"],
    queries: [1, 2],
  },
  claude: {
    visibility: [0.45, 0.45],
    brandStrength: [0.8, 0.8],
    ownCitation: [0.35, 0.35],
    competitors: { quantora: [1.0, 1.0], trailmetric: [0.9, 0.9], cohorta: [1.3, 1.3], insightra: [1.0, 1.0] },
    negative: [0.2, 0.2],
    positive: [0.35, 0.35],
    citeRate: 0.5,
    thirdParty: ["reference", "guide", "review"],
    queries: [1, 2],
  },
  perplexity: {
    visibility: [0.8, 0.15],
    brandStrength: [1.2, 0.4],
    ownCitation: [0.5, 0.1],
    competitors: { quantora: [0.9, 0.9], trailmetric: [0.9, 1.6], cohorta: [0.8, 0.8], insightra: [0.7, 0.7] },
    negative: [0.15, 0.6],
    positive: [0.45, 0.15],
    citeRate: 0.85,
    thirdParty: ["forum", "forum", "review", "guide"],
    queries: [0, 0],
  },
  gemini: {
    visibility: [0.3, 0.3],
    brandStrength: [0.6, 0.6],
    ownCitation: [0.2, 0.2],
    competitors: { quantora: [1.3, 1.3], trailmetric: [1.0, 1.0], cohorta: [0.7, 0.7], insightra: [1.1, 1.1] },
    negative: [0.2, 0.2],
    positive: [0.3, 0.3],
    citeRate: 0.6,
    thirdParty: ["review", "review", "reference", "guide"],
    queries: [1, 3],
  },
};

/** Days ago of the past runs the demo replays (twice a week or so for eight weeks); today's run comes on top. */
export const HISTORY_DAYS_AGO = [56, 52, 49, 45, 42, 38, 35, 31, 28, 24, 21, 17, 14, 10, 7, 3];
/** The span the profiles' t runs over: t = 1 - daysAgo / HISTORY_SPAN_DAYS. */
export const HISTORY_SPAN_DAYS = 56;
