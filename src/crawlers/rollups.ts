// What a batch of crawler hits adds to each crawler rollup, aggregated here in one pass so a bulk
// import writes each bucket once (issue #32). The same sums as the rollup spec's per-row triggers
// (src/rollups/spec.ts, the crawler_* rollups); tests/rollups/rollups.test.ts holds both to the
// raw rows.
import { periodOf } from "../insights/window";
import type { BucketSums } from "../rollups/triggers.sqlite";
import type { CrawlerHit } from "./store";

const flag = (condition: boolean) => (condition ? 1 : 0);

type BotBucket = { brand_id: string; bot: string; class: string; verdict: string; requests: number; pages: number; refused: number; not_found: number; server_errors: number; bytes: number };
type PathDay = { brand_id: string; bot: string; hit: string; path: string; day: string; requests: number; refused: number; not_found: number; server_errors: number };
const BOT_MEASURES = ["requests", "pages", "refused", "not_found", "server_errors", "bytes"] as const;

/** The day buckets summed again by week or month (a batch has a few dozen day buckets: cheaper than a third and fourth map per hit). */
function byPeriod<P extends "week" | "month">(daily: Iterable<BotBucket & { day: string }>, period: P): Iterable<BucketSums> {
  const out = new Map<string, BucketSums>();
  const periods = new Map<string, string>();
  for (const d of daily) {
    let at = periods.get(d.day);
    if (at === undefined) periods.set(d.day, (at = periodOf(d.day, period)));
    const id = `${at}\u0000${d.bot}\u0000${d.class}\u0000${d.verdict}`;
    const bucket = out.get(id);
    if (!bucket) out.set(id, { brand_id: d.brand_id, [period]: at, bot: d.bot, class: d.class, verdict: d.verdict, requests: d.requests, pages: d.pages, refused: d.refused, not_found: d.not_found, server_errors: d.server_errors, bytes: d.bytes });
    else for (const m of BOT_MEASURES) (bucket[m] as number) += d[m];
  }
  return out.values();
}

/**
 * The buckets the hits add to, for every rollup of crawler_hits: crawler_daily, _weekly and
 * _monthly (per bot, class and verdict), crawler_path_totals per named bot, hit kind, path and
 * day, and its _keys (a bulk write missing one of the source's rollups fails). Two map look-ups a
 * hit (its day bucket, its path's day): weeks, months and path keys are summed from those.
 */
export function crawlerBuckets(brandId: string, hits: Iterable<CrawlerHit>): Map<string, Iterable<BucketSums>> {
  const daily = new Map<string, BotBucket & { day: string }>();
  const pathDays = new Map<string, PathDay>();
  for (const h of hits) {
    const day = h.at.slice(0, 10);
    const bot = h.bot ?? "";
    const verdict = h.verdict ?? "";
    // What the site answered, apart: refused (the site said no), not found, server errors.
    const refused = flag(h.status === 401 || h.status === 403 || h.status === 429);
    const notFound = flag(h.status === 404 || h.status === 410);
    const serverErrors = flag(h.status >= 500);
    const dayId = `${day}\u0000${bot}\u0000${h.class}\u0000${verdict}`;
    let d = daily.get(dayId);
    if (!d) daily.set(dayId, (d = { brand_id: brandId, day, bot, class: h.class, verdict, requests: 0, pages: 0, refused: 0, not_found: 0, server_errors: 0, bytes: 0 }));
    d.requests++;
    d.pages += flag(h.hit === "page");
    d.refused += refused;
    d.not_found += notFound;
    d.server_errors += serverErrors;
    d.bytes += h.bytes ?? 0;
    if (h.bot === null) continue;
    const pathId = `${h.bot}\u0000${h.hit}\u0000${h.path}\u0000${day}`;
    let p = pathDays.get(pathId);
    if (!p) pathDays.set(pathId, (p = { brand_id: brandId, bot: h.bot, hit: h.hit, path: h.path, day, requests: 0, refused: 0, not_found: 0, server_errors: 0 }));
    p.requests++;
    p.refused += refused;
    p.not_found += notFound;
    p.server_errors += serverErrors;
  }
  // Each path key once, counting its hits (the key list's rows), in the order its days came.
  const pathKeys = new Map<string, BucketSums & { rows: number }>();
  for (const p of pathDays.values()) {
    const id = `${p.bot}\u0000${p.hit}\u0000${p.path}`;
    const key = pathKeys.get(id);
    if (!key) pathKeys.set(id, { brand_id: brandId, bot: p.bot, hit: p.hit, path: p.path, rows: p.requests });
    else key.rows += p.requests;
  }
  return new Map<string, Iterable<BucketSums>>([
    ["crawler_daily", daily.values()],
    ["crawler_weekly", byPeriod(daily.values(), "week")],
    ["crawler_monthly", byPeriod(daily.values(), "month")],
    ["crawler_path_totals_keys", pathKeys.values()],
    ["crawler_path_totals", pathDays.values()],
  ]);
}
