/** Per-answer scores: visibility_score and the GEO position-adjusted word count. */

export interface VisibilityInputs {
  mentioned: boolean;
  /** 1 = named first among the tracked entities. */
  mention_position: number | null;
  /** At least one citation belongs to the brand. */
  brand_cited: boolean;
}

/**
 * visibility_score = round(100 × (0.5·M + 0.3·M/P + 0.2·C)), M = 1 if the brand is named,
 * P = its mention_position, C = 1 if one of the answer's citations is the brand's site.
 * Named first and cited = 100; named second, not cited = 65; only cited = 20.
 */
export function visibilityScore({ mentioned, mention_position, brand_cited }: VisibilityInputs): number {
  const m = mentioned ? 1 : 0;
  const positionFactor = mentioned && mention_position ? 1 / mention_position : 0;
  return Math.round(100 * (0.5 * m + 0.3 * m * positionFactor + 0.2 * (brand_cited ? 1 : 0)));
}

export interface WeightedSentence {
  words: number;
  /** Indices of the entities the sentence names. */
  entities: readonly number[];
}

/**
 * Position-adjusted word count (GEO, Aggarwal et al. 2023, as in their reference code): sentence i
 * of N (0-based) adds words(i) × exp(−i / (N − 1)) (weight 1 when N = 1), split equally among the
 * k entities it names. Returns one raw value per entity.
 */
export function positionAdjustedWordCounts(sentences: readonly WeightedSentence[], entityCount: number): number[] {
  const totals = new Array<number>(entityCount).fill(0);
  const n = sentences.length;
  sentences.forEach((s, i) => {
    if (s.entities.length === 0) return;
    const weight = n > 1 ? Math.exp(-i / (n - 1)) : 1;
    const share = (s.words * weight) / s.entities.length;
    for (const e of s.entities) totals[e]! += share;
  });
  return totals;
}

/** Each entity's fraction of the total position-adjusted word count (0 when nobody is named). */
export function shares(values: readonly number[]): number[] {
  const total = values.reduce((a, b) => a + b, 0);
  return values.map((v) => (total > 0 ? v / total : 0));
}

export function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
