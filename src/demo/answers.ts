// Writes the demo's sample answers from the data set (dataset.ts): one answer per prompt ×
// platform × day × sample, the same every time (a seeded generator), varying the way the
// platform's profile says it drifts over the eight weeks. An answer is a list of text segments,
// each citing the sources it rests on; src/demo/wire.ts turns it into each provider's wire format.
import {
  BRAND,
  BRAND_SENTENCES,
  COMPETITOR_SOURCES,
  COMPETITORS,
  DESCRIPTIONS,
  FALLBACK_PROMPT,
  HISTORY_SPAN_DAYS,
  OWN_SOURCES,
  PLATFORM_PROFILES,
  PROMPTS,
  THIRD_PARTY,
  type CompetitorKey,
  type DemoPlatform,
  type DemoPrompt,
  type DemoSource,
  type EntityKey,
} from "./dataset";

export interface Segment {
  text: string;
  /** Sources this segment cites (empty: plain text). */
  cites: DemoSource[];
}

export interface SampleAnswer {
  /** Concatenated, the segments are the answer's text. */
  segments: Segment[];
  /** Sources the engine retrieved: every cited one, plus some it read and did not cite. */
  retrieved: DemoSource[];
  /** Queries the engine searched with (none for Perplexity Sonar). */
  queries: string[];
}

// ---- seeded randomness ----------------------------------------------------------------------

/** FNV-1a: a stable 32-bit seed from a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** mulberry32: small, fast and good enough to pick paragraphs. */
function generator(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
  };
}
type Rng = ReturnType<typeof generator>;

const lerp = ([a, b]: [number, number], t: number) => a + (b - a) * t;
const clamp = (v: number, lo = 0, hi = 1) => Math.min(hi, Math.max(lo, v));

// ---- lookups ------------------------------------------------------------------------------------

const promptsByText = new Map(PROMPTS.map((p) => [normalize(p.text), p]));
const thirdPartyByUrl = new Map(Object.values(THIRD_PARTY).flatMap((list) => list.map((s) => [s.url, s] as const)));
const NAMES: Record<EntityKey, string> = { brand: BRAND.name, ...Object.fromEntries(COMPETITORS.map((c) => [c.key, c.name])) } as Record<EntityKey, string>;

function normalize(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/** The data set's prompt for a text, or the fallback for a prompt it does not know (added in the dashboard). */
export function promptFor(text: string): DemoPrompt {
  return promptsByText.get(normalize(text)) ?? { ...FALLBACK_PROMPT, key: `custom:${normalize(text)}`, text };
}

/** Whether the text names the brand (then the brand is always in the answer). */
const namesBrand = (text: string) => new RegExp(`\\b${BRAND.name}\\b`, "i").test(text);

// ---- composing one answer ------------------------------------------------------------------------

interface Context {
  rng: Rng;
  prompt: DemoPrompt;
  platform: DemoPlatform;
  /** 0 eight weeks ago, 1 today. */
  t: number;
  /** Sentences already in the answer: an engine does not repeat itself word for word. */
  used: Set<string>;
}

/** What a segment cites from a third party, if anything: a page that fits the question, preferably of a kind the platform favours. */
function citeThirdParty(ctx: Context, preferUrls: string[] = []): DemoSource[] {
  const profile = PLATFORM_PROFILES[ctx.platform];
  if (!ctx.rng.chance(profile.citeRate)) return [];
  const fitting = preferUrls.map((u) => thirdPartyByUrl.get(u)).filter((s): s is DemoSource => !!s);
  const kind = ctx.rng.pick(profile.thirdParty);
  const ofKind = fitting.filter((s) => THIRD_PARTY[kind].includes(s));
  const source = ofKind.length ? ctx.rng.pick(ofKind) : fitting.length && ctx.rng.chance(0.6) ? ctx.rng.pick(fitting) : ctx.rng.pick(THIRD_PARTY[kind]);
  return [source];
}

function citeEntity(ctx: Context, entity: EntityKey): DemoSource[] {
  const profile = PLATFORM_PROFILES[ctx.platform];
  if (entity === "brand") {
    if (ctx.rng.chance(lerp(profile.ownCitation, ctx.t))) return [OWN_SOURCES[ctx.rng.pick(ctx.prompt.ownPages)]!];
    return ctx.rng.chance(0.35) ? [ctx.rng.pick(THIRD_PARTY.review)] : [];
  }
  if (ctx.rng.chance(0.45)) return [ctx.rng.pick(COMPETITOR_SOURCES[entity])];
  return ctx.rng.chance(0.3) ? citeThirdParty(ctx, ctx.prompt.references) : [];
}

/** The tone of what the answer says about the brand. */
function brandTone(ctx: Context, bias = 0): "positive" | "neutral" | "negative" {
  const profile = PLATFORM_PROFILES[ctx.platform];
  const negative = clamp(lerp(profile.negative, ctx.t) + bias);
  const positive = clamp(lerp(profile.positive, ctx.t) - bias / 2);
  const r = ctx.rng.next();
  return r < negative ? "negative" : r < negative + positive ? "positive" : "neutral";
}

/** A sentence of the tone not yet in the answer (any of the tone once all are used). */
function sentence(ctx: Context, tone: "positive" | "neutral" | "negative"): string {
  const fresh = BRAND_SENTENCES[tone].filter((s) => !ctx.used.has(s));
  const text = ctx.rng.pick(fresh.length ? fresh : BRAND_SENTENCES[tone]);
  ctx.used.add(text);
  return text;
}

function brandSentence(ctx: Context, tone: "positive" | "neutral" | "negative"): Segment {
  const text = sentence(ctx, tone);
  const cites =
    tone === "negative" && ctx.rng.chance(0.7)
      ? [ctx.rng.pick(THIRD_PARTY.forum.filter((s) => s.url.includes("reddit.com")))]
      : tone === "positive" && ctx.rng.chance(0.6)
        ? [ctx.rng.pick(THIRD_PARTY.review)]
        : [];
  return { text, cites };
}

/** Which competitors the answer names, strongest first, with the brand placed among them when it is named. */
function lineUp(ctx: Context, withBrand: boolean, max: number): EntityKey[] {
  const profile = PLATFORM_PROFILES[ctx.platform];
  const scored: { key: EntityKey; score: number }[] = [];
  for (const c of COMPETITORS) {
    const key = c.key as CompetitorKey;
    const weight = (ctx.prompt.competitors[key] ?? 0) * lerp(profile.competitors[key], ctx.t);
    if (weight > 0 && ctx.rng.chance(clamp(weight, 0, 0.95))) scored.push({ key, score: weight * (0.6 + 0.8 * ctx.rng.next()) });
  }
  // Every list names at least two competitors: the question's best-known ones.
  for (const [key] of Object.entries(ctx.prompt.competitors).sort((a, b) => b[1] - a[1]))
    if (scored.length < 2 && !scored.some((s) => s.key === key)) scored.push({ key: key as CompetitorKey, score: 0.2 * ctx.rng.next() });
  scored.sort((a, b) => b.score - a.score);
  const list = scored.slice(0, withBrand ? max - 1 : max);
  if (withBrand) list.push({ key: "brand", score: lerp(profile.brandStrength, ctx.t) * (0.6 + 0.8 * ctx.rng.next()) });
  return list.sort((a, b) => b.score - a.score).map((s) => s.key);
}

function entry(ctx: Context, key: EntityKey, marker: string): Segment[] {
  return [{ text: `${marker} **${NAMES[key]}** — ${ctx.rng.pick(DESCRIPTIONS[key])}`, cites: citeEntity(ctx, key) }];
}

const fill = (template: string, order: EntityKey[]) =>
  template.replace("{top}", `**${NAMES[order[0]!]}**`).replace("{second}", `**${NAMES[order[1] ?? order[0]!]}**`);

function listAnswer(ctx: Context, mentioned: boolean): Segment[] {
  const order = lineUp(ctx, mentioned, ctx.rng.int(3, 5));
  const out: Segment[] = [{ text: ctx.rng.pick(ctx.prompt.intros), cites: citeThirdParty(ctx, ctx.prompt.references) }, { text: "\n\n", cites: [] }];
  order.forEach((key, i) => out.push(...entry(ctx, key, `${i + 1}.`), { text: "\n", cites: [] }));
  out.push({ text: "\n", cites: [] });
  if (mentioned) out.push(brandSentence(ctx, brandTone(ctx)), { text: " ", cites: [] });
  out.push({ text: fill(ctx.rng.pick(ctx.prompt.outros), order), cites: [] });
  return out;
}

function howtoAnswer(ctx: Context, mentioned: boolean): Segment[] {
  const out: Segment[] = [{ text: ctx.rng.pick(ctx.prompt.intros), cites: citeThirdParty(ctx, ctx.prompt.references) }, { text: "\n\n", cites: [] }];
  (ctx.prompt.steps ?? []).forEach((step, i) => {
    const cites = i === 1 && mentioned && ctx.rng.chance(lerp(PLATFORM_PROFILES[ctx.platform].ownCitation, ctx.t)) ? [OWN_SOURCES[ctx.prompt.ownPages[0]!]!] : i === 0 ? citeThirdParty(ctx, ctx.prompt.references) : [];
    out.push({ text: `${i + 1}. ${step}`, cites }, { text: "\n", cites: [] });
  });
  out.push({ text: "\n", cites: [] }, { text: ctx.rng.pick(ctx.prompt.outros), cites: [] }, { text: "\n\n", cites: [] });
  for (const key of lineUp(ctx, mentioned, ctx.rng.int(2, 3))) out.push(...entry(ctx, key, "-"), { text: "\n", cites: [] });
  if (mentioned) out.push({ text: "\n", cites: [] }, brandSentence(ctx, brandTone(ctx)));
  return out;
}

/** A question about the brand itself: what it is, what people like and dislike, alternatives, a verdict. */
function reviewAnswer(ctx: Context): Segment[] {
  // The pricing-and-support question draws more criticism than the others.
  const tone = brandTone(ctx, ctx.prompt.key === "pricing-support" ? 0.3 : 0);
  const out: Segment[] = [
    { text: ctx.rng.pick(ctx.prompt.intros), cites: ctx.rng.chance(0.5) ? [OWN_SOURCES[ctx.rng.pick(ctx.prompt.ownPages)]!] : [] },
    { text: " ", cites: [] },
    { text: sentence(ctx, "neutral"), cites: [] },
    { text: "\n\n", cites: [] },
  ];
  const paragraphs: [string, "positive" | "neutral" | "negative"][] =
    tone === "positive"
      ? [["**What people like:** ", "positive"], ["**Worth knowing:** ", "neutral"]]
      : tone === "neutral"
        ? [["**What people like:** ", "positive"], ["**Common complaints:** ", "negative"]]
        : [["**Common complaints:** ", "negative"], ["**Also mentioned:** ", ctx.rng.chance(0.5) ? "negative" : "neutral"]];
  for (const [label, sentenceTone] of paragraphs) out.push({ text: label, cites: [] }, brandSentence(ctx, sentenceTone), { text: "\n\n", cites: [] });
  out.push({ text: ctx.rng.pick(ctx.prompt.outros), cites: [] }, { text: "\n\n", cites: [] });
  const rivals = lineUp(ctx, false, ctx.rng.int(1, 3));
  for (const key of rivals) out.push(...entry(ctx, key, "-"), { text: "\n", cites: [] });
  const verdict =
    tone === "negative"
      ? `\n**Bottom line:** Lumenly can be hard to justify on a tight budget; compare its quote with **${NAMES[rivals[0]!]}** first.`
      : tone === "positive"
        ? "\n**Bottom line:** Lumenly is usually worth it when retention and account health are priorities, and its onboarding is excellent."
        : "\n**Bottom line:** Lumenly is a reasonable choice if you need account-level analytics; run the trial with your own data.";
  out.push({ text: verdict, cites: tone === "negative" && ctx.rng.chance(0.5) ? [THIRD_PARTY.forum[1]!] : [] });
  return out;
}

/** The brand against one competitor. */
function comparisonAnswer(ctx: Context): Segment[] {
  const profile = PLATFORM_PROFILES[ctx.platform];
  const brandFirst = ctx.rng.chance(clamp(lerp(profile.brandStrength, ctx.t) / 1.6));
  const pair: EntityKey[] = brandFirst ? ["brand", "quantora"] : ["quantora", "brand"];
  const out: Segment[] = [{ text: ctx.rng.pick(ctx.prompt.intros), cites: citeThirdParty(ctx, ctx.prompt.references) }, { text: "\n\n", cites: [] }];
  for (const key of pair) out.push(...entry(ctx, key, "-"), { text: "\n", cites: [] });
  out.push({ text: "\n", cites: [] }, brandSentence(ctx, brandTone(ctx)), { text: "\n\n", cites: [] });
  out.push({
    text: brandFirst
      ? "**Choose Lumenly** if customer success and account health matter most; **choose Quantora** if your product team needs deep funnel analysis."
      : "**Choose Quantora** if you need the deepest event analysis and have engineers to set it up; **choose Lumenly** for simpler account-level reporting.",
    cites: [],
  });
  if (ctx.rng.chance(0.3)) out.push({ text: " Teams focused on subscription revenue also look at **Cohorta**.", cites: [] });
  return out;
}

/**
 * The sample answer of `platform` to `promptText` as it would have been `daysAgo` days ago (0:
 * today), for the `sample`-th ask of it that day. The same inputs always give the same answer.
 */
export function sampleAnswer(promptText: string, platform: DemoPlatform, daysAgo: number, sample: number): SampleAnswer {
  const prompt = promptFor(promptText);
  const rng = generator(hash(`${prompt.key}|${platform}|${daysAgo}|${sample}`));
  const t = clamp(1 - daysAgo / HISTORY_SPAN_DAYS);
  const ctx: Context = { rng, prompt, platform, t, used: new Set() };
  const branded = namesBrand(prompt.text);
  const mentioned = branded || rng.chance(clamp(lerp(PLATFORM_PROFILES[platform].visibility, t) * prompt.affinity));
  const segments =
    prompt.kind === "review" && branded
      ? reviewAnswer(ctx)
      : prompt.kind === "comparison" && branded
        ? comparisonAnswer(ctx)
        : prompt.kind === "howto"
          ? howtoAnswer(ctx, mentioned)
          : listAnswer(ctx, mentioned);
  while (segments.length > 1 && !segments.at(-1)!.text.trim() && !segments.at(-1)!.cites.length) segments.pop();
  // Every answer cites something: a web-search answer without sources would be no sample of one.
  if (!segments.some((s) => s.cites.length)) segments[0]!.cites = [thirdPartyByUrl.get(prompt.references[0]!) ?? THIRD_PARTY.reference[0]!];

  const cited = [...new Map(segments.flatMap((s) => s.cites).map((s) => [s.url, s])).values()];
  const extra = [...THIRD_PARTY.review, ...THIRD_PARTY.reference, ...THIRD_PARTY.guide].filter((s) => !cited.includes(s));
  const retrieved = [...cited];
  for (let i = rng.int(1, 3); i > 0; i--) {
    const s = rng.pick(extra);
    if (!retrieved.includes(s)) retrieved.push(s);
  }
  const [min, max] = PLATFORM_PROFILES[platform].queries;
  const queries: string[] = [];
  for (let i = rng.int(min, max); i > 0; i--) {
    const q = rng.pick(prompt.queries);
    if (!queries.includes(q)) queries.push(q);
  }
  return { segments, retrieved, queries };
}

export const answerText = (a: SampleAnswer) => a.segments.map((s) => s.text).join("");
