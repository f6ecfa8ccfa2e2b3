// prompts.is_branded (issue #18): a prompt that names the brand — by the matcher that finds the
// brand in answers: name, aliases, domains — is branded, and stays right when the prompt, the
// brand's names or its domains change, whoever writes them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { testServer } from "../helpers/app";
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

const branded = async (id: string) => (await org.owner.from("prompts").select("is_branded").eq("id", id).single()).data!.is_branded as boolean;

async function prompt(text: string): Promise<{ id: string; is_branded: boolean }> {
  const { data, error } = await org.owner.from("prompts").insert({ prompt_set_id: setId, brand_id: brand.id, text }).select("id, is_branded").single();
  if (error) throw new Error(JSON.stringify(error));
  return data as { id: string; is_branded: boolean };
}

test("a prompt naming the brand is branded on insert, one that does not is not, with the answers' word boundaries", async () => {
  expect((await prompt("Is Northwind worth it for a small team?")).is_branded).toBe(true);
  expect((await prompt("is NORTHWIND any good")).is_branded).toBe(true);
  expect((await prompt("Best CRM for a small team?")).is_branded).toBe(false);
  // Part of a longer word is not the brand, as in answers.
  expect((await prompt("Northwindy weather tools")).is_branded).toBe(false);
});

test("editing the prompt's text rechecks it", async () => {
  const p = await prompt("Best CRM for a bakery?");
  expect(p.is_branded).toBe(false);
  await org.owner.from("prompts").update({ text: "Northwind or Contoso for a bakery?" }).eq("id", p.id);
  expect(await branded(p.id)).toBe(true);
  await org.owner.from("prompts").update({ text: "Which CRM for a bakery?" }).eq("id", p.id);
  expect(await branded(p.id)).toBe(false);
});

test("renaming the brand, adding an alias or a domain rechecks every prompt of the brand", async () => {
  const a = await prompt("Tailspin Toys reviews");
  const b = await prompt("is tailspin.io down?");
  const c = await prompt("TT toys pricing");
  expect([a.is_branded, b.is_branded, c.is_branded]).toEqual([false, false, false]);
  await org.owner.from("brands").update({ name: "Tailspin Toys" }).eq("id", brand.id);
  expect([await branded(a.id), await branded(b.id), await branded(c.id)]).toEqual([true, false, false]);
  expect((await org.owner.from("brand_domains").insert({ brand_id: brand.id, domain: "tailspin.io" })).error).toBeNull();
  expect([await branded(a.id), await branded(b.id), await branded(c.id)]).toEqual([true, true, false]);
  await org.owner.from("brands").update({ aliases: ["TT toys"] }).eq("id", brand.id);
  expect(await branded(c.id)).toBe(true);
  // Removing the domain and the alias, and renaming back: nothing names the brand any more.
  await org.owner.from("brand_domains").delete().eq("brand_id", brand.id);
  await org.owner.from("brands").update({ name: "Northwind", aliases: [] }).eq("id", brand.id);
  expect([await branded(a.id), await branded(b.id), await branded(c.id)]).toEqual([false, false, false]);
});

test("a client cannot set is_branded: the service role's write is recomputed too", async () => {
  const p = await prompt("Northwind alternatives");
  await org.owner.from("prompts").update({ is_branded: false }).eq("id", p.id);
  expect(await branded(p.id)).toBe(true);
  const service = serviceClient(server);
  await service.from("prompts").update({ is_branded: true }).eq("id", (await prompt("generic question")).id);
  const rows = (await org.owner.from("prompts").select("text, is_branded").eq("text", "generic question")).data!;
  expect(rows).toEqual([{ text: "generic question", is_branded: false }]);
});
