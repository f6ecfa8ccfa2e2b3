// backends: sqlite, postgres
// prompts.is_branded (issue #18): a prompt that names the brand — by the matcher that finds the
// brand in answers: name, aliases, domains — is branded, and stays right when the prompt, the
// brand's names or its domains change, whoever writes them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { TEST_BACKEND, testServer } from "../helpers/app";
import { settled } from "../helpers/server-db";
import { createBrand, serviceClient, signedUpOrg, type Org, type Server } from "../rest/helpers";

let server: Server;
let org: Org;
let brand: { id: string; slug: string };
let setId: string;
beforeAll(async () => {
  server = await testServer();
  org = await signedUpOrg(server, "Branded");
  brand = await createBrand(org.owner, org.id, "branded", { domains: 0, competitors: 0 });
  await org.owner.from("brands").update({ name: "Northwind" }).eq("id", brand.id);
  setId = (await org.owner.from("prompt_sets").insert({ brand_id: brand.id, name: "S" }).select().single()).data!.id;
});
afterAll(() => server.stop());

const read = async (id: string) => (await org.owner.from("prompts").select("is_branded").eq("id", id).single()).data!.is_branded as boolean;
// On Postgres a listener keeps is_branded a moment after the write (src/insights/branded.pg.ts):
// reads poll until the flag settles; on SQLite the first read is the answer.
const branded = (id: string, expected: boolean) => settled(() => read(id), expected);
const brandedAll = (ids: string[], expected: boolean[]) => settled(() => Promise.all(ids.map(read)), expected);
/** The flag of a prompt just inserted: the insert's own answer on SQLite; on Postgres, once the listener has rechecked it. */
const inserted = (p: { id: string; is_branded: boolean }, expected: boolean) => (TEST_BACKEND === "postgres" ? branded(p.id, expected) : p.is_branded);

async function prompt(text: string): Promise<{ id: string; is_branded: boolean }> {
  const { data, error } = await org.owner.from("prompts").insert({ prompt_set_id: setId, brand_id: brand.id, text }).select("id, is_branded").single();
  if (error) throw new Error(JSON.stringify(error));
  return data as { id: string; is_branded: boolean };
}

test("a prompt naming the brand is branded on insert, one that does not is not, with the answers' word boundaries", async () => {
  expect(await inserted(await prompt("Is Northwind worth it for a small team?"), true)).toBe(true);
  expect(await inserted(await prompt("is NORTHWIND any good"), true)).toBe(true);
  expect(await inserted(await prompt("Best CRM for a small team?"), false)).toBe(false);
  // Part of a longer word is not the brand, as in answers.
  expect(await inserted(await prompt("Northwindy weather tools"), false)).toBe(false);
});

test("editing the prompt's text rechecks it", async () => {
  const p = await prompt("Best CRM for a bakery?");
  expect(await inserted(p, false)).toBe(false);
  await org.owner.from("prompts").update({ text: "Northwind or Contoso for a bakery?" }).eq("id", p.id);
  expect(await branded(p.id, true)).toBe(true);
  await org.owner.from("prompts").update({ text: "Which CRM for a bakery?" }).eq("id", p.id);
  expect(await branded(p.id, false)).toBe(false);
});

test("renaming the brand, adding an alias or a domain rechecks every prompt of the brand", async () => {
  const a = await prompt("Tailspin Toys reviews");
  const b = await prompt("is tailspin.io down?");
  const c = await prompt("TT toys pricing");
  expect([await inserted(a, false), await inserted(b, false), await inserted(c, false)]).toEqual([false, false, false]);
  await org.owner.from("brands").update({ name: "Tailspin Toys" }).eq("id", brand.id);
  expect(await brandedAll([a.id, b.id, c.id], [true, false, false])).toEqual([true, false, false]);
  expect((await org.owner.from("brand_domains").insert({ brand_id: brand.id, domain: "tailspin.io" })).error).toBeNull();
  expect(await brandedAll([a.id, b.id, c.id], [true, true, false])).toEqual([true, true, false]);
  await org.owner.from("brands").update({ aliases: ["TT toys"] }).eq("id", brand.id);
  expect(await branded(c.id, true)).toBe(true);
  // Removing the domain and the alias, and renaming back: nothing names the brand any more.
  await org.owner.from("brand_domains").delete().eq("brand_id", brand.id);
  await org.owner.from("brands").update({ name: "Northwind", aliases: [] }).eq("id", brand.id);
  expect(await brandedAll([a.id, b.id, c.id], [false, false, false])).toEqual([false, false, false]);
});

test("a client cannot set is_branded: the service role's write is recomputed too", async () => {
  const p = await prompt("Northwind alternatives");
  await org.owner.from("prompts").update({ is_branded: false }).eq("id", p.id);
  expect(await branded(p.id, true)).toBe(true);
  const service = serviceClient(server);
  await service.from("prompts").update({ is_branded: true }).eq("id", (await prompt("generic question")).id);
  const rows = await settled(async () => (await org.owner.from("prompts").select("text, is_branded").eq("text", "generic question")).data!, [{ text: "generic question", is_branded: false }]);
  expect(rows).toEqual([{ text: "generic question", is_branded: false }]);
});
