import { createSqliteMembersStore } from "../../src/members/store.sqlite";
import { describeMembersStoreContract } from "./members.contract";
import { sqliteHarness } from "./harness";

describeMembersStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteMembersStore(h.dbh.sqlite) };
});
