// What a batch of crawler hits adds to each crawler rollup, aggregated here in one pass so a bulk
// import writes each bucket once (issue #32). The same sums as the rollup spec's per-row triggers
// (src/rollups/spec.ts, the crawler_* rollups); tests/rollups/rollups.test.ts holds both to the
// raw rows.
import { periodOf } from "../insights/window";
import type { BucketSums } from "../rollups/triggers.sqlite";
import type { CrawlerHit } from "./store";

const flag = (condition: boolean) => (condition ? 1 : 0);

/** One rollup's buckets of a batch by their key (`id`): made with zero sums the first time, then added to. */
function buckets<K extends BucketSums, M extends Record<string, number>>(measures: readonly (keyof M & string)[]) {
  const map = new Map<string, K & M>();
  return {
    values: () => map.values(),
    add(id: string, keys: () => K, sums: M) {
      let bucket = map.get(id);
      if (!bucket) map.set(id, (bucket = { ...keys(), ...sums }));
      else for (const m of measures) (bucket[m] as number) += sums[m];
    },
  };
}

const BOT_MEASURES = ["requests", "pages", "refused", "not_found", "server_errors", "bytes"] as const;
const PATH_MEASURES = ["requests", "refused", "not_found", "server_errors"] as const;

/**
 * The buckets the hits add to, for every rollup of crawler_hits: crawler_daily, _weekly and
 * _monthly (per bot, class and verdict), crawler_path_totals per named bot, hit kind, path and
 * day, and its _keys (a bulk write missing one of the source's rollups fails).
 */
export function crawlerBuckets(brandId: string, hits: Iterable<CrawlerHit>): Map<string, Iterable<BucketSums>> {
  type Bot = { brand_id: string; bot: string; class: string; verdict: string };
  const daily = buckets<Bot & { day: string }, Record<(typeof BOT_MEASURES)[number], number>>(BOT_MEASURES);
  const weekly = buckets<Bot & { week: string }, Record<(typeof BOT_MEASURES)[number], number>>(BOT_MEASURES);
  const monthly = buckets<Bot & { month: string }, Record<(typeof BOT_MEASURES)[number], number>>(BOT_MEASURES);
  type Path = { brand_id: string; bot: string; hit: string; path: string };
  const pathKeys = buckets<Path, { rows: number }>(["rows"]);
  const pathDays = buckets<Path & { day: string }, Record<(typeof PATH_MEASURES)[number], number>>(PATH_MEASURES);
  const weeks = new Map<string, string>();
  for (const h of hits) {
    const day = h.at.slice(0, 10);
    const month = h.at.slice(0, 7);
    let week = weeks.get(day);
    if (!week) weeks.set(day, (week = periodOf(day, "week")));
    const bot = h.bot ?? "";
    const verdict = h.verdict ?? "";
    const who = `${bot}\u0000${h.class}\u0000${verdict}`;
    const key = () => ({ brand_id: brandId, bot, class: h.class, verdict });
    // What the site answered, apart: refused (the site said no), not found, server errors.
    const refused = flag(h.status === 401 || h.status === 403 || h.status === 429);
    const notFound = flag(h.status === 404 || h.status === 410);
    const serverErrors = flag(h.status >= 500);
    const sums = { requests: 1, pages: flag(h.hit === "page"), refused, not_found: notFound, server_errors: serverErrors, bytes: h.bytes ?? 0 };
    daily.add(`${day}\u0000${who}`, () => ({ ...key(), day }), sums);
    weekly.add(`${week}\u0000${who}`, () => ({ ...key(), week }), sums);
    monthly.add(`${month}\u0000${who}`, () => ({ ...key(), month }), sums);
    if (h.bot === null) continue;
    const path = `${h.bot}\u0000${h.hit}\u0000${h.path}`;
    const pathKey = () => ({ brand_id: brandId, bot, hit: h.hit, path: h.path });
    pathKeys.add(path, pathKey, { rows: 1 });
    pathDays.add(`${path}\u0000${day}`, () => ({ ...pathKey(), day }), { requests: 1, refused, not_found: notFound, server_errors: serverErrors });
  }
  return new Map<string, Iterable<BucketSums>>([
    ["crawler_daily", daily.values()],
    ["crawler_weekly", weekly.values()],
    ["crawler_monthly", monthly.values()],
    ["crawler_path_totals_keys", pathKeys.values()],
    ["crawler_path_totals", pathDays.values()],
  ]);
}
