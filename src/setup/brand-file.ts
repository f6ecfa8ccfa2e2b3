// Config as code (issue #20): a brand, its domains, competitors, topics, prompts and platforms in
// one YAML file. Parsing and checking are pure; every problem names its line, column and field.
import { isMap, isSeq, LineCounter, parseDocument, stringify, type Document } from "yaml";
import { normalizeDomain } from "../analysis/urls";
import { isLanguageTag, MAX_ALIAS_CHARS, MAX_ALIASES, MAX_NAME_CHARS, MAX_PROMPT_CHARS } from "../common/limits";

export interface BrandFile {
  brand: {
    name: string;
    slug: string;
    organization?: string;
    website: string;
    domains: string[];
    region: string | null;
    language: string | null;
    aliases: string[];
    industry: string | null;
    description: string | null;
  };
  competitors: { name: string; domain: string | null; aliases: string[] }[];
  topics: string[];
  prompts: { text: string; topic: string | null }[];
  platforms: { platform: string; frequency: string; samples: number; model: string | null }[];
}

export const FREQUENCIES = ["hourly", "daily", "weekly", "monthly", "manual"];

export class BrandFileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
  }
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/i;
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Parses and checks `text`; throws BrandFileError listing `file:line:col: field: problem` for each. */
export function parseBrandFile(text: string, file = "brand.yaml", platforms: readonly string[] = []): BrandFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const problems: string[] = [];
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `${file}:${line}:${col}`;
  };
  for (const e of doc.errors) problems.push(`${at(e.pos[0])}: ${e.message.split("\n")[0]}`);
  if (problems.length) throw new BrandFileError(problems);
  const path = (p: (string | number)[]) => p.map((k, i) => (typeof k === "number" ? `[${k}]` : `${i ? "." : ""}${k}`)).join("");
  const node = (p: (string | number)[]) => (doc as Document).getIn(p, true) as { range?: [number, number, number] } | undefined;
  const problem = (p: (string | number)[], message: string) => {
    // The field's own position, else its parent's (a missing field is reported where it belongs).
    let n = node(p);
    for (let k = p.length - 1; !n?.range && k > 0; k--) n = node(p.slice(0, k));
    problems.push(`${at(n?.range?.[0])}: ${path(p)}: ${message}`);
  };
  const root = doc.contents;
  if (!isMap(root)) throw new BrandFileError([`${at(0)}: the file must be a YAML mapping with brand, competitors, topics, prompts and platforms`]);
  const known = (p: (string | number)[], keys: string[]) => {
    const m = (doc as Document).getIn(p, true);
    if (isMap(m)) for (const item of m.items) {
      const key = String((item.key as { value?: unknown })?.value ?? item.key);
      // Reported at the key itself.
      if (!keys.includes(key)) problems.push(`${at((item.key as { range?: number[] })?.range?.[0])}: ${path([...p, key])}: unknown field (known: ${keys.join(", ")})`);
    }
  };
  const value = (p: (string | number)[]) => (doc as Document).getIn(p);
  const str = (p: (string | number)[], opts: { required?: boolean; pattern?: RegExp; test?: (s: string) => boolean; what?: string; max?: number } = {}): string | null => {
    const v = value(p);
    if (v === undefined || v === null || v === "") {
      if (opts.required) problem(p, "is required");
      return null;
    }
    if (typeof v !== "string" && typeof v !== "number") {
      problem(p, "must be text");
      return null;
    }
    const s = String(v).trim();
    if ((opts.pattern && !opts.pattern.test(s)) || (opts.test && !opts.test(s))) problem(p, `must be ${opts.what}`);
    if (opts.max && s.length > opts.max) problem(p, `must be at most ${opts.max} characters`);
    return s;
  };
  const list = (p: (string | number)[]): unknown[] => {
    const v = (doc as Document).getIn(p, true);
    if (v === undefined || v === null) return [];
    if (!isSeq(v)) {
      problem(p, "must be a list");
      return [];
    }
    return v.items;
  };
  const strings = (p: (string | number)[], opts: { pattern?: RegExp; what?: string } = {}) => list(p).map((_, i) => str([...p, i], { required: true, ...opts })!).filter(Boolean);
  // As many and as long as /rest/v1 takes them (a JSON list column's rule).
  const aliases = (p: (string | number)[]) => {
    if (list(p).length > MAX_ALIASES) problem(p, `lists at most ${MAX_ALIASES} aliases`);
    return list(p).slice(0, MAX_ALIASES).map((_, i) => str([...p, i], { required: true, max: MAX_ALIAS_CHARS })!).filter(Boolean);
  };
  // As /rest/v1 stores a domain (no scheme, path or "www."): the pixel compares origins with it.
  const host = (s: string | null) => (s ? normalizeDomain(s) : s);

  known([], ["brand", "competitors", "topics", "prompts", "platforms"]);
  known(["brand"], ["name", "slug", "organization", "website", "domains", "region", "language", "aliases", "industry", "description"]);
  if (!isMap((doc as Document).getIn(["brand"], true))) problem(["brand"], "is required: a mapping with at least name, slug and website");
  const website = host(str(["brand", "website"], { required: true }));
  if (website && !DOMAIN.test(website)) problem(["brand", "website"], "must be a domain or a site's address (example.com)");
  const brand: BrandFile["brand"] = {
    name: str(["brand", "name"], { required: true, max: MAX_NAME_CHARS }) ?? "",
    slug: str(["brand", "slug"], { required: true, pattern: SLUG, what: "lower-case letters, digits and hyphens" }) ?? "",
    organization: str(["brand", "organization"]) ?? undefined,
    website: website ?? "",
    domains: strings(["brand", "domains"]).map((d, i) => {
      const h = host(d)!;
      if (!DOMAIN.test(h)) problem(["brand", "domains", i], "must be a domain");
      return h;
    }),
    region: str(["brand", "region"], { pattern: /^[A-Za-z]{2}$/, what: "a two-letter country code" })?.toUpperCase() ?? null,
    language: str(["brand", "language"], { test: isLanguageTag, what: "a language code (en, de, pt-BR)" }) ?? null,
    aliases: aliases(["brand", "aliases"]),
    industry: str(["brand", "industry"]),
    description: str(["brand", "description"]),
  };
  const competitors = list(["competitors"]).map((_, i) => {
    const p = ["competitors", i];
    known(p, ["name", "domain", "aliases"]);
    const domain = host(str([...p, "domain"]));
    if (domain && !DOMAIN.test(domain)) problem([...p, "domain"], "must be a domain");
    return { name: str([...p, "name"], { required: true, max: MAX_NAME_CHARS }) ?? "", domain, aliases: aliases([...p, "aliases"]) };
  });
  const topics = strings(["topics"]);
  const topicSet = new Set(topics);
  const prompts = list(["prompts"]).map((item, i) => {
    const p = ["prompts", i];
    if (isMap(item)) {
      known(p, ["text", "topic"]);
      const topic = str([...p, "topic"]);
      if (topic && !topicSet.has(topic)) problem([...p, "topic"], `is not one of topics (${topics.join(", ") || "none listed"})`);
      return { text: str([...p, "text"], { required: true, max: MAX_PROMPT_CHARS }) ?? "", topic };
    }
    return { text: str(p, { required: true, max: MAX_PROMPT_CHARS }) ?? "", topic: null };
  });
  const platformList = list(["platforms"]).map((item, i) => {
    const p = ["platforms", i];
    if (!isMap(item)) return { platform: str(p, { required: true }) ?? "", frequency: "daily", samples: 1, model: null };
    known(p, ["platform", "frequency", "samples", "model"]);
    const frequency = str([...p, "frequency"]) ?? "daily";
    if (!FREQUENCIES.includes(frequency)) problem([...p, "frequency"], `must be one of ${FREQUENCIES.join(", ")}`);
    const samples = value([...p, "samples"]) ?? 1;
    if (typeof samples !== "number" || !Number.isInteger(samples) || samples < 1 || samples > 10) problem([...p, "samples"], "must be a whole number from 1 to 10");
    return { platform: str([...p, "platform"], { required: true }) ?? "", frequency, samples: Number(samples), model: str([...p, "model"]) };
  });
  platformList.forEach((pl, i) => {
    if (platforms.length && pl.platform && !platforms.includes(pl.platform)) problem(typeof value(["platforms", i]) === "string" ? ["platforms", i] : ["platforms", i, "platform"], `unknown platform (known: ${platforms.join(", ")})`);
  });
  // One pass with a set: a file of many prompts is checked in linear time.
  const duplicates = (items: string[], p: string, what: string) => {
    const seen = new Set<string>();
    items.forEach((x, i) => (seen.has(x) ? problem(p === "prompts" ? ["prompts", i] : [p, i, ...(p === "topics" ? [] : [what])], "is listed twice") : seen.add(x)));
  };
  duplicates(competitors.map((c) => c.name.toLowerCase()), "competitors", "name");
  // docs.acme.com and https://DOCS.acme.com/x are one domain: listed twice it failed the write, not the check.
  const domainsSeen = new Set<string>();
  brand.domains.forEach((d, i) => (domainsSeen.has(d) ? problem(["brand", "domains", i], "is listed twice") : domainsSeen.add(d)));
  duplicates(topics, "topics", "");
  duplicates(prompts.map((p) => p.text), "prompts", "");
  duplicates(platformList.map((p) => p.platform), "platforms", "platform");
  if (problems.length) throw new BrandFileError(problems);
  return { brand, competitors, topics, prompts, platforms: platformList };
}

/** The file for a brand (export): the same shape parseBrandFile reads. */
export function brandFileText(f: BrandFile): string {
  const clean = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length)));
  return stringify(
    {
      brand: clean({ ...f.brand }),
      competitors: f.competitors.map((c) => clean({ ...c })),
      topics: f.topics,
      prompts: f.prompts.map((p) => (p.topic ? { text: p.text, topic: p.topic } : p.text)),
      platforms: f.platforms.map((p) => clean({ ...p })),
    },
    { lineWidth: 0 },
  );
}
