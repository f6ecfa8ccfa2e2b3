/**
 * Sentiment toward the brand: VADER (lexicon + negation, boosters, "but") over the sentences
 * that name the brand. VADER's lexicon is English social-media language and has no entry for
 * review words such as "expensive" or "reliable", nor for other languages, so phrases are first
 * rewritten to a VADER word of similar valence ("pricey" -> "difficult", "fiable" -> "good",
 * "nicht" -> "not"); VADER's own negation and emphasis rules then apply unchanged.
 */
import vader from "vader-sentiment";
import { foldString } from "./normalize";

export type SentimentLabel = "positive" | "neutral" | "negative";

type ProxyTable = Readonly<Record<string, readonly string[]>>;

// Proxy word -> phrases it stands for (folded: lower case, no diacritics). "" removes a word that
// VADER scores but that answers use descriptively: "tools like X", "supports SSO", "Yes" in a
// table cell, "market share", "customer care", "interest rates", "United States".
const ENGLISH: ProxyTable = {
  great: ["top pick", "top choice", "best choice", "excellent choice", "standout"],
  best: ["best-in-class", "best in class", "industry-leading", "industry leading", "market leader"],
  good: [
    "reliable", "intuitive", "affordable", "user-friendly", "user friendly", "easy to use", "seamless", "scalable", "versatile",
    "fast", "faster", "leading", "top-rated", "top rated", "highly rated", "well-regarded", "well regarded", "polished",
    "feature-rich", "budget-friendly", "cost-effective", "go-to", "stable", "responsive", "beginner-friendly", "cheaper",
    "lightweight", "award-winning", "industry standard", "de facto standard", "✅", "✔",
  ],
  difficult: [
    "expensive", "pricey", "pricier", "costlier", "clunky", "slow", "slower", "laggy", "outdated", "dated interface",
    "complicated", "unintuitive", "cluttered", "steep learning curve", "learning curve", "lacks", "lacking", "missing",
    "unreliable", "unstable", "buggy", "bugs", "glitches", "glitchy", "crashes", "downtime", "outage", "outages",
    "hidden fees", "lock-in", "overwhelming", "drawbacks", "downsides", "limitations", "shortcomings", "concerns",
    "issues", "mediocre", "poorly", "insecure", "bloated", "restrictive", "falls short", "fall short", "falls behind",
    "lags behind", "declining", "discontinued", "deprecated", "controversial", "privacy concerns", "sanctions",
    "weight gain", "tooth decay", "❌", "✗",
  ],
  bad: ["overpriced", "data breach", "diabetes", "obesity", "health risks", "unhealthy"],
  popular: ["best-selling", "bestselling", "best selling"],
  not: ["no"],
  "": ["like", "support", "supports", "supported", "supporting", "care", "share", "credit", "interest", "yes", "united", "please", "sure", "create", "original"],
};

const BY_LANGUAGE: Readonly<Record<string, ProxyTable>> = {
  fr: {
    best: ["meilleur", "meilleure", "meilleurs", "meilleures"],
    good: ["bon", "bonne", "bons", "bonnes", "fiable", "fiables", "intuitif", "abordable", "abordables", "apprecie", "appreciee", "facile", "faciles", "rapide", "rapides", "pratique", "efficace", "performant", "performante", "robuste", "solide"],
    excellent: ["excellente", "excellents"],
    recommended: ["recommande", "recommandee"],
    powerful: ["puissant", "puissante"],
    popular: ["populaire", "plus vendu", "plus vendue", "plus vendus"],
    strong: ["fort", "forte"],
    growth: ["croissance"],
    improved: ["ameliore", "amelioree"],
    difficult: ["cher", "chere", "couteux", "couteuse", "lent", "lente", "complexe", "complique", "inconvenient", "inconvenients", "difficile", "difficiles"],
    bad: ["mauvais", "mauvaise"],
    limited: ["limite", "limitee", "limites"],
    problems: ["probleme", "problemes"],
    disappointing: ["decevant", "decevante"],
    criticized: ["critique", "critiquee", "critiques"],
    complaints: ["plaignent", "plainte", "plaintes"],
    very: ["tres"],
    not: ["pas"],
    never: ["jamais"],
    without: ["sans"],
    but: ["mais", "cependant"],
  },
  de: {
    best: ["beste", "besten", "bester"],
    good: ["gut", "gute", "guter", "gutes", "guten", "zuverlassig", "zuverlassige", "benutzerfreundlich", "gunstig", "gunstige", "bequem", "bequeme", "preiswert", "preiswerte", "langlebig", "vielseitig"],
    excellent: ["hervorragend", "hervorragende", "ausgezeichnet"],
    recommended: ["empfehlenswert", "empfohlen"],
    powerful: ["leistungsstark", "leistungsstarke"],
    popular: ["beliebt", "beliebte", "beliebten", "meistverkaufte", "meistverkauften"],
    strong: ["stark", "starke"],
    growth: ["wachstum"],
    improved: ["verbessert"],
    difficult: ["teuer", "teure", "teuren", "langsam", "umstandlich", "veraltet", "kompliziert", "nachteil", "nachteile", "schwierig", "schwer"],
    bad: ["schlecht", "schlechte"],
    limited: ["eingeschrankt"],
    problems: ["probleme", "problemen"],
    disappointing: ["enttauschend"],
    criticized: ["kritisiert"],
    complaints: ["beschwerden"],
    very: ["sehr"],
    not: ["nicht", "kein", "keine", "keinen"],
    never: ["nie"],
    without: ["ohne"],
    but: ["aber", "jedoch"],
    // German articles and words that are English sentiment words ("die" scores -2.9 in VADER).
    "": ["die", "der", "das", "gift", "fast", "also", "hell"],
  },
  es: {
    best: ["mejor", "mejores"],
    good: ["bueno", "buena", "buenos", "buenas", "confiable", "fiable", "intuitivo", "intuitiva", "asequible", "economico", "comodo", "comoda", "sencillo", "sencilla", "rapido", "rapida", "facil", "faciles"],
    excellent: ["excelente", "excelentes"],
    recommended: ["recomendado", "recomendada"],
    powerful: ["potente"],
    popular: ["mas vendido", "mas vendida", "popular"],
    strong: ["fuerte"],
    growth: ["crecimiento"],
    difficult: ["caro", "cara", "caros", "caras", "costoso", "costosa", "lento", "lenta", "complicado", "complicada", "desventaja", "desventajas", "dificil", "dificiles"],
    bad: ["malo", "mala"],
    limited: ["limitado", "limitada"],
    problems: ["problemas"],
    disappointing: ["decepcionante"],
    improved: ["mejorado", "mejorada"],
    criticized: ["criticado", "criticada"],
    complaints: ["quejas"],
    very: ["muy"],
    never: ["nunca"],
    without: ["sin"],
    but: ["pero", "sin embargo"],
  },
  pt: {
    great: ["otimo", "otima"],
    best: ["melhor", "melhores"],
    good: ["bom", "boa", "bons", "boas", "confiavel", "intuitivo", "rapido", "facil", "confortavel"],
    excellent: ["excelente", "excelentes"],
    recommended: ["recomendado", "recomendada"],
    difficult: ["caro", "cara", "lento", "lenta", "complicado", "dificil"],
    bad: ["ruim"],
    limited: ["limitado", "limitada"],
    problems: ["problemas"],
    improved: ["melhorado"],
    complaints: ["reclamacoes"],
    very: ["muito"],
    not: ["nao"],
    never: ["nunca"],
    without: ["sem"],
    but: ["mas", "porem"],
  },
  it: {
    great: ["ottimo", "ottima"],
    best: ["migliore", "migliori"],
    good: ["buono", "buona", "affidabile", "intuitivo", "comodo", "comoda", "veloce", "facile"],
    excellent: ["eccellente"],
    recommended: ["consigliato", "consigliata"],
    popular: ["popolare"],
    difficult: ["costoso", "costosa", "lento", "lenta", "complicato", "difficile"],
    bad: ["cattivo", "scadente"],
    limited: ["limitato", "limitata"],
    problems: ["problemi"],
    improved: ["migliorato"],
    criticized: ["criticato"],
    complaints: ["lamentele"],
    very: ["molto"],
    not: ["non"],
    never: ["mai"],
    without: ["senza"],
    but: ["ma", "pero"],
  },
  nl: {
    best: ["beste"],
    good: ["goed", "goede", "betrouwbaar", "snel", "makkelijk"],
    excellent: ["uitstekend"],
    recommended: ["aanbevolen"],
    popular: ["populair"],
    difficult: ["duur", "traag"],
    bad: ["slecht"],
    very: ["zeer", "heel"],
    not: ["niet", "geen"],
    without: ["zonder"],
    but: ["maar"],
  },
};

interface Proxies {
  pattern: RegExp;
  proxyOf: ReadonlyMap<string, string>;
}

function compileProxies(tables: readonly ProxyTable[]): Proxies {
  const proxyOf = new Map<string, string>();
  const conflicting = new Set<string>();
  for (const table of tables)
    for (const [proxy, phrases] of Object.entries(table))
      for (const phrase of phrases) {
        const known = proxyOf.get(phrase);
        if (known !== undefined && known !== proxy) conflicting.add(phrase);
        proxyOf.set(phrase, proxy);
      }
  // A word that means different things in two languages ("mas") is left alone when the language is unknown.
  for (const phrase of conflicting) proxyOf.delete(phrase);
  const alternation = [...proxyOf.keys()]
    .sort((a, b) => b.length - a.length)
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("|");
  return { pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternation})(?![\\p{L}\\p{N}])`, "gu"), proxyOf };
}

// Built once at load and never mutated.
const PROXIES_BY_LANGUAGE: ReadonlyMap<string, Proxies> = new Map(
  Object.entries(BY_LANGUAGE).map(([language, table]) => [language, compileProxies([ENGLISH, table])]),
);
// Unknown language: every table except each language's false friends of English ("die", "sin").
const PROXIES_ANY_LANGUAGE = compileProxies([
  ENGLISH,
  ...Object.values(BY_LANGUAGE).map((table) => Object.fromEntries(Object.entries(table).filter(([proxy]) => proxy !== ""))),
]);
const PROXIES_ENGLISH = compileProxies([ENGLISH]);

function proxiesFor(language: string | undefined): Proxies {
  if (!language) return PROXIES_ANY_LANGUAGE;
  const primary = language.toLowerCase().split(/[-_]/)[0]!;
  if (primary === "en") return PROXIES_ENGLISH;
  return PROXIES_BY_LANGUAGE.get(primary) ?? PROXIES_ANY_LANGUAGE;
}

// A label stops at the next "[" and a destination at the next "(" (from each "[" of "[[[…" the
// former classes scanned to the end of the passage: quadratic).
const MARKDOWN_NOISE = /\[(\d+|[^[\]]*)\]\([^()]*\)|\[\d+\]|https?:\/\/\S+|[*_`#|>~]+/g;

/** Text prepared for VADER: markdown and links removed, phrases rewritten to proxy words. */
export function prepareForLexicon(text: string, language?: string): string {
  const plain = text.replace(MARKDOWN_NOISE, (m, label: string | undefined) => (label && !/^\d+$/.test(label) ? label : " "));
  const { pattern, proxyOf } = proxiesFor(language);
  return foldString(plain).replace(pattern, (m) => proxyOf.get(m) ?? m);
}

/** VADER compound score in [-1, 1] of one piece of text (`language`: BCP 47, picks the proxy table). */
export function lexiconScore(text: string, language?: string): number {
  const prepared = prepareForLexicon(text, language);
  if (!prepared.trim()) return 0;
  return vader.SentimentIntensityAnalyzer.polarity_scores(prepared).compound;
}

/** VADER's published cut-offs: compound >= 0.05 is positive, <= -0.05 negative. */
export const SENTIMENT_THRESHOLD = 0.05;

export function sentimentLabel(score: number): SentimentLabel {
  if (score >= SENTIMENT_THRESHOLD) return "positive";
  if (score <= -SENTIMENT_THRESHOLD) return "negative";
  return "neutral";
}

export interface SentimentResult {
  label: SentimentLabel;
  /** Mean of the per-passage compound scores, rounded to 4 decimals. */
  score: number;
  /** The passages about the brand that were scored. */
  passages: string[];
}

/** Mean compound over the brand's passages; null when there is none (brand not named). */
export function scorePassages(passages: readonly string[], language?: string): SentimentResult | null {
  if (passages.length === 0) return null;
  const sum = passages.reduce((total, p) => total + lexiconScore(p, language), 0);
  const score = Math.round((sum / passages.length) * 10000) / 10000;
  return { label: sentimentLabel(score), score, passages: [...passages] };
}

// --- Optional model judge: pure prompt building and reply parsing; the caller does the I/O. ---

export interface SentimentJudgePrompt {
  system: string;
  user: string;
}

export function buildSentimentJudgePrompt(brandName: string, passages: readonly string[]): SentimentJudgePrompt {
  return {
    system:
      "You rate how an AI assistant's answer portrays one brand. Judge only the tone toward that brand, " +
      'not toward other companies. Reply with JSON only: {"label":"positive"|"neutral"|"negative","score":<number from -1 to 1>}.',
    user: `Brand: ${brandName}\n\nPassages that mention it:\n${passages.map((p, i) => `${i + 1}. ${p.trim()}`).join("\n")}`,
  };
}

/** Parses the judge's reply (tolerates code fences and prose around the JSON); null when unusable. */
export function parseSentimentJudgeReply(reply: string): { label: SentimentLabel; score: number } | null {
  const json = reply.match(/\{[^{}]*\}/)?.[0];
  if (!json) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  const { label, score } = parsed as { label?: unknown; score?: unknown };
  const normalizedLabel = typeof label === "string" ? label.trim().toLowerCase() : "";
  if (normalizedLabel !== "positive" && normalizedLabel !== "neutral" && normalizedLabel !== "negative") return null;
  const numeric = typeof score === "number" && Number.isFinite(score) ? Math.round(Math.max(-1, Math.min(1, score)) * 10_000) / 10_000 : null;
  if (numeric === null) return { label: normalizedLabel, score: normalizedLabel === "positive" ? 0.5 : normalizedLabel === "negative" ? -0.5 : 0 };
  // The score decides, by the same cut-offs as the lexicon's: a reply of "positive" with −0.3 was
  // counted positive while pulling the mean negative.
  return { label: sentimentLabel(numeric), score: numeric };
}
