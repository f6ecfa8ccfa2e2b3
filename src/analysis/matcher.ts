/**
 * Aho-Corasick automaton compiled to a dense DFA over the alphabet of the patterns, so a scan
 * costs one table lookup per UTF-16 unit whatever the number of patterns.
 */

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
}

export function compileMatcher(patterns: readonly string[]): MultiPatternMatcher {
  const symbolOf = new Uint16Array(65536);
  let alphabet = 1;
  for (const p of patterns)
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (symbolOf[c] === 0) symbolOf[c] = alphabet++;
    }

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
  return { alphabet, symbolOf, delta, outStart, outList: Int32Array.from(flat), hasOutput, maxLength: Math.max(0, ...patterns.map((p) => p.length)) };
}
