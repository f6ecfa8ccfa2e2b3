import { createPgMembersStore } from "../../src/members/store.pg";
import { describeMembersStoreContract } from "./members.contract";
import { pgHarness } from "./harness.pg";

const h = await pgHarness();
if (h) describeMembersStoreContract("postgres", async () => ({ ...h, store: createPgMembersStore(h.pg.sql) }));
