// backends: sqlite, postgres
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startFakeUpstream, type FakeUpstream } from "../fakes/upstream";
import { testServer } from "../helpers/app";
import { signedUpClient } from "../helpers/supabase";
import { apiClient } from "../helpers/tracking";
import { organizationIn, seedBrandIn, serverDb, textOf, type ServerDb } from "../helpers/tracking-db";

let fake: FakeUpstream;
let server: Awaited<ReturnType<typeof testServer>>;
let db: ServerDb;
beforeAll(async () => {
  fake = await startFakeUpstream();
  server = await testServer({ ...fake.env(), SENTIMENT_PLATFORM: "openai-compatible" });
  db = await serverDb(server);
});
afterAll(async () => {
  await db.close();
  await server.stop();
  fake.stop();
});

const completion = (content: string) => ({
  id: "chatcmpl-judge",
  object: "chat.completion",
  created: 0,
  model: "llama3.1:8b",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
});

async function run(promptCount = 1) {
  const { session, user } = await signedUpClient(server.url, server.secrets.anonKey);
  // The recorded Perplexity answer is about San Francisco's population: the brand is named in it.
  const { brandId } = await seedBrandIn(db, await organizationIn(db, user.id), { prompts: promptCount, name: "San Francisco" });
  const api = apiClient(server.url, session.access_token);
  const { job } = await api.waitFor((await api.start({ brandId, platforms: ["perplexity"] })).body.jobId);
  expect(job.status).toBe("completed");
  return db.inspect<{ sentiment: string; sentiment_score: number; details: string }>(`SELECT sentiment, sentiment_score, ${textOf(db, "details")} AS details FROM prompt_results WHERE brand_id = ?`, brandId);
}

test("with SENTIMENT_PLATFORM set, the model judge's label and score are stored, asked about the brand's passages", async () => {
  fake.setBehavior("openai-compatible", { body: completion('```json\n{"label":"negative","score":-0.8}\n```') });
  const [row] = await run();
  expect(row).toMatchObject({ sentiment: "negative", sentiment_score: -0.8 });
  expect(JSON.parse(row!.details)).toMatchObject({ sentiment_source: "judge" });
  const asked = fake.requestsFor("openai-compatible").at(-1)!;
  const prompt = JSON.stringify(asked.body);
  expect(prompt).toContain("Brand: San Francisco");
  expect(prompt).toContain("Passages that mention it");
});

test("a failing or unusable judge keeps the lexicon's result", async () => {
  fake.setBehavior("openai-compatible", { status: 500 });
  const [failed] = await run();
  expect(JSON.parse(failed!.details).sentiment_source).toBe("lexicon");
  expect(failed!.sentiment_score).toBe(JSON.parse(failed!.details).lexicon_sentiment_score);

  fake.setBehavior("openai-compatible", { body: completion("I'd say it is fine overall.") });
  const [unusable] = await run();
  expect(JSON.parse(unusable!.details).sentiment_source).toBe("lexicon");
});

test("SENTIMENT_PLATFORM naming an unconfigured platform stops the server at start", async () => {
  const { loadConfig, ConfigError } = await import("../../src/config");
  expect(() => loadConfig({ SENTIMENT_PLATFORM: "claude" })).toThrow(ConfigError);
  expect(() => loadConfig({ SENTIMENT_PLATFORM: "altavista" })).toThrow(/SENTIMENT_PLATFORM/);
});
