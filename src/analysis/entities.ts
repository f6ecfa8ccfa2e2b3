/** Entities (brand + competitors) compiled once into one matcher, and mention finding. */
import { compileMatcher, type MultiPatternMatcher } from "./matcher";
import { foldString, foldText, isBoundary, isWordUnit, originalEnd, type FoldedText } from "./normalize";
import { scanLinks, tokenAt, type LinkToken } from "./links";
import { normalizeDomain } from "./urls";

export type EntityKind = "brand" | "competitor";
/** An alias; `caseSensitive` is for names that are also common words ("Notion", "Monday"). */
export interface AliasSpec {
  text: string;
  caseSensitive?: boolean;
}
export interface Entity {
  id: string;
  kind: EntityKind;
  name: string;
  /** Match the name itself case-sensitively (for names that are common words: "Notion", "Square"). */
  caseSensitive?: boolean;
  aliases?: readonly (string | AliasSpec)[];
  domains?: readonly string[];
}

interface PatternInfo {
  entity: number;
  /** Domain patterns follow host rules: subdomains count, look-alikes (acme.com.evil.io) do not. */
  hostLike: boolean;
  length: number;
  /** Case-folded form the original text must equal (separators ignored), or null. */
  caseSensitive: string | null;
}

export interface CompiledEntities {
  /** Index 0 is the brand; competitors follow in the order given. */
  readonly entities: readonly Entity[];
  readonly domainOwners: readonly { domain: string; entity: number }[];
  readonly matcher: MultiPatternMatcher;
  readonly patterns: readonly PatternInfo[];
}

export interface Mention {
  entity: number;
  entity_id: string;
  /** UTF-16 offsets in the analysed text. */
  start: number;
  end: number;
  text: string;
}

const HOST_LIKE = /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+$/u;
const SEPARATORS = /[ \-']/g;

function aliasSpecs(entity: Entity): AliasSpec[] {
  const specs: AliasSpec[] = [{ text: entity.name, caseSensitive: entity.caseSensitive }];
  for (const a of entity.aliases ?? []) specs.push(typeof a === "string" ? { text: a } : a);
  return specs;
}

/** "Coca-Cola" is also written "Coca Cola" and "CocaCola"; "McDonald's" also "McDonalds". */
function spellingVariants(folded: string): string[] {
  if (!/[ \-']/.test(folded)) return [folded];
  return [...new Set([folded, folded.replace(/[ -]/g, " "), folded.replace(/[ -]/g, "-"), folded.replace(SEPARATORS, "")])];
}

export function compileEntities(brand: Entity, competitors: readonly Entity[] = []): CompiledEntities {
  const entities = [{ ...brand, kind: "brand" as const }, ...competitors.map((c) => ({ ...c, kind: "competitor" as const }))];
  const texts: string[] = [];
  const patterns: PatternInfo[] = [];
  const seen = new Map<string, number>();
  const add = (text: string, info: PatternInfo) => {
    // The same spelling for two entities goes to the first declared (the brand before competitors).
    const key = `${text}\u0000${info.caseSensitive ?? ""}`;
    if (!text || seen.has(key)) return;
    seen.set(key, patterns.length);
    texts.push(text);
    patterns.push(info);
  };
  const domainOwners: { domain: string; entity: number }[] = [];
  entities.forEach((entity, index) => {
    for (const spec of aliasSpecs(entity)) {
      const folded = foldString(spec.text.trim());
      const hostLike = HOST_LIKE.test(folded);
      const caseSensitive = spec.caseSensitive ? foldString(spec.text.trim(), true).replace(SEPARATORS, "") : null;
      for (const variant of hostLike ? [folded] : spellingVariants(folded))
        add(variant, { entity: index, hostLike, length: variant.length, caseSensitive });
    }
    for (const raw of entity.domains ?? []) {
      const domain = normalizeDomain(raw);
      if (!domain) continue;
      domainOwners.push({ domain, entity: index });
      add(foldString(domain), { entity: index, hostLike: true, length: domain.length, caseSensitive: null });
    }
  });
  // Most specific domain first, so shop.acme.com can belong to someone other than acme.com.
  domainOwners.sort((a, b) => b.domain.length - a.domain.length || a.entity - b.entity);
  return { entities, domainOwners, matcher: compileMatcher(texts), patterns };
}

interface Candidate {
  pattern: number;
  start: number;
  end: number;
}

function passesBoundaries(info: PatternInfo, f: FoldedText, start: number, end: number): boolean {
  const before = start > 0 ? f.codes[start - 1]! : -1;
  const after = end < f.length ? f.codes[end]! : -1;
  if (!info.hostLike) return isBoundary(before, f.codes[start]!) && isBoundary(f.codes[end - 1]!, after);
  // Hosts: "docs.acme.com" counts for acme.com, "notacme.com", "acme.com.evil.io" do not.
  if (before >= 0 && (isWordUnit(before) || before === 45)) return false;
  if (after < 0) return true;
  if (isWordUnit(after) || after === 45) return false;
  return !(after === 46 && end + 1 < f.length && isWordUnit(f.codes[end + 1]!));
}

/** Inside URLs only the host counts, and only for the entity that owns it. */
function allowedByLinks(info: PatternInfo, token: LinkToken | null, start: number, end: number): boolean {
  if (!token) return true;
  if (token.hidden) return false;
  if (start < token.hostStart || end > token.hostEnd) return false;
  return info.hostLike && end === token.hostEnd;
}

/** Among overlapping matches the longest wins; ties go to the earlier start, then the first entity. */
function resolveOverlaps(candidates: Candidate[], patterns: readonly PatternInfo[]): Candidate[] {
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  const chosen: Candidate[] = [];
  let group: Candidate[] = [];
  let groupEnd = -1;
  const flush = () => {
    if (group.length === 1) chosen.push(group[0]!);
    else if (group.length > 1) {
      group.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start || patterns[a.pattern]!.entity - patterns[b.pattern]!.entity);
      const taken: Candidate[] = [];
      for (const c of group) if (taken.every((t) => c.end <= t.start || c.start >= t.end)) taken.push(c);
      taken.sort((a, b) => a.start - b.start);
      chosen.push(...taken);
    }
    group = [];
  };
  for (const c of candidates) {
    if (c.start >= groupEnd) {
      flush();
      groupEnd = c.end;
    } else groupEnd = Math.max(groupEnd, c.end);
    group.push(c);
  }
  flush();
  return chosen;
}

/** Every mention of every entity in `text`, in text order, found in one pass of the matcher. */
export function findMentions(compiled: CompiledEntities, text: string, links: readonly LinkToken[] = scanLinks(text)): Mention[] {
  const folded = foldText(text);
  const candidates: Candidate[] = [];
  const { patterns } = compiled;
  compiled.matcher.scan(folded.codes, folded.length, (pattern, end) => {
    const info = patterns[pattern]!;
    const start = end - info.length;
    if (passesBoundaries(info, folded, start, end)) candidates.push({ pattern, start, end });
  });
  const kept: Candidate[] = [];
  for (const c of candidates) {
    const info = patterns[c.pattern]!;
    const start = folded.origin[c.start]!;
    const end = originalEnd(text, folded, c.end);
    if (!allowedByLinks(info, tokenAt(links, start, end), start, end)) continue;
    if (info.caseSensitive !== null && foldString(text.slice(start, end), true).replace(SEPARATORS, "") !== info.caseSensitive) continue;
    kept.push(c);
  }
  const mentions: Mention[] = [];
  for (const c of resolveOverlaps(kept, patterns)) {
    const entity = patterns[c.pattern]!.entity;
    const start = folded.origin[c.start]!;
    const end = originalEnd(text, folded, c.end);
    const previous = mentions[mentions.length - 1];
    // "Salesforce Sales Cloud" is one mention of one name, not two.
    if (previous && previous.entity === entity && /^\s+$/.test(text.slice(previous.end, start))) {
      previous.end = end;
      previous.text = text.slice(previous.start, end);
      continue;
    }
    mentions.push({ entity, entity_id: compiled.entities[entity]!.id, start, end, text: text.slice(start, end) });
  }
  return mentions;
}
