// The config-as-code store's contract (src/setup/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrandState, BrandWrite, SetupStore } from "../../src/setup/store";
import type { Harness } from "./harness";

export function describeSetupStoreContract(name: string, make: () => Promise<Harness & { store: SetupStore }>) {
  describe(`SetupStore contract (${name})`, () => {
    let h: Harness & { store: SetupStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());

    const slug = () => `brand-${crypto.randomUUID().slice(0, 8)}`;
    const NEW_BRAND: BrandWrite[] = [
      { op: "insertBrand", name: "Lumenly", slug: "", region: "us", language: "en", aliases: ["Lumen"], industry: null, description: null },
      { op: "insertDomain", domain: "lumenly.example", primary: true },
      { op: "insertDomain", domain: "docs.lumenly.example", primary: false },
      { op: "insertCompetitor", name: "Quantora", domain: "quantora.example", aliases: ["Q"] },
      { op: "insertTopic", name: "Buying" },
      { op: "insertPrompt", text: "Best analytics tool?", topic: { name: "Buying" } },
      { op: "insertPrompt", text: "Is Lumenly good?", topic: null },
      { op: "enablePlatform", platform: "chatgpt", frequency: "daily", samples: 2, model: null },
    ];
    const create = async (organization: { id: string; name: string; slug: string }, s: string) =>
      h.store.reconcileBrand({ slug: s, chooseOrganization: () => organization, plan: () => NEW_BRAND.map((w) => (w.op === "insertBrand" ? { ...w, slug: s } : w)) });
    const org = async () => {
      const name = `Org ${crypto.randomUUID().slice(0, 8)}`;
      const id = await h.fixtures.organization(name);
      return (await h.store.organizations()).find((o) => o.id === id)!;
    };
    const stateOf = async (organization: { id: string; name: string; slug: string }, s: string) => {
      let seen: BrandState | undefined;
      await h.store.reconcileBrand({ slug: s, chooseOrganization: () => organization, plan: (state) => ((seen = state), []) });
      return seen!;
    };

    test("organizations: every organization, oldest first", async () => {
      const a = await org();
      await Bun.sleep(2);
      const b = await org();
      const ids = (await h.store.organizations()).map((o) => o.id);
      expect(ids.indexOf(a.id)).toBeLessThan(ids.indexOf(b.id));
      expect((await h.store.organizations()).find((o) => o.id === a.id)).toEqual({ id: a.id, name: a.name, slug: a.name.toLowerCase() });
    });

    test("reconcileBrand: a new brand — the plan sees no brand, its writes create it and everything in order; the state then shows it", async () => {
      const o = await org();
      const s = slug();
      const empty = await stateOf(o, s);
      expect(empty).toEqual({ organization: o, brand: null, domains: [], competitors: [], topics: [], prompts: [], platforms: [] });
      const { brandId } = await create(o, s);
      expect(brandId).toMatch(/^[0-9a-f-]{36}$/);
      const state = await stateOf(o, s);
      expect(state.brand).toMatchObject({ id: brandId, organization_id: o.id, name: "Lumenly", region: "us", language: "en", industry: null, description: null });
      expect(JSON.parse(state.brand!.aliases)).toEqual(["Lumen"]);
      expect(state.domains.map((d) => [d.domain, d.is_primary]).sort()).toEqual([["docs.lumenly.example", 0], ["lumenly.example", 1]]);
      expect(state.competitors).toMatchObject([{ name: "Quantora", domain: "quantora.example" }]);
      const buying = state.topics.find((t) => t.name === "Buying")!;
      expect(state.prompts.map((p) => [p.text, p.is_active, p.topic_id]).sort()).toEqual([["Best analytics tool?", 1, buying.id], ["Is Lumenly good?", 1, null]]);
      expect(state.platforms).toEqual([{ platform: "chatgpt", is_enabled: 1, check_frequency: "daily", samples: 2, model: null }]);
      // Both prompts in the one prompt set made for them (a count is a bigint, a string, on Postgres).
      expect(Number((await h.inspect<{ n: number }>("SELECT count(DISTINCT prompt_set_id) AS n FROM prompts WHERE brand_id = ?", brandId))[0]!.n)).toBe(1);
    });

    test("reconcileBrand: the brand's prompts read as branded or not at once after it returns, a renamed brand's too (no listener needed)", async () => {
      const o = await org();
      const s = slug();
      const { brandId } = await create(o, s);
      const flags = () => h.inspect<{ text: string; is_branded: number }>("SELECT text, is_branded FROM prompts WHERE brand_id = ? ORDER BY text", brandId);
      expect(await flags()).toEqual([{ text: "Best analytics tool?", is_branded: 0 }, { text: "Is Lumenly good?", is_branded: 1 }]);
      await h.store.reconcileBrand({ slug: s, chooseOrganization: () => o, plan: () => [{ op: "updateBrand", field: "name", value: "Analytica" }, { op: "updateBrandAliases", aliases: [] }] });
      expect(await flags()).toEqual([{ text: "Best analytics tool?", is_branded: 0 }, { text: "Is Lumenly good?", is_branded: 0 }]);
    });

    test("reconcileBrand: updates, deletions, deactivation and platform changes on an existing brand", async () => {
      const o = await org();
      const s = slug();
      const { brandId } = await create(o, s);
      const before = await stateOf(o, s);
      const docs = before.domains.find((d) => d.domain === "docs.lumenly.example")!;
      const main = before.domains.find((d) => d.domain === "lumenly.example")!;
      const old = before.prompts.find((p) => p.text === "Is Lumenly good?")!;
      const buying = before.topics[0]!;
      const result = await h.store.reconcileBrand({
        slug: s,
        chooseOrganization: () => o,
        plan: (state) => {
          expect(state.brand!.id).toBe(brandId!);
          return [
            { op: "updateBrand", field: "industry", value: "Analytics" },
            { op: "updateBrandAliases", aliases: ["Lumen", "LMN"] },
            { op: "deleteDomain", id: main.id },
            { op: "setDomainPrimary", id: docs.id, primary: true },
            { op: "updateCompetitor", id: before.competitors[0]!.id, name: "Quantora", domain: null, aliases: [] },
            { op: "insertTopic", name: "Support" },
            { op: "deleteTopic", id: buying.id },
            { op: "deactivatePrompt", id: old.id },
            { op: "insertPrompt", text: "How do I export?", topic: { name: "Support" } },
            { op: "disablePlatform", platform: "chatgpt" },
            { op: "enablePlatform", platform: "perplexity", frequency: "weekly", samples: 1, model: "sonar" },
          ];
        },
      });
      expect(result).toEqual({ brandId });
      const after = await stateOf(o, s);
      expect(after.brand).toMatchObject({ industry: "Analytics" });
      expect(JSON.parse(after.brand!.aliases)).toEqual(["Lumen", "LMN"]);
      expect(after.domains.map((d) => [d.domain, d.is_primary])).toEqual([["docs.lumenly.example", 1]]);
      expect(after.competitors).toMatchObject([{ name: "Quantora", domain: null }]);
      expect(after.topics.map((t) => t.name)).toEqual(["Support"]);
      expect(after.prompts.find((p) => p.id === old.id)!.is_active).toBe(0);
      expect(after.prompts.find((p) => p.text === "How do I export?")!.topic_id).toBe(after.topics[0]!.id);
      expect(after.platforms.map((p) => [p.platform, p.is_enabled, p.check_frequency, p.samples, p.model]).sort()).toEqual([["chatgpt", 0, "daily", 2, null], ["perplexity", 1, "weekly", 1, "sonar"]]);

      // Reactivated with a topic (and still in the brand's first prompt set).
      await h.store.reconcileBrand({ slug: s, chooseOrganization: () => o, plan: (state) => [{ op: "activatePrompt", id: old.id, topic: { id: state.topics[0]!.id } }] });
      expect((await stateOf(o, s)).prompts.find((p) => p.id === old.id)).toMatchObject({ is_active: 1, topic_id: after.topics[0]!.id });
      expect(Number((await h.inspect<{ n: number }>("SELECT count(DISTINCT prompt_set_id) AS n FROM prompts WHERE brand_id = ?", brandId))[0]!.n)).toBe(1);
    });

    test("reconcileBrand is all or nothing: a failing write, a throwing plan or organization choice change nothing", async () => {
      const o = await org();
      const s = slug();
      const writes: BrandWrite[] = [...NEW_BRAND.map((w) => (w.op === "insertBrand" ? { ...w, slug: s } : w)), { op: "updateBrand", field: "name", value: null }];
      // A brand needs a name: the last write fails after everything else was written.
      await expect(h.store.reconcileBrand({ slug: s, chooseOrganization: () => o, plan: () => writes })).rejects.toThrow();
      expect((await stateOf(o, s)).brand).toBeNull();
      expect(await h.inspect("SELECT id FROM brands WHERE slug = ?", s)).toEqual([]);

      await create(o, s);
      const before = await stateOf(o, s);
      await expect(
        h.store.reconcileBrand({
          slug: s,
          chooseOrganization: () => o,
          plan: () => [{ op: "updateBrand", field: "name", value: "Renamed" }, { op: "updateBrand", field: "name", value: null }],
        }),
      ).rejects.toThrow();
      expect(await stateOf(o, s)).toEqual(before);
      await expect(h.store.reconcileBrand({ slug: s, chooseOrganization: () => { throw new Error("which organization?"); }, plan: () => [] })).rejects.toThrow("which organization?");
      await expect(h.store.reconcileBrand({ slug: s, chooseOrganization: () => o, plan: () => { throw new Error("bad file"); } })).rejects.toThrow("bad file");
      expect(await stateOf(o, s)).toEqual(before);
    });

    test("brandForExport: the brand with its active prompts and enabled platforms, ordered; unknown → null", async () => {
      const o = await org();
      const s = slug();
      const { brandId } = await create(o, s);
      await h.store.reconcileBrand({
        slug: s,
        chooseOrganization: () => o,
        plan: (state) => [
          { op: "insertCompetitor", name: "Amplexa", domain: null, aliases: [] },
          { op: "deactivatePrompt", id: state.prompts.find((p) => p.text === "Is Lumenly good?")!.id },
          { op: "enablePlatform", platform: "claude", frequency: "weekly", samples: 1, model: null },
          { op: "disablePlatform", platform: "chatgpt" },
        ],
      });
      const found = await h.store.brandForExport({ organizationId: o.id, slug: s });
      expect(found!.brand).toMatchObject({ id: brandId, slug: s, name: "Lumenly" });
      expect(found!.domains.map((d) => d.domain)).toEqual(["lumenly.example", "docs.lumenly.example"]);
      expect(found!.competitors.map((c) => c.name)).toEqual(["Amplexa", "Quantora"]);
      expect(found!.topics.map((t) => t.name)).toEqual(["Buying"]);
      expect(found!.prompts).toEqual([{ text: "Best analytics tool?", topic_id: found!.topics[0]!.id }]);
      expect(found!.platforms).toEqual([{ platform: "claude", check_frequency: "weekly", samples: 1, model: null }]);
      expect(await h.store.brandForExport({ organizationId: o.id, slug: "no-such-brand" })).toBeNull();
      expect(await h.store.brandForExport({ organizationId: (await org()).id, slug: s })).toBeNull();
    });

    test("listBrands: each brand with its organization and number of active prompts", async () => {
      const o = await org();
      const s = slug();
      await create(o, s);
      const listed = (await h.store.listBrands()).filter((b) => b.organization === o.name);
      expect(listed).toEqual([{ organization: o.name, slug: s, name: "Lumenly", is_active: 1, prompts: 2 }]);
    });
  });
}
