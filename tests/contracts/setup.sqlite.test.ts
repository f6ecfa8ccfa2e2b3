import { createSqliteSetupStore } from "../../src/setup/store.sqlite";
import { describeSetupStoreContract } from "./setup.contract";
import { sqliteHarness } from "./harness";

describeSetupStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteSetupStore(h.dbh.sqlite) };
});
