// The portfolio store's contract (src/portfolio/store.ts), for every backend.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PortfolioStore } from "../../src/portfolio/store";
import type { Harness } from "./harness";

export function describePortfolioStoreContract(name: string, make: () => Promise<Harness & { store: PortfolioStore }>) {
  describe(`PortfolioStore contract (${name})`, () => {
    let h: Harness & { store: PortfolioStore };
    beforeAll(async () => void (h = await make()));
    afterAll(() => h.close());
    const tag = () => crypto.randomUUID().slice(0, 8);

    test("organizations: those that exist among the ids, by name; none for no ids", async () => {
      const t = tag();
      const b = await h.fixtures.organization(`B ${t}`);
      const a = await h.fixtures.organization(`A ${t}`);
      await h.fixtures.organization(`C ${t}`);
      expect(await h.store.organizations([b, a, crypto.randomUUID()])).toEqual([{ id: a, name: `A ${t}` }, { id: b, name: `B ${t}` }]);
      expect(await h.store.organizations([])).toEqual([]);
    });

    test("brands: only those of the organizations asked for, by organization name then brand name, at most `limit`; is_active as a boolean", async () => {
      const t = tag();
      const beta = await h.fixtures.organization(`Beta ${t}`);
      const alpha = await h.fixtures.organization(`Alpha ${t}`);
      const other = await h.fixtures.organization(`Other ${t}`);
      const zeta = await h.fixtures.brand(alpha, `Zeta ${t}`);
      const acme = await h.fixtures.brand(alpha, `Acme ${t}`);
      const mid = await h.fixtures.brand(beta, `Mid ${t}`);
      await h.fixtures.brand(other, `Hidden ${t}`);
      await h.fixtures.deactivateBrand(zeta);
      const all = await h.store.brands({ organizationIds: [beta, alpha], limit: 10 });
      expect(all).toEqual([
        { id: acme, name: `Acme ${t}`, is_active: true, organization_id: alpha, organization_name: `Alpha ${t}` },
        { id: zeta, name: `Zeta ${t}`, is_active: false, organization_id: alpha, organization_name: `Alpha ${t}` },
        { id: mid, name: `Mid ${t}`, is_active: true, organization_id: beta, organization_name: `Beta ${t}` },
      ]);
      expect((await h.store.brands({ organizationIds: [beta, alpha], limit: 2 })).map((b) => b.id)).toEqual([acme, zeta]);
      expect(await h.store.brands({ organizationIds: [], limit: 10 })).toEqual([]);
    });

    test("latestRuns: each brand's newest tracking job with its units done or failed counted; brands that never ran left out", async () => {
      const org = await h.fixtures.organization();
      const ran = await h.fixtures.brand(org);
      const never = await h.fixtures.brand(org);
      const old = await h.fixtures.job(ran, "completed", ["done"]);
      const newest = await h.fixtures.job(ran, "active", ["done", "failed", "pending", "pending"]);
      await h.inspect("UPDATE jobs SET created_at = ? WHERE id = ?", "2026-01-01T00:00:00.000Z", old);
      await h.inspect("UPDATE jobs SET created_at = ? WHERE id = ?", "2026-01-02T00:00:00.000Z", newest);
      const runs = await h.store.latestRuns([ran, never]);
      expect(runs).toEqual([{ brand_id: ran, job_id: newest, status: "active", phase: null, completed: 2, total: 4, created_at: "2026-01-02T00:00:00.000Z", started_at: null, finished_at: null }]);
      expect(await h.store.latestRuns([])).toEqual([]);
    });

    test("topics: the brands' topics, with their brand", async () => {
      const org = await h.fixtures.organization();
      const a = await h.fixtures.brand(org);
      const b = await h.fixtures.brand(org);
      const pricing = await h.fixtures.topic(a, "Pricing");
      await h.fixtures.topic(b, "Elsewhere");
      expect(await h.store.topics([a])).toEqual([{ brand_id: a, id: pricing, name: "Pricing" }]);
      expect(await h.store.topics([])).toEqual([]);
    });
  });
}
