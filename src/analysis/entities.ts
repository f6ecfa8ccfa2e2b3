/** Entities (brand + competitors) compiled once into one matcher, and mention finding. */
import { compileMatcher, ROLLING_BASE, type MultiPatternMatcher } from "./matcher";
import { ASCII_FOLD, characterEnd, foldCached, foldedUnitAt, foldString, isBoundary, isWordUnit } from "./normalize";
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
  /** First and last folded unit, for the boundary checks. */
  first: number;
  last: number;
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

/**
 * Folded units of all patterns together: the automaton has up to one state per unit (its table at
 * most this × MAX_SYMBOLS × 4 bytes, 20 MB). A brand and dozens of competitors with their aliases
 * take a few thousand; spellings past it (in declaration order: the brand's come first) are left out.
 */
export const MAX_PATTERN_UNITS = 40_000;

export function compileEntities(brand: Entity, competitors: readonly Entity[] = []): CompiledEntities {
  const entities = [{ ...brand, kind: "brand" as const }, ...competitors.map((c) => ({ ...c, kind: "competitor" as const }))];
  const texts: string[] = [];
  const patterns: PatternInfo[] = [];
  const seen = new Map<string, number>();
  let units = 0;
  const add = (text: string, info: PatternInfo) => {
    // The same spelling for two entities goes to the first declared (the brand before competitors).
    const key = `${text}\u0000${info.caseSensitive ?? ""}`;
    if (!text || seen.has(key) || units + text.length > MAX_PATTERN_UNITS) return;
    units += text.length;
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
        add(variant, { entity: index, hostLike, length: variant.length, first: variant.charCodeAt(0), last: variant.charCodeAt(variant.length - 1), caseSensitive });
    }
    for (const raw of entity.domains ?? []) {
      const domain = normalizeDomain(raw);
      if (!domain) continue;
      domainOwners.push({ domain, entity: index });
      const folded = foldString(domain);
      add(folded, { entity: index, hostLike: true, length: folded.length, first: folded.charCodeAt(0), last: folded.charCodeAt(folded.length - 1), caseSensitive: null });
    }
  });
  // Most specific domain first, so shop.acme.com can belong to someone other than acme.com.
  domainOwners.sort((a, b) => b.domain.length - a.domain.length || a.entity - b.entity);
  return { entities, domainOwners, matcher: compileMatcher(texts), patterns };
}

interface Candidate {
  pattern: number;
  /** Offsets in the original text. */
  start: number;
  end: number;
}

function passesLeftBoundary(info: PatternInfo, before: number): boolean {
  if (before < 0) return true;
  // Hosts: "docs.acme.com" counts for acme.com, "notacme.com" and "my-acme.com" do not.
  if (info.hostLike) return !isWordUnit(before) && before !== 45;
  return isBoundary(before, info.first);
}

function passesRightBoundary(info: PatternInfo, text: string, end: number, cache: Map<number, string>): boolean {
  const after = foldedUnitAt(text, end, cache);
  if (!info.hostLike) return isBoundary(info.last, after);
  if (after < 0) return true;
  if (isWordUnit(after) || after === 45) return false;
  // "acme.com.evil.io" is another host; "acme.com." ends a sentence.
  return !(after === 46 && isWordUnit(foldedUnitAt(text, end + 1, cache)));
}

/** Scan state shared by the hot loop and its rare paths (matches, characters folding to several units). */
interface ScanState {
  compiled: CompiledEntities;
  ring: Int32Array;
  ringSize: number;
  /** Candidates as flat triples: pattern, start offset, offset of the last character. */
  found: number[];
  state: number;
  n: number;
  /** Symbols shared (matcher.verify): the rolling hash of every unit fed so far (the ring's third part keeps the last ones). */
  hash: number;
}

/** Whether the folded units ending at n spell `text` (symbols shared: the automaton's match may be another spelling). */
function spells(scan: ScanState, text: string, n: number): boolean {
  const mask = scan.ringSize - 1;
  const start = n + 1 - text.length;
  if (start < 0) return false;
  for (let k = 0; k < text.length; k++) if (scan.ring[(start + k) & mask] !== text.charCodeAt(k)) return false;
  return true;
}

/** Whether the units ending at n are pattern's (symbols shared): its hash in O(1), then its letters when the hash agrees. */
function verified(scan: ScanState, pattern: number, n: number, start: number): boolean {
  const { hashes, powers, texts } = scan.compiled.matcher.verify!;
  if (start < 0) return false;
  const { ring, ringSize } = scan;
  const mask = ringSize - 1;
  const before = start > 0 ? ring[2 * ringSize + ((start - 1) & mask)]! : 0;
  const window = (ring[2 * ringSize + (n & mask)]! - Math.imul(before, powers[pattern]!)) | 0;
  return window === hashes[pattern] && spells(scan, texts[pattern]!, n);
}

/** Records the patterns ending at folded unit n whose left boundary holds. */
function collect(scan: ScanState, state: number, n: number, origin: number): void {
  const { outStart, outList, verify } = scan.compiled.matcher;
  const { ring, ringSize } = scan;
  const mask = ringSize - 1;
  for (let o = outStart[state]!, to = outStart[state + 1]!; o < to; o++) {
    const pattern = outList[o]!;
    const info = scan.compiled.patterns[pattern]!;
    const start = n + 1 - info.length;
    if (verify && !verified(scan, pattern, n, start)) continue;
    if (passesLeftBoundary(info, start > 0 ? ring[(start - 1) & mask]! : -1)) scan.found.push(pattern, ring[ringSize + (start & mask)]!, origin);
  }
}

/** Feeds the leading units of a character that folds to several ("ß" -> "ss"); rare. */
function feedUnits(scan: ScanState, units: string, count: number, origin: number): void {
  const { alphabet, symbolOf, delta, hasOutput } = scan.compiled.matcher;
  const mask = scan.ringSize - 1;
  for (let k = 0; k < count; k++) {
    const code = units.charCodeAt(k);
    scan.ring[scan.n & mask] = code;
    scan.ring[scan.ringSize + (scan.n & mask)] = origin;
    if (scan.compiled.matcher.verify) scan.ring[2 * scan.ringSize + (scan.n & mask)] = scan.hash = (Math.imul(scan.hash, ROLLING_BASE) + code) | 0;
    scan.state = delta[scan.state * alphabet + symbolOf[code]!]!;
    if (hasOutput[scan.state] === 1) collect(scan, scan.state, scan.n, origin);
    scan.n++;
  }
}

/**
 * One pass over the text: each character is folded on the fly and fed to the automaton; a small
 * ring buffer keeps the folded units and original offsets of the last pattern-length characters,
 * so no folded copy of the answer is built. Returns flat candidate triples.
 */
function scanCandidates(compiled: CompiledEntities, text: string, cache: Map<number, string>): number[] {
  const { alphabet, symbolOf, delta, hasOutput, maxLength, verify } = compiled.matcher;
  let ringSize = 8;
  while (ringSize < maxLength + 2) ringSize *= 2;
  const mask = ringSize - 1;
  const scan: ScanState = { compiled, ring: new Int32Array((verify ? 3 : 2) * ringSize), ringSize, found: [], state: 0, n: 0, hash: 0 };
  const ring = scan.ring;
  let state = 0;
  let n = 0;
  let hash = 0;
  let previous = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const origin = i;
    let code = text.charCodeAt(i);
    if (code < 128) code = ASCII_FOLD[code]!;
    else {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      const folded = foldCached(cp, cache);
      if (folded.length === 0) continue;
      if (folded.length > 1) {
        scan.state = state;
        scan.n = n;
        scan.hash = hash;
        feedUnits(scan, folded, folded.length - 1, origin);
        state = scan.state;
        n = scan.n;
        hash = scan.hash;
      }
      code = folded.charCodeAt(folded.length - 1);
    }
    if (code === 32 && previous === 32) continue;
    ring[n & mask] = code;
    ring[ringSize + (n & mask)] = origin;
    if (verify) ring[2 * ringSize + (n & mask)] = hash = (Math.imul(hash, ROLLING_BASE) + code) | 0;
    state = delta[state * alphabet + symbolOf[code]!]!;
    if (hasOutput[state] === 1) collect(scan, state, n, origin);
    previous = code;
    n++;
  }
  return scan.found;
}

/** Inside URLs only the host counts, and only for the entity that owns it. */
function allowedByLinks(info: PatternInfo, token: LinkToken | null, start: number, end: number): boolean {
  if (!token) return true;
  if (token.hidden) return false;
  if (start < token.hostStart || end > token.hostEnd) return false;
  return info.hostLike && end === token.hostEnd;
}

/** Longest first, then earlier start, then the first declared entity. */
function compareForOverlap(patterns: readonly PatternInfo[], a: Candidate, b: Candidate): number {
  return b.end - b.start - (a.end - a.start) || a.start - b.start || patterns[a.pattern]!.entity - patterns[b.pattern]!.entity;
}

/** Picks non-overlapping candidates from one group of mutually overlapping ones, longest first. */
function pickLongest(group: Candidate[], patterns: readonly PatternInfo[], into: Candidate[]): void {
  group.sort((a, b) => compareForOverlap(patterns, a, b));
  const taken: Candidate[] = [];
  for (const c of group) if (taken.every((t) => c.end <= t.start || c.start >= t.end)) taken.push(c);
  taken.sort((a, b) => a.start - b.start);
  for (const c of taken) into.push(c);
}

/** Among overlapping matches the longest wins; ties go to the earlier start, then the first entity. */
function resolveOverlaps(candidates: Candidate[], patterns: readonly PatternInfo[]): Candidate[] {
  // Candidates arrive in order of their end; most texts need no sort at all.
  let sorted = true;
  for (let i = 1; i < candidates.length && sorted; i++) {
    const a = candidates[i - 1]!;
    const b = candidates[i]!;
    sorted = a.start < b.start || (a.start === b.start && a.end >= b.end);
  }
  if (!sorted) candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  const chosen: Candidate[] = [];
  let i = 0;
  while (i < candidates.length) {
    let groupEnd = candidates[i]!.end;
    let j = i + 1;
    while (j < candidates.length && candidates[j]!.start < groupEnd) groupEnd = Math.max(groupEnd, candidates[j++]!.end);
    if (j === i + 1) chosen.push(candidates[i]!);
    else if (j === i + 2) {
      // Two overlapping matches (the usual case: "Acme" inside "Acme Cloud"): keep the better one.
      const a = candidates[i]!;
      const b = candidates[i + 1]!;
      chosen.push(compareForOverlap(patterns, a, b) <= 0 ? a : b);
    } else pickLongest(candidates.slice(i, j), patterns, chosen);
    i = j;
  }
  return chosen;
}

/**
 * Every mention of every entity in `text`, in text order, found in one pass of the matcher.
 * `links` (from scanLinks) can be passed when the caller has them already.
 */
export function findMentions(compiled: CompiledEntities, text: string, links: readonly LinkToken[] = scanLinks(text)): Mention[] {
  const cache = new Map<number, string>();
  const { patterns } = compiled;
  const kept: Candidate[] = [];
  const found = scanCandidates(compiled, text, cache);
  for (let f = 0; f < found.length; f += 3) {
    const pattern = found[f]!;
    const info = patterns[pattern]!;
    const start = found[f + 1]!;
    const end = characterEnd(text, found[f + 2]!);
    if (!passesRightBoundary(info, text, end, cache)) continue;
    if (links.length && !allowedByLinks(info, tokenAt(links, start, end), start, end)) continue;
    if (info.caseSensitive !== null && foldString(text.slice(start, end), true).replace(SEPARATORS, "") !== info.caseSensitive) continue;
    kept.push({ pattern, start, end });
  }
  const mentions: Mention[] = [];
  for (const c of resolveOverlaps(kept, patterns)) {
    const entity = patterns[c.pattern]!.entity;
    const previous = mentions[mentions.length - 1];
    // "Salesforce Sales Cloud" is one mention of one name, not two.
    if (previous && previous.entity === entity && isWhitespaceBetween(text, previous.end, c.start)) {
      previous.end = c.end;
      previous.text = text.slice(previous.start, c.end);
      continue;
    }
    mentions.push({ entity, entity_id: compiled.entities[entity]!.id, start: c.start, end: c.end, text: text.slice(c.start, c.end) });
  }
  return mentions;
}

function isWhitespaceBetween(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 0xa0) return false;
  }
  return true;
}
