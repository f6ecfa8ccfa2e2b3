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

// Proxy word -> phrases it stands for (folded: lower case, no diacritics).
const PROXY_GROUPS: Readonly<Record<string, readonly string[]>> = {
  great: ["top pick", "top choice", "best choice", "excellent choice", "standout", "ottimo", "ottima", "otimo", "otima"],
  best: ["best-in-class", "best in class", "industry-leading", "industry leading", "market leader", "meilleur", "meilleure", "meilleurs", "meilleures", "beste", "besten", "bester", "mejor", "mejores", "melhor", "melhores", "migliore", "migliori"],
  good: [
    "reliable", "intuitive", "affordable", "user-friendly", "user friendly", "easy to use", "seamless", "scalable", "versatile",
    "fast", "faster", "leading", "top-rated", "top rated", "highly rated", "well-regarded", "well regarded", "polished",
    "feature-rich", "budget-friendly", "cost-effective", "go-to", "stable", "responsive", "beginner-friendly", "cheaper",
    "lightweight", "award-winning", "generous free tier",
    "bon", "bonne", "bons", "bonnes", "fiable", "fiables", "intuitif", "abordable", "abordables", "apprecie", "appreciee",
    "gut", "gute", "guter", "gutes", "guten", "zuverlassig", "zuverlassige", "benutzerfreundlich", "gunstig", "gunstige",
    "bueno", "buena", "buenos", "buenas", "confiable", "intuitivo", "intuitiva", "asequible", "economico",
    "bom", "boa", "bons", "boas", "confiavel", "buono", "buona", "affidabile", "goed", "goede", "betrouwbaar",
    "✅", "✔", "✔️",
  ],
  excellent: ["excellente", "excellents", "hervorragend", "hervorragende", "ausgezeichnet", "excelente", "excelentes", "eccellente", "uitstekend"],
  recommended: ["recommande", "recommandee", "empfehlenswert", "empfohlen", "recomendado", "recomendada", "consigliato", "aanbevolen"],
  powerful: ["puissant", "puissante", "leistungsstark", "leistungsstarke", "potente"],
  popular: ["populaire", "beliebt", "beliebte", "beliebten"],
  difficult: [
    "expensive", "pricey", "pricier", "costlier", "clunky", "slow", "slower", "laggy", "outdated", "dated interface",
    "complicated", "unintuitive", "cluttered", "steep learning curve", "learning curve", "lacks", "lacking", "missing",
    "unreliable", "unstable", "buggy", "bugs", "glitches", "glitchy", "crashes", "downtime", "outage", "outages",
    "hidden fees", "lock-in", "overwhelming", "drawbacks", "downsides", "limitations", "shortcomings", "concerns",
    "issues", "mediocre", "poorly", "insecure", "bloated", "restrictive", "falls short", "fall short", "falls behind",
    "lags behind", "declining", "discontinued", "deprecated", "controversial", "privacy concerns",
    "cher", "chere", "couteux", "couteuse", "lent", "lente", "complexe", "complique", "inconvenient", "inconvenients",
    "teuer", "teure", "teuren", "langsam", "umstandlich", "veraltet", "kompliziert", "nachteil", "nachteile",
    "caro", "cara", "caros", "caras", "costoso", "costosa", "lento", "lenta", "complicado", "complicada", "desventaja", "desventajas",
    "duur", "traag", "❌", "✗",
  ],
  bad: ["overpriced", "data breach", "mauvais", "mauvaise", "schlecht", "schlechte", "malo", "mala", "ruim", "cattivo", "scadente", "slecht"],
  limited: ["limite", "limitee", "limites", "eingeschrankt", "limitado", "limitada", "limitato"],
  problems: ["probleme", "problemes", "probleme", "problemen", "problemas", "problemi"],
  disappointing: ["decevant", "decevante", "enttauschend", "decepcionante"],
  very: ["tres", "sehr", "muy", "muito", "molto", "zeer", "heel"],
  not: ["pas", "nicht", "kein", "keine", "keinen", "no", "nao", "non", "niet", "geen"],
  never: ["jamais", "nie", "nunca", "mai"],
  without: ["sans", "ohne", "sin", "sem", "senza", "zonder"],
  but: ["mais", "aber", "pero", "mas", "ma", "maar", "cependant", "jedoch", "sin embargo"],
};
const PROXY_OF = new Map<string, string>(Object.entries(PROXY_GROUPS).flatMap(([proxy, phrases]) => phrases.map((p) => [p, proxy] as const)));
const PROXY_PATTERN = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${[...PROXY_OF.keys()].sort((a, b) => b.length - a.length).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![\\p{L}\\p{N}])`,
  "gu",
);
const MARKDOWN_NOISE = /\[(\d+|[^\]]*)\]\([^)]*\)|\[\d+\]|https?:\/\/\S+|[*_`#|>~]+/g;

/** Text prepared for VADER: markdown and links removed, phrases rewritten to proxy words. */
export function prepareForLexicon(text: string): string {
  const plain = text.replace(MARKDOWN_NOISE, (m, label: string | undefined) => (label && !/^\d+$/.test(label) ? label : " "));
  return foldString(plain).replace(PROXY_PATTERN, (m) => PROXY_OF.get(m) ?? m);
}

/** VADER compound score in [-1, 1] of one piece of text. */
export function lexiconScore(text: string): number {
  const prepared = prepareForLexicon(text);
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
export function scorePassages(passages: readonly string[]): SentimentResult | null {
  if (passages.length === 0) return null;
  const sum = passages.reduce((total, p) => total + lexiconScore(p), 0);
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
  const numeric = typeof score === "number" && Number.isFinite(score) ? Math.max(-1, Math.min(1, score)) : null;
  const fallback = normalizedLabel === "positive" ? 0.5 : normalizedLabel === "negative" ? -0.5 : 0;
  return { label: normalizedLabel, score: numeric ?? fallback };
}
