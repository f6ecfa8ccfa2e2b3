import { expect, test } from "bun:test";
import { analyzeAnswer, canonicalizeUrl, compileEntities } from "../../src/analysis";
import { loadCorpus, loadEntitySets } from "./corpus";

const sets = loadEntitySets();
const corpus = loadCorpus();
const compiledSets = Object.fromEntries(Object.entries(sets).map(([k, s]) => [k, compileEntities(s.brand, s.competitors)]));
const results = corpus.map((c) => ({
  c,
  r: analyzeAnswer({ text: c.text, citations: c.citations, compiled: compiledSets[c.set]!, language: c.language }),
}));

function entityCounts(r: ReturnType<typeof analyzeAnswer>, brandId: string): Record<string, number> {
  const counts: Record<string, number> = {};
  if (r.mention_count) counts[brandId] = r.mention_count;
  for (const m of r.competitor_mentions) counts[m.competitor_id] = m.mention_count;
  return counts;
}

test("corpus has at least 60 hand-labelled answers in several languages", () => {
  expect(corpus.length).toBeGreaterThanOrEqual(60);
  expect(new Set(corpus.map((c) => c.language ?? "en")).size).toBeGreaterThanOrEqual(5);
});

test("mention detection precision and recall >= 0.98 on the corpus", () => {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const misses: string[] = [];
  for (const { c, r } of results) {
    const got = entityCounts(r, sets[c.set]!.brand.id);
    for (const id of new Set([...Object.keys(got), ...Object.keys(c.expect.mentions)])) {
      const want = c.expect.mentions[id] ?? 0;
      const have = got[id] ?? 0;
      tp += Math.min(want, have);
      fp += Math.max(0, have - want);
      fn += Math.max(0, want - have);
      if (want !== have) misses.push(`${c.id}/${id}: expected ${want}, got ${have}`);
    }
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  console.log(`mentions: precision ${precision.toFixed(4)}, recall ${recall.toFixed(4)} (tp ${tp}, fp ${fp}, fn ${fn}; ${corpus.length} answers)`);
  if (misses.length) console.log(`  disagreements: ${misses.join("; ")}`);
  expect(precision).toBeGreaterThanOrEqual(0.98);
  expect(recall).toBeGreaterThanOrEqual(0.98);
});

test("mention positions and list ranks agree with the labels", () => {
  let agree = 0;
  let total = 0;
  const misses: string[] = [];
  for (const { c, r } of results) {
    const brandId = sets[c.set]!.brand.id;
    const got: Record<string, number> = Object.fromEntries(r.competitor_mentions.map((m) => [m.competitor_id, m.position]));
    if (r.mention_position !== null) got[brandId] = r.mention_position;
    for (const [id, want] of Object.entries(c.expect.positions)) {
      total++;
      if (got[id] === want) agree++;
      else misses.push(`${c.id}/${id} position: expected ${want}, got ${got[id]}`);
    }
    total++;
    if (r.list_rank === c.expect.list_rank) agree++;
    else misses.push(`${c.id} list_rank: expected ${c.expect.list_rank}, got ${r.list_rank}`);
  }
  console.log(`positions and list ranks: ${agree}/${total} agree`);
  if (misses.length) console.log(`  disagreements: ${misses.join("; ")}`);
  expect(agree / total).toBeGreaterThanOrEqual(0.95);
});

test("citation attribution matches every label (look-alike domains never attributed)", () => {
  let checked = 0;
  for (const { c, r } of results) {
    for (const want of c.expect.citations ?? []) {
      const normalized = canonicalizeUrl(want.url).normalized_url;
      const got = r.citations.find((x) => x.normalized_url === normalized);
      expect(got, `${c.id}: ${want.url}`).toBeDefined();
      const owner = got!.is_brand ? sets[c.set]!.brand.id : got!.competitor_id;
      expect(owner, `${c.id}: ${want.url}`).toBe(want.owner);
      checked++;
    }
    if (c.expect.citations) expect(r.citation_count, c.id).toBe(c.expect.citations.length);
  }
  console.log(`citations: ${checked} labelled citations attributed as labelled`);
  expect(checked).toBeGreaterThanOrEqual(25);
});

test("sentiment label accuracy >= 0.8 on answers that name the brand", () => {
  const labelled = results.filter(({ c }) => c.expect.sentiment !== null);
  const wrong = labelled.filter(({ c, r }) => r.sentiment !== c.expect.sentiment);
  const accuracy = (labelled.length - wrong.length) / labelled.length;
  console.log(`sentiment: accuracy ${accuracy.toFixed(4)} (${labelled.length - wrong.length}/${labelled.length})`);
  const heldOut = labelled.filter(({ c }) => c.id.startsWith("ho-"));
  const heldOutRight = heldOut.filter(({ c, r }) => r.sentiment === c.expect.sentiment).length;
  console.log(`  of which held-out answers (labelled after the proxy tables were tuned): ${heldOutRight}/${heldOut.length}`);
  if (wrong.length) console.log(`  disagreements: ${wrong.map(({ c, r }) => `${c.id}: expected ${c.expect.sentiment}, got ${r.sentiment} (${r.sentiment_score})`).join("; ")}`);
  for (const { c, r } of results.filter(({ c }) => c.expect.sentiment === null)) expect(r.sentiment, c.id).toBeNull();
  expect(accuracy).toBeGreaterThanOrEqual(0.8);
});
