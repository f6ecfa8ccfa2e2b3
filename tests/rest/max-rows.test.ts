// backends: sqlite, postgres
// REST_MAX_ROWS, as PostgREST's db-max-rows: a table read returns at most that many rows at each
// level (the root, and each embed per parent row), a smaller limit asked for stays, Content-Range
// says where the page stopped (and with count=exact how many there are: 206), and writes return
// every row they wrote.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
import { createBrand, rest, signedUpOrg, type Org, type Server } from "./helpers";

let server: Server;
let org: Org;
let brandId: string;
let written: string[];

beforeAll(async () => {
  server = await testServer({ REST_MAX_ROWS: "2" });
  org = await signedUpOrg(server, "Max rows");
  brandId = (await createBrand(org.owner, org.id, "max-rows")).id;
  const set = (await org.owner.from("prompt_sets").insert({ brand_id: brandId, name: "S" }).select().single()).data!.id;
  // A write returns every row it wrote, whatever the cap.
  const inserted = await rest(server, "/prompts?select=id", { method: "POST", token: org.ownerToken, headers: { prefer: "return=representation" }, body: JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ prompt_set_id: set, brand_id: brandId, text: `q${i}?` }))) });
  expect(inserted.status).toBe(201);
  written = (inserted.body as { id: string }[]).map((r) => r.id);
});
afterAll(() => server.stop());

test("the root is capped; a smaller limit and an offset are honoured; Content-Range says where it stopped", async () => {
  expect(written).toHaveLength(5);
  const page = await rest(server, "/prompts?select=text&order=text", { token: org.ownerToken });
  expect([page.status, page.body, page.headers.get("content-range")]).toEqual([200, [{ text: "q0?" }, { text: "q1?" }], "0-1/*"]);
  expect((await rest(server, "/prompts?select=text&order=text&limit=1", { token: org.ownerToken })).body).toEqual([{ text: "q0?" }]);
  const next = await rest(server, "/prompts?select=text&order=text&offset=2&limit=50", { token: org.ownerToken });
  expect([next.body, next.headers.get("content-range")]).toEqual([[{ text: "q2?" }, { text: "q3?" }], "2-3/*"]);
  const counted = await rest(server, "/prompts?select=text&order=text", { token: org.ownerToken, headers: { prefer: "count=exact" } });
  expect([counted.status, counted.headers.get("content-range")]).toEqual([206, "0-1/5"]);
});

test("each embed is capped per parent row", async () => {
  const brands = await rest(server, `/brands?select=id,prompts(text)&id=eq.${brandId}&prompts.order=text`, { token: org.ownerToken });
  expect(brands.body).toEqual([{ id: brandId, prompts: [{ text: "q0?" }, { text: "q1?" }] }]);
});
