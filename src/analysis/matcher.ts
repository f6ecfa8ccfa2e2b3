/**
 * Aho-Corasick automaton compiled to a dense DFA over the alphabet of the patterns, so a scan
 * costs one table lookup per UTF-16 unit whatever the number of patterns. The table is states ×
 * symbols: past MAX_SYMBOLS distinct units (names in a large script: one CJK name of 3,000
 * characters made a 36 MB table, 20,000 would make 1.7 GB) units share symbols, the automaton then
 * finds a superset of the matches, and `verify` is kept so the scanner checks each one: in O(1) by
 * a rolling hash of the last units (a check spelling out each candidate cost answer length × the
 * spellings' length when many share symbols), then letter by letter when the hash agrees.
 */
export const MAX_SYMBOLS = 128;

export interface MultiPatternMatcher {
  /** Number of symbols; symbol 0 stands for every unit that occurs in no pattern. */
  readonly alphabet: number;
  /** Folded UTF-16 unit -> symbol. */
  readonly symbolOf: Uint16Array;
  /** delta[state * alphabet + symbol] -> next state. */
  readonly delta: Int32Array;
  /** Patterns ending in state s: outList[outStart[s] .. outStart[s + 1]). */
  readonly outStart: Int32Array;
  readonly outList: Int32Array;
  /** 1 where a state ends at least one pattern (one load in the hot loop instead of two). */
  readonly hasOutput: Uint8Array;
  readonly maxLength: number;
  /** When symbols are shared (a match must then be checked against its pattern); null otherwise. */
  readonly verify: PatternCheck | null;
}

/** Each pattern's text, its hash (ROLLING_BASE, mod 2^32) and ROLLING_BASE^length, for the scanner's check. */
export interface PatternCheck {
  readonly texts: readonly string[];
  readonly hashes: Int32Array;
  readonly powers: Int32Array;
}

export const ROLLING_BASE = 0x01000193;

/** The rolling hash of `text` as the scanner computes it unit by unit. */
export function rollingHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, ROLLING_BASE) + text.charCodeAt(i)) | 0;
  return h;
}

function patternCheck(patterns: readonly string[]): PatternCheck {
  const powers = new Int32Array(patterns.length);
  patterns.forEach((p, i) => {
    let power = 1;
    for (let k = 0; k < p.length; k++) power = Math.imul(power, ROLLING_BASE);
    powers[i] = power;
  });
  return { texts: patterns, hashes: Int32Array.from(patterns, rollingHash), powers };
}

export function compileMatcher(patterns: readonly string[]): MultiPatternMatcher {
  const symbolOf = new Uint16Array(65536);
  let distinct = 0;
  for (const p of patterns)
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (symbolOf[c] === 0) symbolOf[c] = ++distinct;
    }
  // Over the bound, the units take symbols 1 … MAX_SYMBOLS - 1 in turn (0 stays "in no pattern").
  const shared = distinct >= MAX_SYMBOLS;
  if (shared) for (let c = 0; c < 65536; c++) if (symbolOf[c] !== 0) symbolOf[c] = 1 + ((symbolOf[c]! - 1) % (MAX_SYMBOLS - 1));
  const alphabet = shared ? MAX_SYMBOLS : distinct + 1;

  // Trie with per-node maps while building; flattened to a dense table below.
  const children: Map<number, number>[] = [new Map()];
  const ownOutputs: number[][] = [[]];
  patterns.forEach((p, index) => {
    let node = 0;
    for (let i = 0; i < p.length; i++) {
      const sym = symbolOf[p.charCodeAt(i)]!;
      let next = children[node]!.get(sym);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        ownOutputs.push([]);
        children[node]!.set(sym, next);
      }
      node = next;
    }
    if (p.length > 0) ownOutputs[node]!.push(index);
  });

  const states = children.length;
  const delta = new Int32Array(states * alphabet);
  const fail = new Int32Array(states);
  const outputs: number[][] = new Array(states);
  outputs[0] = [];
  const queue: number[] = [];
  for (let sym = 0; sym < alphabet; sym++) {
    const child = children[0]!.get(sym);
    delta[sym] = child ?? 0;
    if (child !== undefined) queue.push(child);
  }
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    outputs[node] = ownOutputs[node]!.concat(outputs[fail[node]!]!);
    for (let sym = 0; sym < alphabet; sym++) {
      const child = children[node]!.get(sym);
      const viaFail = delta[fail[node]! * alphabet + sym]!;
      if (child === undefined) delta[node * alphabet + sym] = viaFail;
      else {
        delta[node * alphabet + sym] = child;
        fail[child] = viaFail;
        queue.push(child);
      }
    }
  }

  const outStart = new Int32Array(states + 1);
  const flat: number[] = [];
  for (let s = 0; s < states; s++) {
    outStart[s] = flat.length;
    for (const o of outputs[s]!) flat.push(o);
  }
  outStart[states] = flat.length;
  const hasOutput = Uint8Array.from({ length: states }, (_, s) => (outStart[s + 1]! > outStart[s]! ? 1 : 0));
  return { alphabet, symbolOf, delta, outStart, outList: Int32Array.from(flat), hasOutput, maxLength: patterns.reduce((m, p) => Math.max(m, p.length), 0), verify: shared ? patternCheck(patterns) : null };
}
