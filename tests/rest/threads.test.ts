// /rest/v1 reads on reader threads (DESIGN §13): a read past STATEMENT_TIMEOUT_MS answers
// PostgREST's 57014 and the server keeps serving (the stopped thread is replaced), and a write is
// seen by the very next read although reads run on other connections.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
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
