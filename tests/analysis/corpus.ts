// Loads the hand-labelled corpus in tests/fixtures/analysis (shared by the corpus test and the bench).
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { CitationInput, Entity } from "../../src/analysis";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "analysis");

export interface CorpusCase {
  id: string;
  set: string;
  platform: string;
  language?: string;
  citations?: CitationInput[];
  text: string;
  expect: {
    mentions: Record<string, number>;
    positions: Record<string, number>;
    list_rank: number | null;
    sentiment: "positive" | "neutral" | "negative" | null;
    citations?: { url: string; owner: string | null }[];
  };
}

type RawEntity = Omit<Entity, "kind">;

export function loadEntitySets(): Record<string, { brand: Entity; competitors: Entity[] }> {
  const raw = Bun.YAML.parse(readFileSync(join(FIXTURES, "entities.yaml"), "utf8")) as Record<string, RawEntity[]>;
  return Object.fromEntries(
    Object.entries(raw).map(([name, [brand, ...competitors]]) => [
      name,
      { brand: { ...brand!, kind: "brand" }, competitors: competitors.map((c) => ({ ...c, kind: "competitor" as const })) },
    ]),
  );
}

export function loadCorpus(): CorpusCase[] {
  return readdirSync(FIXTURES)
    .filter((f) => f.startsWith("corpus-") && f.endsWith(".yaml"))
    .sort()
    .flatMap((f) => Bun.YAML.parse(readFileSync(join(FIXTURES, f), "utf8")) as CorpusCase[]);
}
