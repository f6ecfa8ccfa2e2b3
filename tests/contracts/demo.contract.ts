// The demo replay store's contract (src/demo/store.ts: DemoHistoryStore), for every backend: a past
// run started, its units answered, the outcomes written and the run finished, as history.ts does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DemoHistoryStore, ReplayUnit } from "../../src/demo/store";
import { loadEngineConfig, type AskRequest, type AskResult, type EngineRegistry, type PlatformId } from "../../src/engines";
import type { ResultValues, UnitOutcome } from "../../src/tracking/unit";
import type { Harness } from "./harness";

// Every run starts at T (a past day, as the demo's are) with a lease that outlasts the suite's
// clocks, so no case's run is due for another case's claim; finished at T + 2 min.
const T = Date.parse("2026-10-01T09:00:00.000Z");
const at = (ms = 0) => () => new Date(T + ms);
const iso = (ms = 0) => new Date(T + ms).toISOString();
const LEASE_MS = 3_600_000;
const OWNER = "answerwatch-demo-history:contract";
const engines = loadEngineConfig({ OPENAI_API_KEY: "k", PERPLEXITY_API_KEY: "k" });

export function describeDemoHistoryStoreContract(name: string, make: () => Promise<Harness & { store: DemoHistoryStore }>) {
  describe(`DemoHistoryStore contract (${name})`, () => {
    let h: Harness & { store: DemoHistoryStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    /** A brand (named `brandName`) with `prompts` prompts and perplexity (sonar-pro) and chatgpt (gpt-4o) enabled. */
    async function brand(prompts: number, brandName = `Zentrofy${crypto.randomUUID().slice(0, 8)}`) {
      const user = await h.fixtures.user();
      const org = await h.fixtures.organization();
      await h.fixtures.member(org, user, "owner");
      const brandId = await h.fixtures.brand(org, brandName);
      await h.fixtures.brandPlatform(brandId, "perplexity", { model: "sonar-pro" });
      await h.fixtures.brandPlatform(brandId, "chatgpt", { model: "gpt-4o" });
      const promptIds: string[] = [];
      for (let i = 0; i < prompts; i++) {
        promptIds.push(await h.fixtures.prompt(brandId, `question ${i}`));
        await Bun.sleep(2); // the prompts' order is their creation order
      }
      return { user, org, brandId, promptIds, brandName };
    }
    const start = (b: { user: string; brandId: string }, platforms = ["perplexity"], samples = 1) =>
      h.store.startRun({ brandId: b.brandId, platforms, samples, createdBy: b.user, owner: OWNER, leaseMs: LEASE_MS, engines, now: at() });
    const finish = (b: { org: string; brandId: string }, jobId: string) =>
      h.store.finishRun({ jobId, owner: OWNER, brandId: b.brandId, organizationId: b.org, now: at(120_000), visibilityAlertPoints: 10 });
    const units = (jobId: string) => h.inspect<{ seq: number; status: string; error: string | null; attempts: number }>("SELECT seq, status, error, attempts FROM job_units WHERE job_id = ? ORDER BY seq", jobId);
    const job = async (jobId: string) => (await h.inspect<Record<string, string | null>>("SELECT * FROM jobs WHERE id = ?", jobId))[0]!;

    function answered(values: Partial<ResultValues> = {}): UnitOutcome {
      const row: ResultValues = {
        surface: "api", response: "Acme and Globex.", mentioned: 1, mention_count: 2, mention_position: 1, competitor_mentions: "[]",
        citations: "[]", citation_count: 0, brand_citation_count: 0, sources: "[]", source_count: 0, sentiment: "positive", sentiment_score: 0.5,
        visibility_score: 73, search_queries: "[]", details: "{}", ...values,
      };
      return { kind: "answered", result: JSON.stringify(row) };
    }

    test("startRun enqueues a run as of now() claimed for the owner; its pending units are one per prompt × platform × sample", async () => {
      const b = await brand(2);
      const run = await start(b, ["perplexity", "chatgpt"], 2);
      // Which comes first is the run's business; one unit each, numbered from 0.
      const shape = (u: ReplayUnit) => JSON.stringify([u.prompt_id, u.platform, u.model, u.region, u.sample]);
      const expected = b.promptIds.flatMap((p) => [["chatgpt", "gpt-4o"], ["perplexity", "sonar-pro"]].flatMap(([platform, model]) => [0, 1].map((sample) => JSON.stringify([p, platform, model, "", sample]))));
      expect(run.units.map(shape).sort()).toEqual(expected.sort());
      expect(run.units.map((u) => u.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(run.units.every((u) => u.brand_id === b.brandId)).toBe(true);
      expect(await job(run.jobId)).toMatchObject({
        type: "tracking", brand_id: b.brandId, organization_id: b.org, created_by: b.user, status: "active",
        lease_owner: OWNER, lease_until: iso(LEASE_MS), created_at: iso(), started_at: iso(), finished_at: null,
      });
      await finish(b, run.jobId);
    });

    test("startRun is forced: a second run of the same platforms starts while the first is active", async () => {
      const b = await brand(1);
      const first = await start(b);
      const second = await start(b);
      expect(second.jobId).not.toBe(first.jobId);
      expect(second.units).toHaveLength(1);
      expect([(await job(first.jobId)).status, (await job(second.jobId)).status]).toEqual(["active", "active"]);
      await finish(b, first.jobId);
      await finish(b, second.jobId);
    });

    test("runUnits asks the registry's engine for each unit and analyses the answer, writing nothing; an engine's error is the unit's error", async () => {
      const b = await brand(3);
      const run = await start(b);
      const [answeredUnit, noSurfaceUnit, failingUnit] = run.units;
      const asked: { platform: string; prompt: string; model?: string }[] = [];
      const registry = fakeRegistry(async (platform, request) => {
        asked.push({ platform, prompt: request.prompt, model: request.model });
        if (request.prompt === "question 1") return { noSurface: true, platform, surface: "serp", model: "sonar-pro", reason: "no AI answer on the page" };
        if (request.prompt === "question 2") throw new Error("upstream down");
        return { platform, surface: "api", model: "sonar-pro", text: `${b.brandName} is the best choice.`, citations: [], sources: [], searchQueries: ["best tools"], usage: {}, finishReason: "stop" };
      });
      const ran = await h.store.runUnits({ jobId: run.jobId, units: run.units, registry, signal: new AbortController().signal });

      expect(asked.sort((x, y) => x.prompt.localeCompare(y.prompt))).toEqual([0, 1, 2].map((i) => ({ platform: "perplexity", prompt: `question ${i}`, model: "sonar-pro" })));
      expect(ran.map((r) => r.unit.seq)).toEqual([answeredUnit!.seq, noSurfaceUnit!.seq, failingUnit!.seq]);
      expect(ran[0]!.outcome!.kind).toBe("answered");
      const values = JSON.parse((ran[0]!.outcome as { result: string }).result) as ResultValues;
      expect(values).toMatchObject({ surface: "api", response: `${b.brandName} is the best choice.`, mentioned: 1, mention_count: 1, search_queries: '["best tools"]' });
      expect(ran[1]).toMatchObject({ outcome: { kind: "no_surface", reason: "no AI answer on the page" }, error: null });
      expect(ran[2]).toMatchObject({ outcome: null, error: "upstream down" });
      expect(await h.inspect("SELECT id FROM prompt_results WHERE job_id = ?", run.jobId)).toEqual([]);
      expect((await units(run.jobId)).map((u) => u.status)).toEqual(["pending", "pending", "pending"]);
      await finish(b, run.jobId);
    });

    test("recordOutcomes: an answer is stored as of createdAt and its unit done; no_surface is done with the reason; no outcome fails with the error", async () => {
      const b = await brand(3);
      const run = await start(b);
      const [u0, u1, u2] = run.units;
      await h.store.recordOutcomes({
        jobId: run.jobId,
        outcomes: [
          { unit: u0!, outcome: answered(), error: null, createdAt: new Date(T + 1_400) },
          { unit: u1!, outcome: { kind: "no_surface", reason: "no AI Overview" }, error: null, createdAt: new Date(T + 1_800) },
          { unit: u2!, outcome: null, error: "upstream timed out", createdAt: new Date(T + 2_200) },
        ],
      });
      expect(await h.inspect("SELECT job_id, brand_id, prompt_id, platform, model, region, sample, mentioned, mention_count, visibility_score, created_at FROM prompt_results WHERE job_id = ?", run.jobId)).toEqual([
        { job_id: run.jobId, brand_id: b.brandId, prompt_id: b.promptIds[0], platform: "perplexity", model: "sonar-pro", region: "", sample: 0, mentioned: 1, mention_count: 2, visibility_score: 73, created_at: iso(1_400) },
      ]);
      expect(await units(run.jobId)).toEqual([
        { seq: 0, status: "done", error: null, attempts: 1 },
        { seq: 1, status: "done", error: "no_surface: no AI Overview", attempts: 1 },
        { seq: 2, status: "failed", error: "upstream timed out", attempts: 1 },
      ]);
      await finish(b, run.jobId);
    });

    test("finishRun summarises the run as of now() and releases its job", async () => {
      const b = await brand(2);
      const run = await start(b);
      await h.store.recordOutcomes({
        jobId: run.jobId,
        outcomes: [
          { unit: run.units[0]!, outcome: answered(), error: null, createdAt: new Date(T + 1_000) },
          { unit: run.units[1]!, outcome: null, error: "upstream timed out", createdAt: new Date(T + 1_400) },
        ],
      });
      await finish(b, run.jobId);
      const row = await job(run.jobId);
      expect(row).toMatchObject({ status: "completed", lease_owner: null, lease_until: null, finished_at: iso(120_000), failed_reason: "upstream timed out (1 unit)" });
      expect(JSON.parse(row.result!).units).toEqual({ total: 2, answered: 1, no_surface: 0, failed: 1 });
    });

    test("finishRun marks a run whose every unit failed as failed, naming the cause", async () => {
      const b = await brand(2);
      const run = await start(b);
      await h.store.recordOutcomes({ jobId: run.jobId, outcomes: run.units.map((unit) => ({ unit, outcome: null, error: "quota exceeded", createdAt: new Date(T + 1_000) })) });
      await finish(b, run.jobId);
      expect(await job(run.jobId)).toMatchObject({ status: "failed", lease_owner: null, failed_reason: "quota exceeded (2 units)", finished_at: iso(120_000) });
    });

    // Last: the waiting job it leaves behind is due to every later claim.
    test("startRun throws when another job was already waiting", async () => {
      const b = await brand(1);
      await h.fixtures.job(b.brandId, "waiting", ["pending"]);
      await Bun.sleep(2);
      const run = h.store.startRun({ brandId: b.brandId, platforms: ["perplexity"], samples: 1, createdBy: b.user, owner: OWNER, leaseMs: LEASE_MS, engines, now: () => new Date() });
      await expect(run).rejects.toThrow("another job was waiting");
    });
  });
}

/** A registry whose engines answer with `ask` (the unit runner only asks `engine(platform)`). */
function fakeRegistry(ask: (platform: PlatformId, request: AskRequest) => Promise<AskResult>): EngineRegistry {
  const registry: Pick<EngineRegistry, "engine"> = {
    engine: (platform) => ({ platform, surface: "api", defaultModel: "sonar-pro", ask: (request) => ask(platform, request) }),
  };
  return registry as EngineRegistry;
}
