import { createSqliteDemoHistoryStore } from "../../src/demo/store.sqlite";
import { describeDemoHistoryStoreContract } from "./demo.contract";
import { sqliteHarness } from "./harness";

describeDemoHistoryStoreContract("sqlite", async () => {
  const h = sqliteHarness();
  return { ...h, store: createSqliteDemoHistoryStore(h.dbh.sqlite) };
});
