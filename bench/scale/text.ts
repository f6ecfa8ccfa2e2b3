// Answer text for bench/scale: a word-level Markov chain (order 2) trained on the recorded answers
// in the repository (tests/fixtures/analysis corpora, the engine recordings) plus the bench's own
// corpus.md, and a composer that lays its sentences out the way engines do (intro, numbered list or
// headings, bullets, a table now and then, citation markers or inline links, a closing line).
// A prompt's answers share their structure and some sentences from day to day; the rest is new
// wording each day, as with real engines.
//
// The training text is small (~7,000 words), so a plain order-2 chain mostly replays it verbatim:
// answers compressed together (or with a zstd dictionary trained on them) would shrink far more
// than real ones. Two things widen it: a step now and then follows only the last word (order 1)
// where the pair has few successors, and common words are swapped within synonym groups
// (synonyms.ts). Each answer alone still compresses like prose (zstd-3 ≈ 0.48×); together they
// remain more compressible than real answers would be (see the figures the bench prints).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { rng, type Rng } from "./random";
import { synonymTable } from "./synonyms";

/** Stands for an entity name in the trained text; replaced by a real name when a sentence is written. */
const ENTITY = "\u0001";
const ENTITY_RE = /\u0001/g;
const NON_FINAL = new Set(["e.g.", "i.e.", "vs.", "etc.", "Dr.", "Inc.", "St.", "U.S.", "approx."]);

export interface CorpusSource {
  name: string;
  texts: string[];
}

/** Markdown to plain prose: no tables, code, headings or list markers (each such line ends as a sentence), links, markers or emphasis. */
function clean(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\||```|<!--|-->)/.test(line))
    .map((line) => {
      const inline = line
        .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
        .replace(/https?:\/\/\S+/g, "")
        .replace(/\[\^?\d+\^?\]/g, "")
        .replace(/【[^】]*】/g, "")
        .replace(/\*\*|__|\*|`/g, "")
        .replace(/\(\s*\)/g, "")
        .replace(/\s+([.,;:])/g, "$1");
      const stripped = inline.replace(/^\s*#+\s*/, "").replace(/^\s*(?:\d+[.)]|[-*•])\s+/, "").trim();
      const structural = stripped !== inline.trim();
      return structural && stripped && !/[.!?:]$/.test(stripped) ? `${stripped}.` : stripped;
    })
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

function collectJsonTexts(value: unknown, key: string, out: string[]): void {
  if (typeof value === "string") {
    if ((key === "text" || key === "content" || key === "markdown") && value.length > 100 && value.includes(" ")) out.push(value);
    return;
  }
  if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) collectJsonTexts(v, k, out);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The recorded answers of the repository (English only) and the bench's corpus, entity names marked. */
export function loadCorpus(root: string): CorpusSource[] {
  const sources: CorpusSource[] = [];
  const analysis = join(root, "tests/fixtures/analysis");
  let entityRe: RegExp | null = null;
  if (existsSync(join(analysis, "entities.yaml"))) {
    const sets = Bun.YAML.parse(readFileSync(join(analysis, "entities.yaml"), "utf8")) as Record<string, { name: string; aliases?: (string | { text: string })[]; domains?: string[] }[]>;
    const names = new Set<string>();
    for (const [set, entities] of Object.entries(sets)) {
      if (set === "lang") continue; // Go, C, Rust…: ordinary words elsewhere
      for (const e of entities) for (const n of [e.name, ...(e.aliases ?? []).map((a) => (typeof a === "string" ? a : a.text)), ...(e.domains ?? [])]) if (n.length > 2 && !/[^\x00-\x7f]/.test(n)) names.add(n);
    }
    entityRe = new RegExp(`(?<![\\w.])(?:${[...names].sort((a, b) => b.length - a.length).map(escapeRe).join("|")})(?![\\w])`, "g");
    const texts: string[] = [];
    for (const file of readdirSync(analysis).filter((f) => f.startsWith("corpus-") && f.endsWith(".yaml")).sort()) {
      const cases = Bun.YAML.parse(readFileSync(join(analysis, file), "utf8")) as { text: string; language?: string }[];
      for (const c of cases) if (!c.language || c.language === "en") texts.push(c.text);
    }
    sources.push({ name: "tests/fixtures/analysis/corpus-*.yaml (English)", texts });
  }
  // The recordings the fake upstream serves, then the fixtures built from the providers' documentation.
  for (const dir of [join(root, "tests/fixtures/engines/recorded"), join(root, "tests/fixtures/engines")]) {
    if (!existsSync(dir)) continue;
    const texts: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
      try {
        collectJsonTexts(JSON.parse(readFileSync(join(dir, file), "utf8")), "", texts);
      } catch {
        // not a recording
      }
    }
    if (texts.length) sources.push({ name: `${relative(root, dir)}/*.json`, texts });
  }
  const own = readFileSync(join(import.meta.dir, "corpus.md"), "utf8").replace(/<!--[\s\S]*?-->/, "");
  sources.push({ name: "bench/scale/corpus.md", texts: own.split(/\n\s*\n/).map((p) => p.replaceAll("{E}", ENTITY)) });
  return sources.map((s) => ({ name: s.name, texts: s.texts.map((t) => clean(entityRe ? t.replace(entityRe, ENTITY) : t)).filter((t) => t.length > 40) }));
}

/** Order-2 word chain over integer word ids. */
export class MarkovChain {
  private words: string[] = [];
  private ids = new Map<string, number>();
  private next = new Map<number, number[]>();
  /** Order-1 successors, for the occasional back-off step. */
  private next1 = new Map<number, number[]>();
  private final: boolean[] = [];
  /** Per word id: the words it may be swapped for (same capitalization and punctuation), or null. */
  private variants: (string[] | null)[] = [];
  private starts: number[] = [];
  private synonyms = synonymTable();
  totalWords = 0;

  /** How often a word with variants is swapped. */
  constructor(
    private swap = 0.5,
    /** How often a step follows the last word only (order 1), where that word has several successors. */
    private backoff = 0.35,
  ) {}

  private id(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.words.push(word);
      this.ids.set(word, id);
      this.final.push(/[.!?]["')\]]?$/.test(word) && !NON_FINAL.has(word));
      this.variants.push(this.variantsOf(word));
    }
    return id;
  }

  private variantsOf(word: string): string[] | null {
    const m = /^([A-Za-z]+)([^A-Za-z]*)$/.exec(word);
    const group = m && this.synonyms.get(m[1]!.toLowerCase());
    if (!m || !group) return null;
    const capital = /^[A-Z]/.test(m[1]!);
    return group.map((g) => (capital ? g[0]!.toUpperCase() + g.slice(1) : g) + m[2]);
  }

  private write(id: number, r: Rng): string {
    const v = this.variants[id];
    return v && r() < this.swap ? v[Math.floor(r() * v.length)]! : this.words[id]!;
  }

  train(text: string): void {
    const w = text.split(" ").filter(Boolean).map((word) => this.id(word));
    this.totalWords += w.length;
    for (let i = 0; i + 2 < w.length; i++) {
      const key = w[i]! * 65536 + w[i + 1]!;
      let list = this.next.get(key);
      if (!list) this.next.set(key, (list = []));
      list.push(w[i + 2]!);
      let list1 = this.next1.get(w[i + 1]!);
      if (!list1) this.next1.set(w[i + 1]!, (list1 = []));
      list1.push(w[i + 2]!);
      if ((i === 0 || this.final[w[i - 1]!]) && /^[A-Z\u0001]/.test(this.words[w[i]!]!)) this.starts.push(w[i]!, w[i + 1]!);
    }
  }

  get vocabulary(): number {
    return this.words.length;
  }

  /** One sentence (or two short ones) of minWords..maxWords words. */
  sentence(r: Rng, minWords = 8, maxWords = 40): string {
    const s = r.int(this.starts.length / 2) * 2;
    let a = this.starts[s]!, b = this.starts[s + 1]!;
    const out = [this.write(a, r), this.write(b, r)];
    let ended = this.final[b]! && out.length >= minWords;
    while (!ended && out.length < maxWords) {
      let list = this.next.get(a * 65536 + b);
      if (!list) break;
      if (list.length < 3 && r() < this.backoff) list = this.next1.get(b) ?? list;
      const c = list[Math.floor(r() * list.length)]!;
      out.push(this.write(c, r));
      a = b;
      b = c;
      ended = this.final[c]! && out.length >= minWords;
    }
    if (!ended && !/[.!?]["')\]]?$/.test(out[out.length - 1]!)) out[out.length - 1] = out[out.length - 1]!.replace(/[,;:—–-]+$/, "") + ".";
    return out.join(" ");
  }
}

export function trainChain(sources: CorpusSource[]): MarkovChain {
  const chain = new MarkovChain();
  for (const s of sources) for (const t of s.texts) chain.train(t);
  return chain;
}

// ---- composing answers --------------------------------------------------------------------------

export interface AnswerEntity {
  name: string;
  domain: string;
}

export interface AnswerSource {
  url: string;
  title: string;
  domain: string;
}

export interface AnswerRequest {
  /** Seeds what a prompt's answers on one platform share from day to day. */
  promptKey: string;
  platform: string;
  topic: string;
  audience: string;
  year: number;
  /** Listed in this order (a per-day order; the prompt's structure is kept). */
  entities: AnswerEntity[];
  /** Cited sources, position = index + 1. */
  sources: AnswerSource[];
  targetBytes: number;
}

type MarkerStyle = "inline-link" | "bracket" | "none";
type ListStyle = "numbered" | "headings" | "bullets";

interface PlatformStyle {
  markers: MarkerStyle;
  lists: ListStyle[];
  tableChance: number;
  bulletChance: number;
}

const STYLES: Record<string, PlatformStyle> = {
  chatgpt: { markers: "inline-link", lists: ["numbered", "headings"], tableChance: 0.35, bulletChance: 0.6 },
  perplexity: { markers: "bracket", lists: ["numbered", "bullets"], tableChance: 0.25, bulletChance: 0.3 },
  gemini: { markers: "none", lists: ["headings", "bullets"], tableChance: 0.5, bulletChance: 0.6 },
  claude: { markers: "none", lists: ["numbered", "bullets"], tableChance: 0.15, bulletChance: 0.35 },
  grok: { markers: "inline-link", lists: ["headings", "numbered"], tableChance: 0.3, bulletChance: 0.5 },
  "google-ai-overview": { markers: "none", lists: ["bullets"], tableChance: 0.05, bulletChance: 0.2 },
  "google-ai-mode": { markers: "bracket", lists: ["bullets", "headings"], tableChance: 0.2, bulletChance: 0.35 },
  copilot: { markers: "bracket", lists: ["numbered", "bullets"], tableChance: 0.15, bulletChance: 0.4 },
};

const HEADINGS = [
  "Top picks at a glance", "Quick comparison", "How to choose", "Key factors to consider", "What to look for",
  "Bottom line", "My recommendation", "Other options worth a look", "Pricing overview", "Summary",
  "Pros and cons", "Who each option is best for", "Things to watch out for", "Final thoughts",
];
const BULLET_LABELS = ["Best for", "Pros", "Cons", "Pricing", "Standout feature", "Watch out for", "Ideal if", "Integrations"];
const BEST_FOR = ["Small teams", "Enterprises", "Agencies", "Budget buyers", "Ecommerce", "Advanced reporting", "Beginners", "Remote teams", "Regulated industries", "Fast setup"];
const OPENERS = [
  (t: string, a: string, y: number) => `Here are some of the best ${t} options for ${a} in ${y}:`,
  (t: string, a: string) => `Choosing ${t} for ${a} depends on your budget, team size and the features you need most.`,
  (t: string, a: string) => `There is no single best ${t} for every ${a.replace(/s$/, "")}, but a few names come up again and again.`,
  (t: string, _a: string, y: number) => `Based on recent reviews and comparisons, these are the ${t} tools most often recommended in ${y}.`,
  (t: string, a: string) => `Short answer: it depends on what ${a} need from ${t}, but here is how the main options compare.`,
];
const CLOSERS = ["**Bottom line:**", "**My take:**", "**In short:**", "**Recommendation:**", "**Summary:**"];

/** Digits renewed with the same number of digits (years stay plausible years). */
function renewNumbers(text: string, r: Rng, year: number): string {
  return text.replace(/\d+/g, (digits) => {
    if (digits.length === 4 && (digits.startsWith("19") || digits.startsWith("20"))) return String(year - r.int(4));
    let out = String(1 + r.int(9));
    for (let i = 1; i < digits.length; i++) out += String(r.int(10));
    return out;
  });
}

export function createComposer(chain: MarkovChain) {
  /** A sentence; `slot` set and the prompt's reuse draw passing: the prompt's own sentence for that slot (same every day). */
  function sentence(r: Rng, req: AnswerRequest, reuse: number, slot: string, names: string[], min = 8, max = 38): string {
    const own = r() < reuse;
    const sr = own ? rng(`${req.promptKey}|${slot}`) : r;
    const raw = chain.sentence(sr, min, max);
    let k = 0;
    const filled = raw.includes(ENTITY) ? raw.replace(ENTITY_RE, () => (k++ === 0 ? names[0]! : names[Math.floor(sr() * names.length)]!)) : raw;
    return own ? filled : renewNumbers(filled, r, req.year);
  }

  function marker(style: MarkerStyle, r: Rng, sources: AnswerSource[]): string {
    if (!sources.length || style === "none") return "";
    if (style === "bracket") {
      const n = 1 + r.int(Math.min(3, sources.length));
      let out = "";
      for (let i = 0; i < n; i++) out += `[${1 + r.int(sources.length)}]`;
      return out;
    }
    const s = sources[r.int(sources.length)]!;
    return ` ([${s.domain}](${s.url}))`;
  }

  return function compose(req: AnswerRequest, day: Rng): string {
    const style = STYLES[req.platform] ?? STYLES.chatgpt!;
    // What the prompt's answers on this platform share: layout, table, headings, how much is reused.
    const p = rng(`${req.promptKey}|structure`);
    const list = p.pick(style.lists);
    const table = p.chance(style.tableChance) && req.entities.length >= 3;
    const reuse = 0.2 + p() * 0.3;
    const heading = p.pick(HEADINGS);
    const closingHeading = p.pick(HEADINGS);
    const opener = p.pick(OPENERS);
    const closer = p.pick(CLOSERS);
    const perItemSentences = 1 + p.int(3);
    const names = req.entities.map((e) => e.name);
    const otherNames = (i: number) => [names[i]!, ...names.filter((_, j) => j !== i)];
    const parts: string[] = [];
    let bytes = 0;
    const add = (s: string) => {
      parts.push(s);
      bytes += s.length + 2;
    };

    add(`${opener(req.topic, req.audience, req.year)} ${sentence(day, req, reuse, "intro0", names)}${marker(style.markers, day, req.sources)}`);
    if (list !== "bullets") add(`## ${heading}`);
    // Budget: what is left after the closing part, spread over the listed entities.
    const closingBytes = 400;
    const perItem = Math.max(180, (req.targetBytes - bytes - closingBytes - (table ? 90 + req.entities.length * 60 : 0)) / Math.max(1, req.entities.length));
    req.entities.forEach((entity, i) => {
      const mine = otherNames(i);
      const lines: string[] = [];
      const first = sentence(day, req, reuse, `item${i}s0`, mine);
      const lead = `**${entity.name}** — ${first}${marker(style.markers, day, req.sources)}`;
      if (list === "numbered") lines.push(`${i + 1}. ${lead}`);
      else if (list === "bullets") lines.push(`- ${lead}`);
      else lines.push(`### ${i + 1}. ${entity.name}\n\n${first}${marker(style.markers, day, req.sources)}`);
      let itemBytes = lines[0]!.length;
      let n = 1;
      const indent = list === "numbered" ? "   " : "";
      while (itemBytes < perItem && n < 14) {
        let line: string;
        if (n > perItemSentences && day() < style.bulletChance) {
          const label = BULLET_LABELS[(n + i) % BULLET_LABELS.length]!;
          line = `${indent}- **${label}:** ${sentence(day, req, reuse, `item${i}b${n}`, mine, 5, 16)}`;
          lines.push(line);
        } else {
          line = `${sentence(day, req, reuse, `item${i}s${n}`, mine)}${day() < 0.4 ? marker(style.markers, day, req.sources) : ""}`;
          if (list === "headings") lines.push(line);
          else lines[lines.length - 1] += ` ${line}`;
        }
        itemBytes += line.length + 1;
        n++;
      }
      add(lines.join(list === "headings" ? "\n\n" : "\n"));
    });
    if (table) {
      const rows = req.entities.map((e) => `| ${e.name} | ${day.pick(BEST_FOR)} | $${5 + day.int(95)}/user/mo | ${day.chance(0.5) ? "Yes" : "Trial only"} |`);
      add(`## Quick comparison\n\n| Tool | Best for | Starting price | Free plan |\n|---|---|---|---|\n${rows.join("\n")}`);
    }
    add(`## ${closingHeading}`);
    let closing = `${closer} ${sentence(day, req, reuse, "close0", names)}`;
    while (bytes + closing.length < req.targetBytes) closing += ` ${sentence(day, req, reuse, `close${closing.length}`, names)}`;
    add(closing);
    return parts.join("\n\n");
  };
}

export type Composer = ReturnType<typeof createComposer>;
