import { createPgMembersStore } from "../../src/members/store.pg";
import { describeMembersStoreContract } from "./members.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeMembersStoreContract("postgres", async () => ({ ...h, store: createPgMembersStore(h.pg.sql) }));

// What only a shared database asks of the store: several instances calling at the same moment.
// A database of its own (the contract's harness is closed when its suite ends).
const c = await pgHarness();
if (c) {
  const { afterAll, describe, expect, test } = await import("bun:test");
  const store = createPgMembersStore(c.pg.sql);
  afterAll(() => c.close());
  const NOW = "2026-05-01T12:00:00.000Z";

  describe("MembersStore on Postgres under concurrency", () => {
    test("invitations sent at once never pass the organization's cap", async () => {
      const org = await c.fixtures.organization();
      const owner = await c.fixtures.user();
      await c.fixtures.member(org, owner, "owner");
      const sent = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.invite({ organizationId: org, email: `cap-${i}-${crypto.randomUUID()}@example.com`, role: "member", invitedBy: owner, expiresAt: "2026-05-15T12:00:00.000Z", at: NOW, maxPending: 3, keyHash: `k${i}` }),
        ),
      );
      expect(sent.filter((s) => s !== null)).toHaveLength(3);
      expect(await store.pendingInvitations({ organizationId: org, now: NOW, limit: 100 })).toHaveLength(3);
    });

    test("one invitation accepted at once: consumed once, the others find nothing", async () => {
      const org = await c.fixtures.organization();
      const owner = await c.fixtures.user();
      await c.fixtures.member(org, owner, "owner");
      const to = `accept-${crypto.randomUUID()}@example.com`;
      const user = await c.fixtures.user(to);
      const inv = await store.invite({ organizationId: org, email: to, role: "member", invitedBy: owner, expiresAt: "2026-05-15T12:00:00.000Z", at: NOW, maxPending: 10, keyHash: "k" });
      const outcomes = await Promise.all(Array.from({ length: 4 }, () => store.accept({ id: inv!.id, email: to, userId: user, now: NOW, keyHash: "k", inviterMayGrant: () => true })));
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(["accepted", "not_found", "not_found", "not_found"]);
    });
  });
}
