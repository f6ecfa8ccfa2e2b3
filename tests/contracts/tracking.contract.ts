// The tracking stores' contract (src/tracking/store.ts: TrackingStore and UnitStore), for every
// backend. Jobs and units are made through the queue store (src/queue/store.ts), as the service does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Suggestion } from "../../src/analysis/suggestions";
import type { QueueStore } from "../../src/queue/store";
import type { ResultToRecord, TrackingStore, UnitStore } from "../../src/tracking/store";
import type { ResultValues, UnitTask } from "../../src/tracking/unit";
import type { Harness } from "./harness";

export interface TrackingHarness extends Harness {
  store: TrackingStore;
  units: UnitStore;
  queue: QueueStore;
}

export function describeTrackingStoreContract(name: string, make: () => Promise<TrackingHarness>) {
  describe(`TrackingStore and UnitStore contract (${name})`, () => {
    let h: TrackingHarness;
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    /** A brand with prompts and a claimed job of one unit per prompt (owner "me"). */
    async function run(prompts = 3, platform = "perplexity") {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      const promptIds: string[] = [];
      for (let i = 0; i < prompts; i++) promptIds.push(await h.fixtures.prompt(brand, `question ${i} ${crypto.randomUUID()}`));
      const jobId = await h.queue.enqueue({ type: "tracking", brandId: brand, organizationId: org, data: {}, units: promptIds.map((promptId) => ({ promptId, platform, model: "sonar", region: "US" })) });
      // Claims may take another case's leftover job first: claim until ours is active.
      for (let i = 0; i < 50 && (await h.queue.get(jobId))!.status === "waiting"; i++) await h.queue.claim({ owner: "me", leaseMs: 600_000 });
      expect((await h.queue.get(jobId))!.status).toBe("active");
      const task = (seq: number, sample = 0): UnitTask => ({ jobId, seq, brandId: brand, promptId: promptIds[seq]!, platform, model: "sonar", region: "US", sample });
      return { org, brand, promptIds, jobId, task };
    }

    function answered(values: Partial<ResultValues> = {}): ResultToRecord["outcome"] {
      const row: ResultValues = {
        surface: "api", response: "Acme and Globex.", mentioned: 1, mention_count: 1, mention_position: 1, competitor_mentions: "[]",
        citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: "neutral", sentiment_score: 0,
        visibility_score: 80, search_queries: "[]", details: "{}", ...values,
      };
      return { kind: "answered", result: JSON.stringify(row) };
    }

    test("brandForRun, enabledPlatforms, platformSamples and activePrompts read what a run is made of", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org);
      await h.fixtures.brandPlatform(brand, "perplexity", { model: "sonar-pro", samples: 3 });
      await h.fixtures.brandPlatform(brand, "chatgpt");
      await h.fixtures.brandPlatform(brand, "gemini", { enabled: false, samples: 2 });
      const first = await h.fixtures.prompt(brand, "first");
      await Bun.sleep(2);
      const second = await h.fixtures.prompt(brand, "second");
      expect(await h.store.brandForRun(brand)).toEqual({ id: brand, organization_id: org, region: null, is_active: 1 });
      expect(await h.store.brandForRun(crypto.randomUUID())).toBeNull();
      expect(await h.store.enabledPlatforms(brand)).toEqual([
        { platform: "chatgpt", model: null, samples: 1 },
        { platform: "perplexity", model: "sonar-pro", samples: 3 },
      ]);
      expect((await h.store.platformSamples(brand)).sort((a, b) => a.platform.localeCompare(b.platform))).toEqual([
        { platform: "chatgpt", samples: 1 },
        { platform: "gemini", samples: 2 },
        { platform: "perplexity", samples: 3 },
      ]);
      const prompts = await h.store.activePrompts(brand);
      expect(prompts.map((p) => p.id)).toEqual([first, second]);
      expect(JSON.parse(prompts[0]!.platforms)).toEqual([]);
      expect(await h.store.activePrompts(crypto.randomUUID())).toEqual([]);
    });

    test("brandsBySlug finds a slug in every organization, or in the one named or slugged", async () => {
      const slug = `shared-${crypto.randomUUID().slice(0, 8)}`;
      const a = await h.fixtures.organization(`Alpha-${slug}`);
      const b = await h.fixtures.organization(`Beta-${slug}`);
      const inA = await h.fixtures.brand(a, slug);
      const inB = await h.fixtures.brand(b, slug);
      expect((await h.store.brandsBySlug({ slug })).map((r) => r.id).sort()).toEqual([inA, inB].sort());
      expect(await h.store.brandsBySlug({ slug, organization: `Alpha-${slug}` })).toEqual([{ id: inA, org: `Alpha-${slug}` }]);
      expect(await h.store.brandsBySlug({ slug, organization: `beta-${slug}` })).toEqual([{ id: inB, org: `Beta-${slug}` }]);
      expect(await h.store.brandsBySlug({ slug: `missing-${slug}` })).toEqual([]);
    });

    test("recordResults writes a batch in order: answers, no-surface units, repeats as duplicates; the units are done", async () => {
      const r = await run(3);
      const outcomes = await h.store.recordResults([
        { task: r.task(0), outcome: answered() },
        { task: r.task(1), outcome: { kind: "no_surface", reason: "no AI overview" } },
        { task: r.task(0), outcome: answered() },
        { task: r.task(2, 1), outcome: answered() },
      ]);
      expect(outcomes).toEqual(["written", "no_surface", "duplicate", "written"]);
      expect(await h.queue.counts(r.jobId)).toEqual({ total: 3, done: 3, failed: 0, pending: 0 });
      const summary = await h.store.runForSummary({ jobId: r.jobId, brandId: r.brand });
      expect(summary.results.map((x) => x.prompt_id).sort()).toEqual([r.promptIds[0], r.promptIds[2]].sort());
      expect(summary.noSurface).toBe(1);
      // A unit repeated after a crash (a new batch) adds nothing either.
      expect(await h.store.recordResults([{ task: r.task(0), outcome: answered() }])).toEqual(["duplicate"]);
      expect(await h.store.recordResults([])).toEqual([]);
    });

    test("recordResults keeps nothing of a job that is no longer active", async () => {
      const r = await run(2);
      await h.queue.cancel(r.jobId);
      expect(await h.store.recordResults([{ task: r.task(0), outcome: answered() }, { task: r.task(1), outcome: { kind: "no_surface", reason: "x" } }])).toEqual(["job_inactive", "job_inactive"]);
      expect((await h.store.runForSummary({ jobId: r.jobId, brandId: r.brand })).results).toEqual([]);
      expect(await h.queue.counts(r.jobId)).toMatchObject({ done: 0, pending: 2 });
    });

    test("recordResults is one transaction: an answer that cannot be stored fails its whole batch", async () => {
      const r = await run(2);
      const orphan = { ...r.task(1), promptId: crypto.randomUUID() }; // no such prompt
      await expect(h.store.recordResults([{ task: r.task(0), outcome: answered() }, { task: orphan, outcome: answered() }])).rejects.toThrow();
      expect(await h.queue.counts(r.jobId)).toMatchObject({ done: 0, pending: 2 });
      expect((await h.store.runForSummary({ jobId: r.jobId, brandId: r.brand })).results).toEqual([]);
      expect(await h.store.recordResults([{ task: r.task(0), outcome: answered() }])).toEqual(["written"]);
    });

    test("runForSummary: answers cut down to what the summary reads, failed units by seq, no-surface count, brand name and prompt texts", async () => {
      const r = await run(4);
      const brandPage = { position: 1, url: "https://acme.com/a", normalized_url: "acme.com/a", domain: "acme.com", host: "acme.com", title: "A", is_brand: true, competitor_id: null };
      const other = { position: 2, url: "https://news.example/x", normalized_url: "news.example/x", domain: "news.example", host: "news.example", title: "X", is_brand: false, competitor_id: null };
      const uncited = { position: 3, url: "https://acme.com/pricing", normalized_url: "acme.com/pricing", domain: "acme.com", host: "acme.com", title: "P", is_brand: true, competitor_id: null, cited: false };
      await h.store.recordResults([
        // Cites the brand: its sources are not needed.
        { task: r.task(0), outcome: answered({ citations: JSON.stringify([brandPage, other]), citation_count: 2, brand_citation_count: 1, sources: JSON.stringify([{ ...brandPage, cited: true }, uncited]), sentiment: "positive", details: JSON.stringify({ sentiment_passages: ["good"] }) }) },
        // Cites none of the brand's pages, negative: its uncited brand sources and passages are.
        { task: r.task(1), outcome: answered({ citations: JSON.stringify([other]), citation_count: 1, sources: JSON.stringify([{ ...other, cited: true }, uncited]), sentiment: "negative", sentiment_score: -0.5, details: JSON.stringify({ sentiment_passages: ["slow"], list_rank: 2 }) }) },
      ]);
      // Each citation a row, its URL stored once however many answers cite it.
      const cited = await h.inspect<{ position: number; domain: string; is_brand: number; url: string }>(
        "SELECT c.position, c.domain, c.is_brand, u.url FROM citations c JOIN citation_urls u ON u.id = c.url_id WHERE c.brand_id = ?",
        r.brand,
      );
      expect(cited.sort((a, b) => a.url.localeCompare(b.url) || a.position - b.position)).toEqual([
        { position: 1, domain: "acme.com", is_brand: 1, url: "https://acme.com/a" },
        { position: 2, domain: "news.example", is_brand: 0, url: "https://news.example/x" },
        { position: 2, domain: "news.example", is_brand: 0, url: "https://news.example/x" },
      ]);
      expect(await h.inspect("SELECT id FROM citation_urls WHERE url = 'https://news.example/x'")).toHaveLength(1);
      await h.queue.failUnit({ jobId: r.jobId, seq: 3, error: "perplexity: bad key" });
      await h.store.recordResults([{ task: r.task(2), outcome: { kind: "no_surface", reason: "none" } }]);
      const s = await h.store.runForSummary({ jobId: r.jobId, brandId: r.brand });
      const byPrompt = new Map(s.results.map((x) => [x.prompt_id, x]));
      const cites = byPrompt.get(r.promptIds[0]!)!;
      expect(cites).toMatchObject({ platform: "perplexity", model: "sonar", mentioned: 1, brand_citation_count: 1, sentiment: "positive", brand_id: r.brand, sources: "[]", details: "{}" });
      expect(JSON.parse(cites.citations)).toEqual([
        { domain: "acme.com", normalized_url: "acme.com/a", is_brand: true, competitor_id: null },
        { domain: "news.example", normalized_url: "news.example/x", is_brand: false, competitor_id: null },
      ]);
      const negative = byPrompt.get(r.promptIds[1]!)!;
      expect(JSON.parse(negative.sources)).toEqual([{ normalized_url: "acme.com/pricing", is_brand: true, cited: false }]);
      expect(JSON.parse(negative.details)).toEqual({ sentiment_passages: ["slow"] });
      expect(negative.sentiment_score).toBe(-0.5);
      expect(s.failedUnits).toEqual([{ seq: 3, prompt_id: r.promptIds[3]!, platform: "perplexity", model: "sonar", region: "US", error: "perplexity: bad key" }]);
      expect(s.noSurface).toBe(1);
      expect(s.noSurfacePlatforms).toEqual(["perplexity"]);
      // The job's making (what the scheduler's stamp is) and that it asked every active prompt (no promptIds).
      expect(s.job).toEqual({ createdAt: (await h.queue.get(r.jobId))!.created_at, everyPrompt: true });
      expect(s.brandName).toBeString();
      expect(s.promptTexts.get(r.promptIds[0]!)).toStartWith("question 0 ");
      expect(s.promptTexts.size).toBe(4);
      const unknown = await h.store.runForSummary({ jobId: crypto.randomUUID(), brandId: crypto.randomUUID() });
      expect(unknown).toEqual({ results: [], failedUnits: [], noSurface: 0, noSurfacePlatforms: [], job: null, brandName: null, promptTexts: new Map() });
      const some = await h.queue.enqueue({ type: "tracking", brandId: r.brand, organizationId: r.org, data: { promptIds: [r.promptIds[0]!] }, units: [{ promptId: r.promptIds[0]!, platform: "perplexity", model: "sonar", region: "US" }] });
      expect((await h.store.runForSummary({ jobId: some, brandId: r.brand })).job).toMatchObject({ everyPrompt: false });
    });

    test("finishRun: suggestions, platform stamps, webhook events and the job's end in one go, and only if the lease is ours", async () => {
      const r = await run(1);
      await h.fixtures.brandPlatform(r.brand, "perplexity");
      const suggestion: Suggestion = { type: "content_gap", key: `k-${r.jobId}`, title: "Write about it", detail: "d", evidence: { prompts: [] } as never, priority: "high" };
      const now = new Date("2026-03-02T09:00:00.000Z");
      const input = {
        jobId: r.jobId, owner: "someone-else", brandId: r.brand, organizationId: r.org, status: "completed" as const, jobFailedReason: null, eventFailedReason: null,
        result: { units: { total: 1 } }, progress: { phase: "done", completed: 1, total: 1 }, suggestions: [suggestion], answeredPlatforms: ["perplexity"], now, visibilityAlertPoints: 10,
        checked: { at: "2026-03-02T08:00:01.000Z", platforms: ["perplexity"], failed: [] },
      };
      // Without the lease nothing is recorded: the instance that holds it finishes the run (a lost
      // lease finishing too was one tracking.completed webhook per instance).
      expect(await h.store.finishRun(input)).toBe(false);
      expect((await h.queue.get(r.jobId))!.status).toBe("active");
      expect(await h.inspect("SELECT type FROM webhook_events WHERE brand_id = ?", r.brand)).toEqual([]);
      expect(await h.inspect("SELECT id FROM suggestions WHERE brand_id = ?", r.brand)).toEqual([]);
      const later = new Date(now.getTime() + 60_000);
      expect(await h.store.finishRun({ ...input, owner: "me", now: later })).toBe(true);
      const job = (await h.queue.get(r.jobId))!;
      expect(job).toMatchObject({ status: "completed", finished_at: later.toISOString(), lease_owner: null, failed_reason: null });
      expect(JSON.parse(job.result!)).toEqual({ units: { total: 1 } });
      expect(await h.inspect("SELECT type, title, priority FROM suggestions WHERE brand_id = ?", r.brand)).toEqual([{ type: "content_gap", title: "Write about it", priority: "high" }]);
      // Stamped with the job's making (the scheduler's tick), not the run's end.
      expect(await h.inspect("SELECT last_checked_at FROM brand_platforms WHERE brand_id = ?", r.brand)).toEqual([{ last_checked_at: "2026-03-02T08:00:01.000Z" }]);
      const events = await h.inspect<{ type: string; payload: string }>("SELECT type, payload FROM webhook_events WHERE brand_id = ? ORDER BY type", r.brand);
      expect(events.map((e) => e.type)).toEqual(["suggestion.created", "tracking.completed"]);
      expect(JSON.parse(events[1]!.payload)).toEqual({ job_id: r.jobId, status: "completed", failed_reason: null, result: { units: { total: 1 } } });
    });

    test("finishRun: a platform with no unit done waits 1 h, then 2 h, 4 h… at most its interval; one done resets it; a run of some prompts stamps nothing", async () => {
      const r = await run(1);
      await h.fixtures.brandPlatform(r.brand, "perplexity", { frequency: "daily", lastCheckedAt: "2026-03-01T09:00:00.000Z" });
      await h.fixtures.brandPlatform(r.brand, "chatgpt", { frequency: "hourly" });
      const row = async (platform: string) => (await h.inspect<{ last_checked_at: string | null; failed_runs: number; retry_at: string | null }>("SELECT last_checked_at, failed_runs, retry_at FROM brand_platforms WHERE brand_id = ? AND platform = ?", r.brand, platform))[0]!;
      const finish = async (checked: { at: string; platforms: string[]; failed: string[] } | undefined) => {
        const job = await h.queue.enqueue({ type: "tracking", brandId: r.brand, organizationId: r.org, data: {}, units: [{ promptId: r.promptIds[0]!, platform: "perplexity", model: "sonar", region: "US" }] });
        for (let i = 0; i < 50 && (await h.queue.get(job))!.status === "waiting"; i++) await h.queue.claim({ owner: "me", leaseMs: 600_000 });
        const base = { jobId: job, owner: "me", brandId: r.brand, organizationId: r.org, status: "failed" as const, jobFailedReason: "x", eventFailedReason: null, result: null, progress: {}, suggestions: [], answeredPlatforms: [], now: new Date(), visibilityAlertPoints: 10 };
        expect(await h.store.finishRun({ ...base, checked })).toBe(true);
      };
      await h.queue.cancel(r.jobId);
      await finish({ at: "2026-03-02T09:00:00.000Z", platforms: [], failed: ["perplexity", "chatgpt"] });
      expect(await row("perplexity")).toEqual({ last_checked_at: "2026-03-01T09:00:00.000Z", failed_runs: 1, retry_at: "2026-03-02T10:00:00.000Z" });
      expect(await row("chatgpt")).toEqual({ last_checked_at: null, failed_runs: 1, retry_at: "2026-03-02T10:00:00.000Z" });
      await finish({ at: "2026-03-02T10:00:00.000Z", platforms: [], failed: ["perplexity", "chatgpt"] });
      expect(await row("perplexity")).toMatchObject({ failed_runs: 2, retry_at: "2026-03-02T12:00:00.000Z" });
      // An hourly platform waits at most an hour.
      expect(await row("chatgpt")).toMatchObject({ failed_runs: 2, retry_at: "2026-03-02T11:00:00.000Z" });
      for (const at of ["2026-03-02T12:00:00.000Z", "2026-03-02T16:00:00.000Z", "2026-03-03T00:00:00.000Z"]) await finish({ at, platforms: [], failed: ["perplexity"] });
      expect(await row("perplexity")).toMatchObject({ failed_runs: 5, retry_at: "2026-03-03T16:00:00.000Z" });
      // 1, 2, 4, 8, 16, then 32 h capped at the daily interval (24 h).
      await finish({ at: "2026-03-03T16:00:00.000Z", platforms: [], failed: ["perplexity"] });
      expect(await row("perplexity")).toMatchObject({ failed_runs: 6, retry_at: "2026-03-04T16:00:00.000Z" });
      // A run of some prompts changes nothing; one with a unit done stamps and resets.
      await finish(undefined);
      expect(await row("perplexity")).toMatchObject({ failed_runs: 6 });
      await finish({ at: "2026-03-04T16:00:02.000Z", platforms: ["perplexity"], failed: [] });
      expect(await row("perplexity")).toEqual({ last_checked_at: "2026-03-04T16:00:02.000Z", failed_runs: 0, retry_at: null });
      // A run made earlier that ends later does not move the check back.
      await finish({ at: "2026-03-04T15:00:00.000Z", platforms: ["perplexity"], failed: [] });
      expect(await row("perplexity")).toMatchObject({ last_checked_at: "2026-03-04T16:00:02.000Z" });
    });

    test("finishRun of a failed run records its reasons; a job of no organization records no event", async () => {
      const r = await run(1);
      const base = { owner: "me", brandId: r.brand, status: "failed" as const, jobFailedReason: "no unit succeeded", eventFailedReason: null, result: null, progress: { phase: "failed" }, suggestions: [], answeredPlatforms: [], now: new Date(), visibilityAlertPoints: 10 };
      expect(await h.store.finishRun({ ...base, jobId: r.jobId, organizationId: r.org })).toBe(true);
      expect((await h.queue.get(r.jobId))!).toMatchObject({ status: "failed", failed_reason: "no unit succeeded" });
      expect((await h.inspect<{ type: string }>("SELECT type FROM webhook_events WHERE brand_id = ?", r.brand)).map((e) => e.type)).toEqual(["tracking.failed"]);
      const lone = await run(1);
      expect(await h.store.finishRun({ ...base, jobId: lone.jobId, organizationId: null })).toBe(true);
      expect(await h.inspect("SELECT type FROM webhook_events WHERE brand_id = ?", lone.brand)).toEqual([]);
    });

    test("finishRun: visibility.changed on a significant move, once a day per platform; each event delivered to the organization's subscribed endpoints", async () => {
      const r = await run(4);
      // An endpoint of every event, one scoped to another brand (gets none of these), one inactive.
      const other = await h.fixtures.brand(r.org);
      const endpoint = (brand: string | null, active: boolean) =>
        h.inspect<{ id: string }>("INSERT INTO webhook_endpoints (organization_id, brand_id, url, secret, is_active) VALUES (?, ?, 'https://hooks.example/x', 's', ?) RETURNING id", r.org, brand, active);
      const [all] = await endpoint(null, true);
      await endpoint(other, true);
      await endpoint(null, false);
      // The week before: no answer names the brand; this week: every one does (the same prompts).
      const now = new Date("2026-03-09T12:00:00.000Z");
      for (const promptId of r.promptIds)
        for (const [createdAt, mentioned] of [["2026-02-25T10:00:00.000Z", false], ["2026-02-27T10:00:00.000Z", false], ["2026-03-04T10:00:00.000Z", true], ["2026-03-08T10:00:00.000Z", true]] as const)
          await h.fixtures.result({ brandId: r.brand, promptId, platform: "perplexity", model: "sonar", createdAt, mentioned });
      const input = {
        jobId: r.jobId, owner: "me", brandId: r.brand, organizationId: r.org, status: "completed" as const, jobFailedReason: null, eventFailedReason: null,
        result: null, progress: {}, suggestions: [], answeredPlatforms: ["perplexity"], now, visibilityAlertPoints: 10,
      };
      expect(await h.store.finishRun(input)).toBe(true);
      // A second run of the brand later that day: no second alert.
      const again = await h.queue.enqueue({ type: "tracking", brandId: r.brand, organizationId: r.org, data: {}, units: [{ promptId: r.promptIds[0]!, platform: "perplexity", model: "sonar", region: "US" }] });
      for (let i = 0; i < 50 && (await h.queue.get(again))!.status === "waiting"; i++) await h.queue.claim({ owner: "me", leaseMs: 600_000 });
      expect(await h.store.finishRun({ ...input, jobId: again, now: new Date(now.getTime() + 3_600_000) })).toBe(true);
      const events = await h.inspect<{ id: string; type: string; payload: string }>("SELECT id, type, payload FROM webhook_events WHERE brand_id = ? ORDER BY type", r.brand);
      expect(events.map((e) => e.type)).toEqual(["tracking.completed", "tracking.completed", "visibility.changed"]);
      const alert = JSON.parse(events[2]!.payload);
      expect(alert).toMatchObject({ job_id: r.jobId, platform: "perplexity", window: { from: "2026-03-03", to: "2026-03-09" }, previous_window: { from: "2026-02-24", to: "2026-03-02" }, change_points: 100 });
      expect(alert.change.verdict).toBe("up");
      const deliveries = await h.inspect<{ endpoint_id: string; event_id: string; status: string }>(
        "SELECT d.endpoint_id, d.event_id, d.status FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.brand_id = ?",
        r.brand,
      );
      expect(deliveries.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
      expect(deliveries.every((d) => d.endpoint_id === all!.id && d.status === "pending")).toBe(true);
    });

    test("refreshStatistics after a run: the tables its writes changed by a large part analyzed (Postgres), then nothing left to do", async () => {
      const n = 1200;
      const r = await run(n);
      const page = (i: number) => ({ url: `https://site${i % 40}.example/p${i}`, normalized_url: `site${i % 40}.example/p${i}`, domain: `site${i % 40}.example`, position: 1, is_brand: false, competitor_id: null });
      for (let from = 0; from < n; from += 400)
        await h.store.recordResults(Array.from({ length: 400 }, (_, i) => ({ task: r.task(from + i), outcome: answered({ citations: JSON.stringify([page(from + i)]), citation_count: 1 }) })));
      if (h.backend === "sqlite") return void expect(await h.store.refreshStatistics()).toEqual([]);
      // The writers' connections report their changes to the statistics when they go idle, at the
      // latest ~10 s after (PostgreSQL 15's idle flush); on a loaded machine later still (15 s was
      // too short twice on this machine, once in a full run).
      const changed = async () => Number((await h.inspect<{ n: string }>("SELECT coalesce(max(n_mod_since_analyze), 0) AS n FROM pg_stat_user_tables WHERE relname = 'prompt_results'"))[0]!.n);
      for (let i = 0; i < 400 && (await changed()) < n; i++) await Bun.sleep(100);
      expect(await changed()).toBeGreaterThanOrEqual(n);
      const analyzed = await h.store.refreshStatistics();
      expect(analyzed).toEqual(expect.arrayContaining(["prompt_results", "citations", "job_units"]));
      const after = await h.inspect<{ relname: string; n_mod_since_analyze: string; last_analyze: string | null }>("SELECT relname, n_mod_since_analyze, last_analyze FROM pg_stat_user_tables WHERE relname IN ('prompt_results', 'citations', 'job_units')");
      for (const t of after) expect({ table: t.relname, analyzed: t.last_analyze !== null, changedSince: Number(t.n_mod_since_analyze) }).toEqual({ table: t.relname, analyzed: true, changedSince: 0 });
      expect(await h.store.refreshStatistics()).not.toEqual(expect.arrayContaining(["prompt_results"]));
    });

    test("UnitStore.unitInput: a pending unit with its prompt's text; a done or unknown unit without", async () => {
      const r = await run(2);
      expect(await h.units.unitInput({ jobId: r.jobId, seq: 0, promptId: r.promptIds[0]! })).toEqual({ status: "pending", promptText: expect.stringMatching(/^question 0 /) });
      expect(await h.units.unitInput({ jobId: r.jobId, seq: 0, promptId: crypto.randomUUID() })).toEqual({ status: "pending", promptText: null });
      await h.store.recordResults([{ task: r.task(1), outcome: { kind: "no_surface", reason: "x" } }]);
      expect((await h.units.unitInput({ jobId: r.jobId, seq: 1, promptId: r.promptIds[1]! })).status).toBe("done");
      expect(await h.units.unitInput({ jobId: r.jobId, seq: 9, promptId: r.promptIds[0]! })).toEqual({ status: null, promptText: null });
    });

    test("UnitStore.entities: the brand and its competitors as analysis wants them; unknown brand → null", async () => {
      const org = await h.fixtures.organization();
      const brand = await h.fixtures.brand(org, `Acme-${crypto.randomUUID().slice(0, 6)}`);
      const globex = await h.fixtures.competitor(brand, "Globex", "globex.com");
      await Bun.sleep(2);
      const initech = await h.fixtures.competitor(brand, "Initech");
      const e = (await h.units.entities(brand))!;
      expect(e.brand).toMatchObject({ id: brand, kind: "brand", aliases: [], domains: [] });
      expect(e.brand.name).toStartWith("Acme-");
      expect(e.language).toBeNull();
      expect(e.competitors).toEqual([
        { id: globex, kind: "competitor", name: "Globex", aliases: [], domains: ["globex.com"] },
        { id: initech, kind: "competitor", name: "Initech", aliases: [], domains: [] },
      ]);
      expect(await h.units.entities(crypto.randomUUID())).toBeNull();
    });
  });
}
