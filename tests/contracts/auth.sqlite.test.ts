import { createSqliteAuthStore } from "../../src/platform/auth/store.sqlite";
import { describeAuthStoreContract } from "./auth.contract";
import { sqliteHarness } from "./harness";

describeAuthStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteAuthStore(h.dbh.sqlite) };
});
