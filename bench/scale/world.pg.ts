// bench/postgres.ts's world on Postgres, also used by bench/rls.ts: 50 brands in the owner's
// organization, the big one 200 prompts × 8 platforms tracked daily (~56 % of the results), the
// others 26 prompt × platform groups each, one result per group per day with a 3–6 KB answer and 7
// citations, written with the product's bulk write path (insertResults, src/results/store.pg.ts).
import type { SQL } from "bun";
import { canonicalizeUrl } from "../../src/analysis/urls";
import { DEFAULT_MODELS } from "../../src/engines/config";
import { PLATFORM_IDS } from "../../src/engines/types";
import { rebuildLatestPg } from "../../src/results/latest.pg";
import type { ResultKey } from "../../src/results/store";
import { insertResults } from "../../src/results/store.pg";
import { PG_ROLLUPS, rebuildPgRollups, triggerNames } from "../../src/rollups/triggers.pg";
import type { ResultValues } from "../../src/tracking/unit";
import { SCALES } from "./generate";
import { rng, zipf, type Rng } from "./random";

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const PLATFORMS = PLATFORM_IDS.filter((p) => p !== "openai-compatible");
const BRANDS = 50;
const BIG_PROMPTS = 200;
const DAY_MS = 86_400_000;
const WORDS = "the a of best for with team teams tool tools pricing plan plans support integration integrations data report reports dashboard users customers small large enterprise startup choose compare review reviews feature features option options cost free trial secure fast simple reliable popular leading analytics insight insights workflow workflows automation platform service services product products market growth value".split(" ");

export interface WorldMeta {
  results: number;
  bigResults: number;
  bigBrandId: string;
  bigGroups: number;
  seconds: number;
  how: string;
}

export interface WorldOptions {
  /** rebuild: the result tables' rollup and latest-results triggers off while loading, the product's rebuilds after; triggers: every trigger on. */
  load: "rebuild" | "triggers";
  /** Results per transaction. */
  batch: number;
}

/** The world of one scale in `sql`'s database (its server already migrated it and signed the owner `userId` up, alone in their organization). */
export async function buildPgWorld(sql: SQL, scale: string, userId: string, { load: LOAD, batch: BATCH }: WorldOptions): Promise<WorldMeta> {
  const total = SCALES[scale]!;
  const t0 = performance.now();
  const r = rng(`postgres-bench|${scale}`);
  const [{ organization_id: orgId }] = await sql`SELECT organization_id FROM organization_members WHERE user_id = ${userId}`;
  interface Group { brandId: string; promptId: string; platform: string; brandName: string; competitors: string[] }
  const groups: Group[] = [];
  let bigBrandId = "";
  for (let b = 0; b < BRANDS; b++) {
    const big = b === 0;
    const name = big ? "Northwind Analytics" : `Brand ${b}`;
    const [{ id: brandId }] = await sql`INSERT INTO brands (organization_id, name, slug, industry, region, language) VALUES (${orgId}, ${name}, ${`brand-${b}`}, 'software', 'US', 'en') RETURNING id`;
    if (big) bigBrandId = brandId;
    await sql`INSERT INTO brand_domains (brand_id, domain, is_primary) VALUES (${brandId}, ${`brand${b}.com`}, true)`;
    const competitors = Array.from({ length: big ? 8 : 3 }, (_, c) => `Rival ${b}-${c}`);
    for (const [c, cName] of competitors.entries()) await sql`INSERT INTO competitors (brand_id, name, domain) VALUES (${brandId}, ${cName}, ${`rival${b}x${c}.com`})`;
    const platforms = big ? PLATFORMS : r.shuffle([...PLATFORMS]).slice(0, 2);
    const promptCount = big ? BIG_PROMPTS : 13;
    const [{ id: setId }] = await sql`INSERT INTO prompt_sets (brand_id, name) VALUES (${brandId}, 'Core') RETURNING id`;
    for (const p of platforms) await sql`INSERT INTO brand_platforms (brand_id, platform, check_frequency, model) VALUES (${brandId}, ${p}, 'daily', ${DEFAULT_MODELS[p] || p})`;
    const prompts = Array.from({ length: promptCount }, (_, i) => ({ prompt_set_id: setId, brand_id: brandId, text: `Which ${WORDS[i % WORDS.length]} tool should team ${i} of ${name} pick?` }));
    const ids = await sql`INSERT INTO prompts (prompt_set_id, brand_id, text) SELECT prompt_set_id, brand_id, text FROM jsonb_to_recordset(${prompts}::jsonb) AS x(prompt_set_id uuid, brand_id uuid, text text) RETURNING id`;
    for (const { id } of ids) for (const platform of platforms) groups.push({ brandId, promptId: id, platform, brandName: name, competitors });
  }
  r.shuffle(groups);
  const bigGroups = groups.filter((g) => g.brandId === bigBrandId).length;
  // ~3,000 citable URLs over 300 domains, Zipf popularity.
  const pool = Array.from({ length: 3000 }, (_, i) => {
    const url = `https://www.site${i % 300}.com/${r.pick(WORDS)}/${r.pick(WORDS)}-${r.pick(WORDS)}-${i}`;
    return { url, ...canonicalizeUrl(url), title: `${r.pick(WORDS)} ${r.pick(WORDS)} ${r.pick(WORDS)} ${i}` };
  });
  const pickUrl = zipf(pool.length, 1.0);
  const sentence = (x: Rng) => {
    const n = 8 + x.int(14);
    const words = Array.from({ length: n }, () => x.pick(WORDS));
    return `${words.join(" ")}.`;
  };
  const result = (g: Group, x: Rng): ResultValues => {
    const mentioned = x() < 0.45;
    const parts: string[] = [];
    const target = 3000 + x.int(3000);
    let bytes = 0;
    let at = 0;
    while (bytes < target) {
      const s = at === 2 && mentioned ? `${g.brandName} is ${sentence(x)}` : x() < 0.2 ? `${x.pick(g.competitors)} offers ${sentence(x)}` : sentence(x);
      parts.push(s);
      bytes += s.length + 1;
      at++;
    }
    const chosen = new Set<number>();
    while (chosen.size < 7) chosen.add(pickUrl(x));
    const cites = [...chosen].map((k, i) => ({ position: i + 1, url: pool[k]!.url, normalized_url: pool[k]!.normalized_url, domain: pool[k]!.domain, host: pool[k]!.host, title: pool[k]!.title, is_brand: false, competitor_id: null }));
    const citations = JSON.stringify(cites);
    return {
      surface: "api", response: parts.join(" "), mentioned: mentioned ? 1 : 0, mention_count: mentioned ? 1 : 0, mention_position: mentioned ? 1 + x.int(4) : null,
      competitor_mentions: "[]", citations, citation_count: cites.length, brand_citation_count: 0, sources: JSON.stringify(cites.map((c) => ({ ...c, cited: true }))), source_count: cites.length,
      sentiment: mentioned ? "positive" : null, sentiment_score: mentioned ? 0.4 : null, visibility_score: mentioned ? 60 + x.int(40) : 0,
      search_queries: JSON.stringify([`best ${g.platform} ${x.pick(WORDS)}`]), details: "{}", reported_model: DEFAULT_MODELS[g.platform as keyof typeof DEFAULT_MODELS] || g.platform,
    };
  };
  // The rollups fed by the result tables (and those fed by them), and their triggers on those tables.
  const resultTables = new Set(["prompt_results", "citations"]);
  const fed = PG_ROLLUPS.filter((spec) => resultTables.has(spec.source));
  const rebuilt = PG_ROLLUPS.filter((spec) => fed.includes(spec) || fed.some((f) => f.table === spec.source));
  const switched = [...fed.flatMap((spec) => triggerNames(spec).map((name) => [spec.source, name] as const)), ["prompt_results", "aw_latest_insert"] as const];
  const triggers = async (on: boolean) => {
    for (const [table, name] of switched) await sql.unsafe(`ALTER TABLE ${table} ${on ? "ENABLE" : "DISABLE"} TRIGGER ${name}`);
  };
  if (LOAD === "rebuild") await triggers(false);
  // Day by day, oldest first; the first day partial so the total is exact. One transaction at a
  // time while the next batch is built: two at once, each holding every brand of a day, deadlock on
  // the rollup rows (one brand's results come from one job at a time in the product).
  const days = Math.ceil(total / groups.length);
  const firstDay = total - (days - 1) * groups.length;
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  let written = 0, bigResults = 0, lastLog = performance.now();
  let batch: { key: ResultKey; values: ResultValues }[] = [];
  const inFlight: Promise<unknown>[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const mine = batch;
    batch = [];
    if (inFlight.length >= 1) await inFlight.shift();
    inFlight.push(
      sql.begin(async (tx) => {
        const ids = await insertResults(tx, mine);
        if (ids.size !== mine.length) throw new Error(`${mine.length - ids.size} results were not inserted`);
      }),
    );
  };
  for (let d = 0; d < days; d++) {
    const dayStart = today - (days - d) * DAY_MS;
    const todays = d === 0 ? groups.slice(0, firstDay) : groups;
    for (const [i, g] of todays.entries()) {
      const x = rng(`${scale}|${d}|${i}`);
      const at = dayStart + Math.floor((i / groups.length) * (DAY_MS - 60_000));
      batch.push({ key: { id: Bun.randomUUIDv7("hex", at), jobId: null, brandId: g.brandId, promptId: g.promptId, platform: g.platform, model: DEFAULT_MODELS[g.platform as keyof typeof DEFAULT_MODELS] || g.platform, region: "US", createdAt: new Date(at).toISOString() }, values: result(g, x) });
      written++;
      if (g.brandId === bigBrandId) bigResults++;
      if (batch.length >= BATCH) await flush();
      if (performance.now() - lastLog > 30_000) {
        lastLog = performance.now();
        const elapsed = (performance.now() - t0) / 1000;
        console.log(`   ${scale}: ${written.toLocaleString("en")} of ${total.toLocaleString("en")} results in ${elapsed.toFixed(0)} s, about ${((elapsed / written) * (total - written)).toFixed(0)} s to go`);
      }
    }
  }
  await flush();
  await Promise.all(inFlight);
  const loaded = (performance.now() - t0) / 1000;
  let rebuild = "";
  if (LOAD === "rebuild") {
    const t = performance.now();
    await sql.begin(async (tx) => {
      await rebuildPgRollups(tx, rebuilt, true);
      await rebuildLatestPg(tx);
    });
    await triggers(true);
    rebuild = `, then ${rebuilt.length} rollups and the latest results rebuilt in ${secs(performance.now() - t)} (triggers on again)`;
  }
  await sql`ANALYZE`;
  return { results: written, bigResults, bigBrandId, bigGroups, seconds: (performance.now() - t0) / 1000, how: `insertResults in ${loaded.toFixed(0)} s (${Math.round(written / loaded).toLocaleString("en")} results/s, ${LOAD === "rebuild" ? "rollup and latest triggers off" : "every trigger on"})${rebuild}` };
}

