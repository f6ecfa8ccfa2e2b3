// /rest/v1 reads on reader threads (DESIGN §13): a read past STATEMENT_TIMEOUT_MS answers
// PostgREST's 57014 and the server keeps serving (the stopped thread is replaced), and a write is
// seen by the very next read although reads run on other connections. A delete whose cascade runs
// past the limit stops there and rolls back, as Postgres' statement_timeout stops it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { writeResults } from "../helpers/server-db";
import { createBrand, rest, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let org: Org;
let setId: string;

beforeAll(async () => {
  server = await testServer({ STATEMENT_TIMEOUT_MS: "300", REST_READERS: "1" });
  org = await signedUpOrg(server, "Readers");
  const brand = await createBrand(org.owner, org.id, "readers");
  setId = (server.dbh.sqlite.query("INSERT INTO prompt_sets (brand_id, name) VALUES (?, 's') RETURNING id").get(brand.id) as { id: string }).id;
  // Enough rows that the read below takes well over 300 ms (written straight into the file: setup).
  const list = JSON.stringify(Array.from({ length: 100 }, (_, i) => `value-${i}`));
  const insert = server.dbh.sqlite.prepare("INSERT INTO prompts (prompt_set_id, brand_id, text, platforms, models, regions) VALUES (?, ?, ?, ?, ?, ?)");
  server.dbh.sqlite.transaction(() => {
    for (let i = 0; i < 20_000; i++) insert.run(setId, brand.id, `prompt ${i}`, list, list, list);
  })();
});

afterAll(() => server.stop());

test("a read past STATEMENT_TIMEOUT_MS answers 503 57014, and the next reads are served", async () => {
  const operand = encodeURIComponent(JSON.stringify(Array.from({ length: 100 }, (_, i) => `value-${99 - i}`)));
  const started = performance.now();
  const slow = await rest(server, `/prompts?select=id&platforms=cs.${operand}&models=cs.${operand}&regions=cs.${operand}`, { token: org.ownerToken });
  const elapsed = performance.now() - started;
  expect(slow.status).toBe(503);
  expect(slow.body).toMatchObject({ code: "57014", message: "canceling statement due to statement timeout" });
  // Stopped at the limit, not when the query would have finished.
  expect(elapsed).toBeLessThan(3000);

  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  const small = await rest(server, `/prompts?select=text&text=eq.prompt%207`, { token: org.ownerToken });
  expect([small.status, small.body]).toEqual([200, [{ text: "prompt 7" }]]);
});

test("a write is seen by the next read", async () => {
  for (let i = 0; i < 20; i++) {
    const name = `set ${i}`;
    const write = await org.owner.from("prompt_sets").update({ name }).eq("id", setId);
    expect(write.status).toBe(204);
    const { data } = await org.owner.from("prompt_sets").select("name").eq("id", setId).single();
    expect(data).toEqual({ name });
  }
});

test("deleting a prompt whose answers' cascade runs past STATEMENT_TIMEOUT_MS answers 503 57014 and deletes nothing; a small one is deleted", async () => {
  const brand = await createBrand(org.owner, org.id, "cascade");
  const prompt = (text: string) => (server.dbh.sqlite.query("INSERT INTO prompts (prompt_set_id, brand_id, text) VALUES (?, ?, ?) RETURNING id").get(setId, brand.id, text) as { id: string }).id;
  const [big, small] = [prompt("asked for a year"), prompt("asked twice")];
  // A year of answers for one prompt (through the results store, with their rollups), two for the other.
  const day = (i: number) => new Date(Date.now() - (i % 365) * 86_400_000).toISOString();
  const result = (promptId: string, i: number) => ({
    key: { id: crypto.randomUUID(), jobId: null, brandId: brand.id, promptId, platform: ["chatgpt", "perplexity", "gemini"][i % 3]!, model: "m", region: "", sample: Math.floor(i / 365), createdAt: day(i) },
    values: {
      surface: "api", response: `answer ${i}`, mentioned: i % 2, mention_count: i % 2, mention_position: i % 2 ? 1 : null, competitor_mentions: "[]",
      citations: JSON.stringify([{ url: `https://site-${i % 50}.example/page-${i}`, normalized_url: `https://site-${i % 50}.example/page-${i}`, domain: `site-${i % 50}.example`, host: `site-${i % 50}.example`, title: "t", position: 1, is_brand: false, competitor_id: null }]), citation_count: 1, brand_citation_count: 0,
      sources: "[]", source_count: 0, sentiment: null, sentiment_score: null, visibility_score: 0, search_queries: JSON.stringify([`query ${i % 20}`]), details: "{}",
    },
  });
  await writeResults(server, [...Array.from({ length: 3000 }, (_, i) => result(big, i)), result(small, 0), result(small, 1)]);
  const answers = (promptId: string) => (server.dbh.sqlite.query("SELECT count(*) AS n FROM prompt_results WHERE prompt_id = ?").get(promptId) as { n: number }).n;
  const rollupRows = () => (server.dbh.sqlite.query("SELECT sum(results) AS n FROM result_rollups_daily WHERE brand_id = ?").get(brand.id) as { n: number }).n;
  expect([answers(big), rollupRows()]).toEqual([3000, 3002]);

  const started = performance.now();
  const slow = await rest(server, `/prompts?id=eq.${big}`, { method: "DELETE", token: org.ownerToken });
  expect([slow.status, (slow.body as { code: string }).code]).toEqual([503, "57014"]);
  // Stopped near the limit (300 ms), not when the cascade would have ended; rolled back whole.
  expect(performance.now() - started).toBeLessThan(3000);
  expect([answers(big), rollupRows()]).toEqual([3000, 3002]);
  const kept = await rest(server, `/prompts?id=eq.${big}&select=id`, { token: org.ownerToken });
  expect(kept.body).toEqual([{ id: big }]);

  const quick = await rest(server, `/prompts?id=eq.${small}`, { method: "DELETE", token: org.ownerToken });
  expect(quick.status).toBe(204);
  expect([answers(small), rollupRows()]).toEqual([0, 3000]);
});
